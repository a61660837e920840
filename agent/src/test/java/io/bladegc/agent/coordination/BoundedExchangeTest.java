package io.bladegc.agent.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.agent.coordination.BoundedExchange.Answer;
import io.bladegc.agent.coordination.CoordinatorException.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The framing {@link BoundedExchange} reads and the request it writes, against a raw one-answer server. */
class BoundedExchangeTest {

    /** Answers one connection with {@code answer} and closes it; completes with the request's head. */
    private static CompletableFuture<String> serveOnce(ServerSocket server, String answer) {
        return CompletableFuture.supplyAsync(() -> {
            try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                    head.write(in.read());
                }
                s.getOutputStream().write(answer.getBytes(StandardCharsets.UTF_8));
                return head.toString(StandardCharsets.ISO_8859_1);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static Answer exchange(String answer) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> head = serveOnce(server, answer);
            Answer a = new BoundedExchange(URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/x"), null,
                null, null, System.nanoTime() + TimeUnit.SECONDS.toNanos(5)).run();
            head.get(5, TimeUnit.SECONDS);
            return a;
        }
    }

    @Test
    void theRequestIsOnePostWithItsHeadersAndClosesTheConnection() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> head = serveOnce(server, "HTTP/1.1 204 No Content\r\n\r\n");
            int port = server.getLocalPort();
            Answer a = new BoundedExchange(URI.create("http://127.0.0.1:" + port + "/v1/nodes/n/join"), "Bearer t",
                "key-of-n-0123456789", "{}".getBytes(StandardCharsets.UTF_8), System.nanoTime() + TimeUnit.SECONDS.toNanos(5)).run();
            assertThat(a).isEqualTo(new Answer(204, ""));
            assertThat(head.get(5, TimeUnit.SECONDS)).isEqualTo("POST /v1/nodes/n/join HTTP/1.1\r\nHost: 127.0.0.1:"
                + port + "\r\nAccept: application/json\r\nConnection: close\r\nAuthorization: Bearer t\r\n"
                + "Blade-Member-Key: key-of-n-0123456789\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n");
        }
    }

    @Test
    void aContentLengthBody() throws Exception {
        assertThat(exchange("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: 15\r\n\r\n{\"status\":\"OK\"}")).isEqualTo(new Answer(200, "{\"status\":\"OK\"}"));
    }

    @Test
    void aChunkedBodyWithExtensionsAndTrailersAfterAnInterimAnswer() throws Exception {
        assertThat(exchange("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n5;x=y\r\n{\"a\":\r\n2\r\n1}\r\n0\r\nX-Trailer: t\r\n\r\n"))
            .isEqualTo(new Answer(200, "{\"a\":1}"));
    }

    @Test
    void aBodyToTheEndOfTheConnectionWithBareLineFeeds() throws Exception {
        assertThat(exchange("HTTP/1.0 200 OK\nContent-Type: application/json\n\n{\"é\":1}"))
            .isEqualTo(new Answer(200, "{\"é\":1}"));
    }

    @Test
    void aRefusalIsReadWhateverItsType() throws Exception {
        assertThat(exchange("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nContent-Length: 10\r\n\r\n"
            + "<h1>x</h1>")).isEqualTo(new Answer(503, "<h1>x</h1>"));
    }

    @Test
    void whatIsNotHttpIsABadAnswer() {
        assertThatThrownBy(() -> exchange("SSH-2.0-OpenSSH_9.2\r\n\r\n")).isInstanceOfSatisfying(
            CoordinatorException.class, e -> {
                assertThat(e.kind()).isEqualTo(Kind.BAD_ANSWER);
                assertThat(e.getMessage()).isEqualTo("not an HTTP/1.1 answer: SSH-2.0-OpenSSH_9.2");
            });
    }

    @Test
    void twoDifferentLengthsAreABadAnswer() {
        assertThatThrownBy(() -> exchange("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2"
            + "\r\nContent-Length: 3\r\n\r\n{}")).isInstanceOfSatisfying(CoordinatorException.class,
                e -> assertThat(e.getMessage()).isEqualTo("Content-Length is not one number: 3"));
    }

    @Test
    void anAnswerCutShortIsUnreachable() {
        assertThatThrownBy(() -> exchange("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 20"
            + "\r\n\r\n{}")).isInstanceOfSatisfying(CoordinatorException.class,
                e -> assertThat(e.kind()).isEqualTo(Kind.UNREACHABLE));
    }
}
