package io.bladegc.benchmarks.coordinator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One keep-alive HTTP/1.1 connection to the coordinator, speaking for one node. Deliberately lean: a blocking
 * {@link Socket} with {@code TCP_NODELAY}, requests written as bytes, and only the status line,
 * {@code Content-Length} and (for acquire) the {@code epoch} field parsed. Each node's calls carry a member key made
 * from its id ({@code Blade-Member-Key}: the coordinator lets only the caller that joined as a node act for it). Not
 * thread-safe: one thread per connection.
 */
final class NodeConnection implements AutoCloseable {
    private static final Pattern EPOCH = Pattern.compile("\"epoch\":(\\d+)");

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String node;
    private final byte[] buf = new byte[8192];
    private int len;
    private int pos;
    private String lastBody;

    /** @param node the node id that {@link #post}, {@link #acquire} and {@link #release} speak for */
    NodeConnection(int port, String node) throws IOException {
        this.node = node;
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", port));
        out = socket.getOutputStream();
        in = socket.getInputStream();
    }

    /** @return the epoch of the grant; any other answer than a grant is an {@link IOException} */
    long acquire(long gcId) throws IOException {
        int status = post("acquire", "{\"gcId\":" + gcId + ",\"leadMillis\":0}");
        Matcher m = EPOCH.matcher(lastBody);
        if (status != 200 || !m.find()) {
            throw new IOException("acquire answered " + status + " " + lastBody);
        }
        return Long.parseLong(m.group(1));
    }

    void release(long epoch) throws IOException {
        int status = post("release", "{\"epoch\":" + epoch + "}");
        if (status != 200) {
            throw new IOException("release answered " + status + " " + lastBody);
        }
    }

    /** @return the HTTP status of {@code POST /v1/nodes/<this node>/<op>} */
    int post(String op, String body) throws IOException {
        return postNode(node, op, body);
    }

    /** @return the HTTP status of {@code POST /v1/nodes/<id>/<op>} */
    int postNode(String id, String op, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.US_ASCII);
        String head = "POST /v1/nodes/" + id + "/" + op + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Blade-Member-Key: bench-member-key-" + id + "\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + b.length + "\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] req = new byte[h.length + b.length];
        System.arraycopy(h, 0, req, 0, h.length);
        System.arraycopy(b, 0, req, h.length, b.length);
        out.write(req);
        out.flush();
        return readResponse();
    }

    /** Reads one response; returns its status, keeps its body in {@link #lastBody}. */
    private int readResponse() throws IOException {
        String statusLine = readLine();
        int status = Integer.parseInt(statusLine.substring(9, 12));
        int contentLength = 0;
        String line;
        while (!(line = readLine()).isEmpty()) {
            if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                contentLength = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = new byte[contentLength];
        for (int i = 0; i < contentLength; i++) {
            body[i] = (byte) readByte();
        }
        lastBody = new String(body, StandardCharsets.US_ASCII);
        return status;
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder(64);
        while (true) {
            int c = readByte();
            if (c == '\r') {
                continue;
            }
            if (c == '\n') {
                return sb.toString();
            }
            sb.append((char) c);
        }
    }

    private int readByte() throws IOException {
        if (pos == len) {
            len = in.read(buf);
            pos = 0;
            if (len <= 0) {
                throw new IOException("connection closed by the coordinator");
            }
        }
        return buf[pos++] & 0xff;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
