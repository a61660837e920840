package io.bladegc.benchmarks.grpc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.bladegc.api.BladeOptions;
import io.bladegc.benchmarks.demo.GcRecorder;
import io.bladegc.benchmarks.demo.NodeStats;
import io.bladegc.benchmarks.demo.Workload;
import io.bladegc.grpc.BladeHealth;
import io.bladegc.grpc.BladeServerInterceptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A gRPC backend for {@code GrpcClusterIT} and the suite's {@code grpc-cluster} scenario: {@link GarbageService} on
 * 127.0.0.1 behind {@link BladeServerInterceptor} (which joins the agent's node; the agent's options apply), the
 * standard health service beside it with {@link BladeHealth} publishing the gate's state to it, and a
 * small HTTP server beside it, not behind Blade, with the demo server's {@code GET /stats} fields the tests read
 * ({@code gcPauses} from {@link GcRecorder}, {@code gcEventsDropped}, {@code node} from {@link NodeStats}) plus
 * {@code shed} (the interceptor's {@code shedCount()}) and {@code unaryBusyCollections} (collections with a unary call
 * in flight, {@link BusyCollections}); {@code POST /stats/reset} forgets the GC notifications and those collections.
 *
 * <p>Arguments: the node's name, the garbage per unary call in KiB, optionally {@code on} (the default) or
 * {@code off}: off, the interceptor is a pass-through ({@code enabled=false}) and no Blade node starts in a JVM
 * without the agent (on, such a JVM starts one of its own, single-node), and optionally after it a live set as the
 * demo server keeps one ({@link Workload}): its MiB, the KiB of it replaced per unary call, and the size of its arrays
 * in bytes (default: no live set). Prints
 * {@code LISTENING <grpcPort> <statsPort>} once both listen; runs until killed.
 */
public final class GrpcBackend {
    private static final ObjectMapper JSON = new ObjectMapper();

    private GrpcBackend() {
    }

    public static void main(String[] args) throws Exception {
        String node = args[0];
        GcRecorder gc = new GcRecorder();
        BusyCollections busy = new BusyCollections();
        boolean on = args.length < 3 || parseOnOff(args[2]);
        Workload workload = args.length < 4 ? new Workload(0, Integer.parseInt(args[1]), 0, Workload.CHUNK_BYTES)
            : new Workload(Integer.parseInt(args[3]), Integer.parseInt(args[1]), Integer.parseInt(args[4]),
                Integer.parseInt(args[5]));
        BladeServerInterceptor blade = BladeServerInterceptor.start(on ? BladeOptions.defaults()
            : BladeOptions.builder().enabled(false).build());
        HealthStatusManager health = new HealthStatusManager();
        BladeHealth.start(health, blade);
        InetAddress loopback = InetAddress.getLoopbackAddress();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(loopback, 0))
            // intercept(service, a, b) runs b first: busy's interval of a call contains the gate's
            .addService(ServerInterceptors.intercept(new GarbageService(node, workload), blade, busy))
            .addService(health.getHealthService()) // not gated: clients watch it while the node drains
            .build()
            .start();
        HttpServer stats = HttpServer.create(new InetSocketAddress(loopback, 0), 16);
        stats.createContext("/stats", exchange -> {
            if (exchange.getRequestURI().getPath().equals("/stats/reset")) {
                gc.reset();
                busy.reset();
                reply(exchange, 204, new byte[0]);
            } else {
                reply(exchange, 200, JSON.writeValueAsBytes(stats(gc, blade, busy)));
            }
        });
        stats.start();
        System.out.println("LISTENING " + server.getPort() + " " + stats.getAddress().getPort());
        System.out.flush();
        server.awaitTermination();
    }

    private static boolean parseOnOff(String value) {
        return switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("the third argument is on or off: " + value);
        };
    }

    private static Map<String, Object> stats(GcRecorder gc, BladeServerInterceptor blade, BusyCollections busy) {
        List<Map<String, Object>> pauses = new ArrayList<>();
        for (GcRecorder.GcEvent e : gc.events()) {
            pauses.add(e.toMap());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("gcPauses", pauses);
        out.put("gcEventsDropped", gc.dropped());
        out.put("node", NodeStats.read());
        out.put("shed", blade.shedCount());
        out.put("unaryBusyCollections", busy.count());
        return out;
    }

    private static void reply(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, status == 204 ? -1 : body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
