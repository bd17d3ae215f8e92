package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.dcmi.sim.BundledSimulator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A simulated host for tests: profile + private state root, the library, and vnpu-sim-ctl. */
final class SimNode {
  final Path nativeDir;
  final String profile;
  final Path root;
  final BundledSimulator sim;

  SimNode(String profile, Path root) {
    String dir = System.getProperty("vnpu.native.dir");
    assertThat(dir).as("system property vnpu.native.dir").isNotNull();
    this.nativeDir = Path.of(dir);
    this.profile = profile;
    this.root = root;
    this.sim = new BundledSimulator(nativeDir);
    sim.configure(profile, root);
  }

  DcmiLibrarySource library() {
    Path lib = sim.library().orElseThrow();
    return new DcmiLibrarySource(lib, "test", List.of(lib));
  }

  DcmiDeviceManager open() {
    return DcmiDeviceManager.open(library());
  }

  /** Runs vnpu-sim-ctl in its own process against this host; returns stdout, fails on exit != 0. */
  String ctl(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(sim.ctl().toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put(BundledSimulator.PROFILE_ENV, profile);
    pb.environment().put(BundledSimulator.ROOT_ENV, root.toString());
    try {
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("vnpu-sim-ctl finished").isTrue();
      assertThat(p.exitValue()).as("vnpu-sim-ctl %s: %s", cmd, out).isZero();
      return out;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
