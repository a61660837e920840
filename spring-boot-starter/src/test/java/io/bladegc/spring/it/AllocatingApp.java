package io.bladegc.spring.it;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot service with only Blade's starter added, for {@code AgentOffIT}: {@code GET /work} allocates about
 * 1 MiB of garbage and answers the JVM's collection count so far; prints {@code LISTENING <port>} once Tomcat listens
 * (port 0: any free one).
 */
@SpringBootApplication
@RestController
public class AllocatingApp {
    private static volatile Object sink;

    public static void main(String[] args) {
        SpringApplication.run(AllocatingApp.class, "--server.port=0", "--spring.main.banner-mode=off");
    }

    @EventListener
    public void listening(WebServerInitializedEvent event) {
        System.out.println("LISTENING " + event.getWebServer().getPort());
    }

    @GetMapping("/work")
    public String work() {
        for (int i = 0; i < 256; i++) {
            sink = new byte[4096];
        }
        long collections = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collections += Math.max(0, gc.getCollectionCount());
        }
        return Long.toString(collections);
    }
}
