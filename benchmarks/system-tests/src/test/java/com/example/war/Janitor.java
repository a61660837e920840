package com.example.war;

import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/**
 * A library habit some applications have: a background thread that calls {@code System.gc()} every
 * {@code -Dwar.janitor.ms} milliseconds (off when the property is not set). No Blade code.
 */
public class Janitor implements ServletContextListener {
    private volatile Thread thread;

    @Override
    public void contextInitialized(ServletContextEvent event) {
        String period = System.getProperty("war.janitor.ms");
        if (period == null) {
            return;
        }
        long ms = Long.parseLong(period);
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(ms);
                } catch (InterruptedException e) {
                    return;
                }
                System.gc();
            }
        }, "war-janitor");
        t.setDaemon(true);
        t.start();
        thread = t;
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }
}
