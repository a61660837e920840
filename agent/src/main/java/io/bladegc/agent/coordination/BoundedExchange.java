package io.bladegc.agent.coordination;

import io.bladegc.agent.coordination.CoordinatorException.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One HTTP/1.1 {@code POST} to a coordinator replica on a connection of its own ({@code Connection: close}), read
 * within bounds whatever answers: the whole exchange (connect, TLS handshake, request, status line, headers and body)
 * ends by one deadline, the status line and headers together are at most {@value #MAX_HEAD} bytes and the body at
 * most {@value #MAX_BODY} bytes, and a 2xx answer with a body whose {@code Content-Type} is not
 * {@code application/json} is refused before its body is read. An answer out of bounds fails with a
 * {@link CoordinatorException}, and the connection is closed at once: nothing is read after. An endless, huge,
 * drip-fed or stalled answer costs the application at most these bytes of heap and one thread until the deadline.
 * Answers of the real coordinator are a few hundred bytes.
 *
 * <p>The JDK's {@code java.net.http.HttpClient} is not used because it does not bound an answer once its headers
 * arrived (its request timeout ends there), and after refusing a status line or headers (a header block over its
 * 384 KiB limit, a status line that is not HTTP) it leaves the connection open: one file descriptor leaked per call,
 * seen on JDK 17.0.15 and 25.
 *
 * <p>One exchange per call: {@link #run} on one thread, {@link #abandon} from any thread.
 */
final class BoundedExchange {
    /** The most bytes read for the status line and headers, all interim ({@code 1xx}) answers included. */
    static final int MAX_HEAD = 16 * 1024;
    /** The most bytes read for a body. */
    static final int MAX_BODY = 64 * 1024;

    /** An answer read in full: its status and its body as UTF-8 text. */
    record Answer(int status, String body) {
    }

    private final URI uri;
    private final byte[] request;
    private final long deadlineNanos;
    private final Socket socket = new Socket();
    private final byte[] buffer = new byte[8192];
    private volatile boolean abandoned;
    /** The socket the exchange talks through: {@link #socket}, or the TLS socket over it. */
    private Socket channel;
    private InputStream in;
    private int position;
    private int limit;
    private int headLeft = MAX_HEAD;
    private int bodyLeft = MAX_BODY;

    /**
     * @param uri           the {@code http://} or {@code https://} URL to post to
     * @param authorization the {@code Authorization} header's value, or {@code null}
     * @param memberKey     the {@code Blade-Member-Key} header's value (the node's own key), or {@code null}
     * @param json          the request body, or {@code null} for none
     * @param deadlineNanos when, on the {@link System#nanoTime()} clock, the exchange fails with {@link Kind#TIMEOUT}
     */
    BoundedExchange(URI uri, String authorization, String memberKey, byte[] json, long deadlineNanos) {
        this.uri = uri;
        this.deadlineNanos = deadlineNanos;
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        StringBuilder head = new StringBuilder("POST ").append(path)
            .append(uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())
            .append(" HTTP/1.1\r\nHost: ").append(uri.getHost()).append(uri.getPort() < 0 ? "" : ":" + uri.getPort())
            .append("\r\nAccept: application/json\r\nConnection: close\r\n");
        if (authorization != null) {
            head.append("Authorization: ").append(authorization).append("\r\n");
        }
        if (memberKey != null) {
            head.append(CoordinatorClient.MEMBER_KEY_HEADER).append(": ").append(memberKey).append("\r\n");
        }
        byte[] body = json == null ? new byte[0] : json;
        if (json != null) {
            head.append("Content-Type: application/json\r\n");
        }
        head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        this.request = new byte[h.length + body.length];
        System.arraycopy(h, 0, request, 0, h.length);
        System.arraycopy(body, 0, request, h.length, body.length);
    }

    /**
     * Sends the request and reads the answer, then closes the connection.
     *
     * @return the answer
     * @throws CoordinatorException {@link Kind#UNREACHABLE} when the connection failed, {@link Kind#TIMEOUT} when the
     *     deadline passed or the exchange was abandoned, {@link Kind#BAD_ANSWER} for an answer out of bounds or not
     *     HTTP
     */
    Answer run() throws CoordinatorException {
        try (socket) {
            connect();
            OutputStream out = channel.getOutputStream();
            out.write(request);
            out.flush();
            return readAnswer();
        } catch (IOException e) {
            throw failure(e);
        } finally {
            closeQuietly(channel);
        }
    }

    /** Closes the connection now, from any thread: a {@link #run} under way fails with {@link Kind#TIMEOUT}. */
    void abandon() {
        abandoned = true;
        closeQuietly(socket);
    }

    private void connect() throws IOException, CoordinatorException {
        boolean tls = "https".equalsIgnoreCase(uri.getScheme());
        int port = uri.getPort() >= 0 ? uri.getPort() : tls ? 443 : 80;
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(uri.getHost(), port), remainingMillis());
        channel = socket;
        if (tls) {
            SSLSocket ssl = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault())
                .createSocket(socket, uri.getHost(), port, true);
            SSLParameters p = ssl.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            ssl.setSSLParameters(p);
            channel = ssl;
            channel.setSoTimeout(remainingMillis());
            ssl.startHandshake();
        }
        in = channel.getInputStream();
    }

    private Answer readAnswer() throws IOException, CoordinatorException {
        int status;
        String contentType = "";
        long contentLength = -1;
        boolean chunked = false;
        do { // interim 1xx answers are skipped, their bytes counted in the head's bound
            String statusLine = headLine();
            if (!statusLine.matches("HTTP/1\\.[01] \\d{3}( .*)?")) {
                throw bad(-1, "not an HTTP/1.1 answer: " + CoordinatorAnswers.oneLine(statusLine));
            }
            status = Integer.parseInt(statusLine.substring(9, 12));
            contentType = "";
            contentLength = -1;
            chunked = false;
            for (String line = headLine(); !line.isEmpty(); line = headLine()) {
                int colon = line.indexOf(':');
                if (colon <= 0) {
                    throw bad(status, "malformed header line: " + CoordinatorAnswers.oneLine(line));
                }
                String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = line.substring(colon + 1).trim();
                if (name.equals("content-type")) {
                    contentType = value;
                } else if (name.equals("content-length")) {
                    long n = value.matches("\\d{1,18}") ? Long.parseLong(value) : -1;
                    if (n < 0 || contentLength >= 0 && n != contentLength) {
                        throw bad(status, "Content-Length is not one number: " + CoordinatorAnswers.oneLine(value));
                    }
                    contentLength = n;
                } else if (name.equals("transfer-encoding")) {
                    if (!value.equalsIgnoreCase("chunked")) {
                        throw bad(status, "Transfer-Encoding " + CoordinatorAnswers.oneLine(value)
                            + " (only chunked is read)");
                    }
                    chunked = true;
                }
            }
        } while (status / 100 == 1);
        boolean noBody = status == 204 || status == 304 || contentLength == 0 && !chunked;
        if (status / 100 == 2 && !noBody && !isJson(contentType)) {
            throw bad(status, "answer of type '" + CoordinatorAnswers.oneLine(contentType)
                + "', expected application/json; not read");
        }
        if (contentLength > MAX_BODY) {
            throw bad(status, "answer of " + contentLength + " bytes announced, more than " + MAX_BODY
                + "; not read");
        }
        String body;
        if (noBody) {
            body = "";
        } else if (chunked) {
            body = chunkedBody(status);
        } else if (contentLength >= 0) {
            body = new String(bytes((int) contentLength, status), StandardCharsets.UTF_8);
        } else {
            body = bodyToEnd(status);
        }
        return new Answer(status, body);
    }

    private static boolean isJson(String contentType) {
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
        return type.equalsIgnoreCase("application/json");
    }

    /** @return a body that ends with the connection ({@code Connection: close}), within the body's bound */
    private String bodyToEnd(int status) throws IOException, CoordinatorException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int c = read(); c >= 0; c = read()) {
            if (bodyLeft-- <= 0) {
                throw tooLong(status);
            }
            body.write(c);
        }
        return body.toString(StandardCharsets.UTF_8);
    }

    private String chunkedBody(int status) throws IOException, CoordinatorException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String line = chunkLine(status);
            int semicolon = line.indexOf(';'); // chunk extensions are ignored
            String size = (semicolon < 0 ? line : line.substring(0, semicolon)).trim();
            if (!size.matches("[0-9a-fA-F]{1,8}")) {
                throw bad(status, "malformed chunk size: " + CoordinatorAnswers.oneLine(line));
            }
            long n = Long.parseLong(size, 16);
            if (n == 0) {
                break;
            }
            body.writeBytes(bytes(n, status));
            if (!chunkLine(status).isEmpty()) {
                throw bad(status, "a chunk longer than its size");
            }
        }
        while (!chunkLine(status).isEmpty()) {
            // trailers: read and ignored, within the body's bound
        }
        return body.toString(StandardCharsets.UTF_8);
    }

    /** @return the next {@code n} bytes of the body, within the body's bound */
    private byte[] bytes(long n, int status) throws IOException, CoordinatorException {
        if (n > bodyLeft) {
            throw tooLong(status);
        }
        bodyLeft -= (int) n;
        byte[] b = new byte[(int) n];
        for (int i = 0; i < b.length; i++) {
            int c = read();
            if (c < 0) {
                throw new IOException("connection closed before the answer was complete");
            }
            b[i] = (byte) c;
        }
        return b;
    }

    /** @return a line of the chunked framing; the framing counts in the body's bound */
    private String chunkLine(int status) throws IOException, CoordinatorException {
        String line = line(bodyLeft, () -> tooLong(status));
        bodyLeft -= line.length() + 1;
        return line;
    }

    /** @return a line of the status line and headers, all of them within {@link #MAX_HEAD} */
    private String headLine() throws IOException, CoordinatorException {
        String line = line(headLeft, () -> bad(-1, "status line and headers longer than " + MAX_HEAD
            + " bytes; not read on"));
        headLeft -= line.length() + 1;
        return line;
    }

    /** @return one line, CRLF or LF ended, without its end; at most {@code max} bytes, its end included */
    private String line(int max, Supplier<CoordinatorException> tooLong) throws IOException, CoordinatorException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (sb.length() >= max) {
                throw tooLong.get();
            }
            int c = read();
            if (c < 0) {
                throw new IOException("connection closed before the answer was complete");
            }
            if (c == '\n') {
                int end = sb.length();
                return sb.substring(0, end > 0 && sb.charAt(end - 1) == '\r' ? end - 1 : end);
            }
            sb.append((char) c);
        }
    }

    /** @return the next byte, or -1 at the end of the stream; waits no later than the deadline */
    private int read() throws IOException, CoordinatorException {
        if (position == limit) {
            channel.setSoTimeout(remainingMillis());
            int n = in.read(buffer);
            if (n <= 0) {
                return -1;
            }
            position = 0;
            limit = n;
        }
        return buffer[position++] & 0xff;
    }

    private int remainingMillis() throws CoordinatorException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw timeout();
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left)));
    }

    private CoordinatorException failure(IOException e) {
        if (abandoned) {
            return new CoordinatorException(Kind.TIMEOUT, -1, "the call was abandoned; its connection closed");
        }
        if (e instanceof SocketTimeoutException || deadlineNanos - System.nanoTime() <= 0) {
            return timeout();
        }
        String what = e instanceof UnknownHostException ? "unknown host " + uri.getHost()
            : e instanceof ConnectException ? "connection refused" : CoordinatorAnswers.describe(e);
        return new CoordinatorException(Kind.UNREACHABLE, -1, what);
    }

    private CoordinatorException timeout() {
        return new CoordinatorException(Kind.TIMEOUT, -1, "no complete answer within the coordinator timeout; "
            + "the connection closed");
    }

    private static CoordinatorException bad(int status, String message) {
        return new CoordinatorException(Kind.BAD_ANSWER, status, message);
    }

    private static void closeQuietly(Socket s) {
        try {
            if (s != null) {
                s.close();
            }
        } catch (IOException e) {
            // closed as far as it goes
        }
    }

    private static CoordinatorException tooLong(int status) {
        return bad(status, "answer longer than " + MAX_BODY + " bytes; not read on");
    }
}
