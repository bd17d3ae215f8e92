package io.vnpu.kube.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.kube.testing.podman.Podman;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/image/Dockerfile} built for real, opt-in ({@code -Dvnpu.it.image=true}: it takes
 * minutes and downloads a Debian root and the Maven dependencies): no registry is reachable here,
 * so {@code debootstrap} makes one Debian 12 root with gcc, make, Maven and a JDK, imported as
 * {@code localhost/vnpu-base} and passed as all three base images ({@code NATIVE_BASE}, {@code
 * MAVEN_BASE}, {@code RUNTIME_BASE}); {@code podman build} (chroot isolation, the host's network
 * for apt and Maven Central). In the built image: {@code vnpu --version} prints this build's
 * version, the limiter is an ELF shared object where the agent installs it from, and {@code vnpu
 * devices} (no driver in a container) lists the bundled simulated node's eight NPUs. Without the
 * property, or where podman, debootstrap or the network are missing, one line in the log says why
 * not. {@code -Dvnpu.it.image.base=DIR} reuses a Debian root made before instead of
 * debootstrapping.
 */
class ImageBuildIT {
  @TempDir Path tmp;

  @Test
  void theDockerfileBuildsAnImageThatRunsTheAgentTheLimiterAndTheSimulator() throws Exception {
    if (!Boolean.getBoolean("vnpu.it.image")) {
      skip(
          "opt-in (minutes, downloads a Debian root and the Maven dependencies):"
              + " mvn verify -Dvnpu.it.image=true");
    }
    Podman.assumeAvailable("ImageBuildIT");
    if (!Files.isExecutable(Path.of("/usr/sbin/debootstrap"))) {
      skip(
          "debootstrap is not installed (apt-get install debootstrap): no base image can be made"
              + " without a registry");
    }
    Path root = DeployManifestsTest.deployDir().getParent();
    Path base;
    String given = System.getProperty("vnpu.it.image.base", "");
    if (!given.isEmpty()) {
      base = Path.of(given); // a Debian root made before (debootstrap as below), reused
    } else {
      base = tmp.resolve("base");
      Result boot =
          run(
              List.of(
                  "/usr/sbin/debootstrap",
                  "--variant=minbase",
                  "--include=ca-certificates,gcc,make,libc6-dev,maven,openjdk-17-jdk-headless",
                  "bookworm",
                  base.toString(),
                  "http://deb.debian.org/debian"),
              1800);
      if (boot.exit() != 0) {
        skip(
            "debootstrap of Debian 12 failed (exit "
                + boot.exit()
                + "; no network to"
                + " deb.debian.org?): "
                + last(boot.out()));
      }
    }
    trustLikeThisMachine(base);
    Podman podman = new Podman(tmp.resolve("podman"));
    podman.importImage(base, "localhost/vnpu-base:latest");
    List<String> build =
        new ArrayList<>(
            List.of(
                "build",
                "--isolation",
                "chroot",
                "--network",
                "host",
                "--build-arg",
                "NATIVE_BASE=localhost/vnpu-base:latest",
                "--build-arg",
                "MAVEN_BASE=localhost/vnpu-base:latest",
                "--build-arg",
                "RUNTIME_BASE=localhost/vnpu-base:latest",
                "-f",
                "deploy/image/Dockerfile",
                "-t",
                "localhost/vnpu/node-agent:it",
                root.toString()));
    Podman.Result built = podman.podman(build, 2400);
    assertThat(built.exit()).as("podman build: %s", last(built.out() + built.err())).isZero();

    String version = System.getProperty("vnpu.project.version", "0.1.0-SNAPSHOT");
    Podman.Result v =
        podman.run(null, List.of(), "localhost/vnpu/node-agent:it", List.of("--version"), 120);
    assertThat(v.exit()).as(v.err()).isZero();
    assertThat(v.out()).contains(version);
    Podman.Result lim =
        podman.run(
            null,
            List.of("--entrypoint", "sh"),
            "localhost/vnpu/node-agent:it",
            List.of("-c", "head -c 4 /usr/local/hami-vnpu-core-assets/libvnpu.so | od -An -c"),
            60);
    assertThat(lim.exit()).as(lim.err()).isZero();
    assertThat(lim.out().replace(" ", "")).contains("177ELF");
    // no driver in the container: `vnpu devices` falls back to the bundled simulated node
    Podman.Result sim =
        podman.run(null, List.of(), "localhost/vnpu/node-agent:it", List.of("devices"), 180);
    assertThat(sim.exit()).as(sim.err()).isZero();
    assertThat(sim.out().lines().filter(l -> l.matches("^[0-7]\\s+[0-7]\\s.*910B3.*OK$")))
        .as(sim.out())
        .hasSize(8);
  }

  /**
   * The base trusts the certificate authorities this machine added ({@code
   * /usr/local/share/ca-certificates}, e.g. an egress proxy's), in the system store and the JDK's,
   * so apt-get and Maven inside the build reach what the host reaches.
   */
  private static void trustLikeThisMachine(Path base) throws Exception {
    Path local = Path.of("/usr/local/share/ca-certificates");
    if (!Files.isDirectory(local)) {
      return;
    }
    List<Path> cas;
    try (var files = Files.list(local)) {
      cas = files.filter(f -> f.toString().endsWith(".crt")).sorted().toList();
    }
    if (cas.isEmpty()) {
      return;
    }
    Path into = Files.createDirectories(base.resolve("usr/local/share/ca-certificates"));
    StringBuilder script =
        new StringBuilder("set -e; mount -t proc proc ")
            .append(base)
            .append("/proc; chroot ")
            .append(base)
            .append(" update-ca-certificates >/dev/null");
    for (Path ca : cas) {
      Files.copy(
          ca, into.resolve(ca.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      String alias = "local-" + ca.getFileName().toString().replace(".crt", "");
      script
          .append("; chroot ")
          .append(base)
          .append(" keytool -delete -noprompt -keystore")
          .append(" /etc/ssl/certs/java/cacerts -storepass changeit -alias ")
          .append(alias)
          .append(" >/dev/null 2>&1 || true; chroot ")
          .append(base)
          .append(" keytool -importcert -noprompt -keystore /etc/ssl/certs/java/cacerts")
          .append(" -storepass changeit -alias ")
          .append(alias)
          .append(" -file")
          .append(" /usr/local/share/ca-certificates/")
          .append(ca.getFileName());
    }
    Result r = run(List.of("unshare", "--mount", "--fork", "sh", "-c", script.toString()), 300);
    assertThat(r.exit()).as("trusting this machine's CAs in the base: %s", r.out()).isZero();
  }

  private static void skip(String why) {
    System.err.println("[vnpu] ImageBuildIT skipped: " + why);
    org.junit.jupiter.api.Assumptions.abort(why);
  }

  record Result(int exit, String out) {}

  private static Result run(List<String> cmd, long seconds) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    java.util.concurrent.CompletableFuture<String> out =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
              } catch (java.io.IOException e) {
                return "";
              }
            });
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return new Result(-1, "timed out after " + seconds + " s");
    }
    return new Result(p.exitValue(), out.join());
  }

  private static String last(String out) {
    List<String> lines = out.strip().lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
  }
}
