package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JavaInstallationTest {
    @Test
    void readsTheFeatureReleaseFromTheReleaseFile() {
        String release = "IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_RUNTIME_VERSION=\"25.0.3+9-LTS\"\n"
            + "JAVA_VERSION=\"25.0.3\"\n";
        assertThat(JavaInstallation.parse(Path.of("j"), release))
            .contains(new JavaInstallation(Path.of("j"), "25.0.3", 25));
        assertThat(JavaInstallation.parse(Path.of("j"), "JAVA_VERSION=\"21\"\n")).get()
            .extracting(JavaInstallation::feature).isEqualTo(21);
        assertThat(JavaInstallation.parse(Path.of("j"), "IMPLEMENTOR=\"x\"\n")).isEmpty();
    }

    @Test
    void findsTheFirstInstallationNewEnough(@TempDir Path dir) throws Exception {
        jdk(dir.resolve("a-17"), "17.0.15");
        jdk(dir.resolve("b-25"), "25.0.3");
        jdk(dir.resolve("c-21"), "21.0.5");
        Files.createDirectories(dir.resolve("broken"));
        assertThat(JavaInstallation.find(dir, 21)).get().extracting(JavaInstallation::java)
            .isEqualTo(dir.resolve("b-25/bin/java"));
        assertThat(JavaInstallation.find(dir, 26)).isEmpty();
        assertThat(JavaInstallation.find(dir.resolve("missing"), 21)).isEmpty();
    }

    private static void jdk(Path home, String version) throws Exception {
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
        Path java = Files.writeString(home.resolve("bin/java"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
