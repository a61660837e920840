package io.bladegc.servlet;

import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;

/**
 * A webapp-style class loader: its own copy of Blade ({@code io.bladegc.*} from the given locations) first,
 * everything else (the servlet API, Jetty, the JDK) from the parent. It can also hide packages, to play a webapp
 * without them.
 */
final class ChildFirstLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final List<String> hidden;

    ChildFirstLoader(String name, URL[] urls, ClassLoader parent, List<String> hiddenPackages) {
        super(name, urls, parent);
        this.hidden = List.copyOf(hiddenPackages);
    }

    /** @return a loader over the classes of blade-api and of this module, as the test class path has them */
    static ChildFirstLoader webapp(String name, String... hiddenPackages) {
        URL[] urls = {location(io.bladegc.api.Blade.class), location(BladeFilter.class)};
        return new ChildFirstLoader(name, urls, ChildFirstLoader.class.getClassLoader(), List.of(hiddenPackages));
    }

    private static URL location(Class<?> c) {
        URL url = c.getProtectionDomain().getCodeSource().getLocation();
        try {
            // target/classes (reactor) or a jar (local repository): either way a class path entry
            return Path.of(url.toURI()).toUri().toURL();
        } catch (URISyntaxException | java.net.MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        for (String prefix : hidden) {
            if (name.startsWith(prefix)) {
                throw new ClassNotFoundException(name + " is hidden from " + getName());
            }
        }
        if (!name.startsWith("io.bladegc.")) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                try {
                    c = findClass(name);
                } catch (ClassNotFoundException e) {
                    c = super.loadClass(name, false); // e.g. this test's own classes
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }
}
