package io.bladegc.agent.coordination;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link System.Logger} that records "LEVEL message" lines. Thread-safe. */
public final class LogLines implements System.Logger {
    public final List<String> lines = new CopyOnWriteArrayList<>();

    public List<String> matching(String part) {
        return lines.stream().filter(l -> l.contains(part)).toList();
    }

    @Override
    public String getName() {
        return "test";
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        lines.add(level + " " + msg + (thrown == null ? "" : " " + thrown));
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        lines.add(level + " " + (params == null || params.length == 0 ? format : MessageFormat.format(format, params)));
    }
}
