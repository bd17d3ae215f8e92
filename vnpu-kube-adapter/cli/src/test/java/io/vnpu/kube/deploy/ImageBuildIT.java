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
 * {@code localhost/vnpu-base} and passed as all three base images ({@code NATIVE_BASE},
 * {@code MAVEN_BASE}, {@code RUNTIME_BASE}); {@code podman build} (chroot isolation, the host's
 * network for apt and Maven Central). In the built image: {@code vnpu --version} prints this build's
 * version, the limiter is an ELF shared object where the agent installs it from, and
 * {@code vnpu devices --simulate} lists the simulated node's eight NPUs. Without the property, or
 * where podman, debootstrap or the network are missing, one line in the log says why not.
 */
class ImageBuildIT {
  @TempDir
  Path tmp;

  @Test
  void theDockerfileBuildsAnImageThatRunsTheAgentTheLimiterAndTheSimulator() throws Exception {
    if (!Boolean.getBoolean("vnpu.it.image")) {
      skip("opt-in (minutes, downloads a Debian root and the Maven dependencies):"
          + " mvn verify -Dvnpu.it.image=true");
    }
    Podman.assumeAvailable("ImageBuildIT");
    if (!Files.isExecutable(Path.of("/usr/sbin/debootstrap"))) {
      skip("debootstrap is not installed (apt-get install debootstrap): no base image can be made"
          + " without a registry");
    }
    Path root = DeployManifestsTest.deployDir().getParent();
    Path base = tmp.resolve("base");
    Result boot = run(List.of("/usr/sbin/debootstrap", "--variant=minbase",
        "--include=ca-certificates,gcc,make,libc6-dev,maven,openjdk-17-jdk-headless", "bookworm",
        base.toString(), "http://deb.debian.org/debian"), 1200);
    if (boot.exit() != 0) {
      skip("debootstrap of Debian 12 failed (exit " + boot.exit() + "; no network to"
          + " deb.debian.org?): " + last(boot.out()));
    }
    Podman podman = new Podman(tmp.resolve("podman"));
    podman.importImage(base, "localhost/vnpu-base:latest");
    List<String> build = new ArrayList<>(List.of("build", "--isolation", "chroot", "--network", "host", "--build-arg",
        "NATIVE_BASE=localhost/vnpu-base:latest", "--build-arg",
        "MAVEN_BASE=localhost/vnpu-base:latest", "--build-arg",
        "RUNTIME_BASE=localhost/vnpu-base:latest", "-f", "deploy/image/Dockerfile", "-t",
        "localhost/vnpu/node-agent:it", root.toString()));
    Podman.Result built = podman.podman(build, 2400);
    assertThat(built.exit()).as("podman build: %s", last(built.out() + built.err())).isZero();

    String version = System.getProperty("vnpu.project.version", "0.1.0-SNAPSHOT");
    Podman.Result v = podman.run(null, List.of(), "localhost/vnpu/node-agent:it",
        List.of("--version"), 120);
    assertThat(v.exit()).as(v.err()).isZero();
    assertThat(v.out()).contains(version);
    Podman.Result lim = podman.run(null, List.of("--entrypoint", "sh"),
        "localhost/vnpu/node-agent:it", List.of("-c",
            "head -c 4 /usr/local/hami-vnpu-core-assets/libvnpu.so | od -An -c"), 60);
    assertThat(lim.exit()).as(lim.err()).isZero();
    assertThat(lim.out().replace(" ", "")).contains("177ELF");
    Podman.Result sim = podman.run(null, List.of(), "localhost/vnpu/node-agent:it",
        List.of("devices", "--simulate"), 180);
    assertThat(sim.exit()).as(sim.err()).isZero();
    assertThat(sim.out().lines().filter(l -> l.contains("910B3"))).hasSize(8);
  }

  private static void skip(String why) {
    System.err.println("[vnpu] ImageBuildIT skipped: " + why);
    org.junit.jupiter.api.Assumptions.abort(why);
  }

  record Result(int exit, String out) {}

  private static Result run(List<String> cmd, long seconds) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    java.util.concurrent.CompletableFuture<String> out = java.util.concurrent.CompletableFuture
        .supplyAsync(() -> {
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
