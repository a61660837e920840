package io.bladegc.coordinator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** A raw HTTP/1.1 client on a plain socket: sends exactly the bytes it is given, reads responses by hand. */
final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawClient(InetSocketAddress address) throws IOException {
        socket = new Socket();
        socket.connect(address, 2_000);
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    RawClient send(String raw) throws IOException {
        out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return this;
    }

    /** Sends, swallowing the error when the server already closed the connection. */
    boolean trySend(String raw) {
        try {
            send(raw);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** @return one response: status line, headers and a Content-Length body; "" when the connection closed first */
    String readResponse() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            String h = head.toString(StandardCharsets.ISO_8859_1);
            if (h.endsWith("\r\n\r\n")) {
                int length = contentLength(h);
                byte[] body = in.readNBytes(length);
                return h + new String(body, StandardCharsets.UTF_8);
            }
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** @return the status code of the next response, or -1 when the connection closed first */
    int readStatus() throws IOException {
        String r = readResponse();
        return r.startsWith("HTTP/1.1 ") ? Integer.parseInt(r.substring(9, 12)) : -1;
    }

    /** @return whether the server closed the connection (end of stream or reset) within {@code millis} */
    boolean closedByServer(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        return 0;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing
        }
    }
}
