package io.vnpu.kube.mindcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.sim.BundledSimulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A simulated Ascend host for MindCluster tests: the bundled {@code libdcmi.so} with a profile and
 * a private state root, opened through the real JNA binding, and {@code vnpu-sim-ctl} to inject
 * faults and create static vNPUs from another process (as an operator's {@code npu-smi} would).
 */
final class SimHost implements AutoCloseable {
  final String profile;
  final Path root;
  final DcmiDeviceManager deviceManager;
  private final BundledSimulator sim;

  SimHost(String profile, Path root) {
    String dir = System.getProperty("vnpu.native.dir");
    assertThat(dir).as("system property vnpu.native.dir").isNotNull();
    this.profile = profile;
    this.root = root;
    this.sim = new BundledSimulator(Path.of(dir));
    sim.configure(profile, root);
    Path lib =
        sim.library().orElseThrow(() -> new AssertionError("libdcmi.so not built in " + dir));
    this.deviceManager = DcmiDeviceManager.open(new DcmiLibrarySource(lib, "test", List.of(lib)));
  }

  /** Runs vnpu-sim-ctl against this host; returns its stdout, fails on exit != 0. */
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
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    deviceManager.close();
  }
}
