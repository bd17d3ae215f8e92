package io.vnpu.kube.dra.state;

import static io.vnpu.kube.testing.DraClaims.allocated;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vnpu.kube.dra.cdi.AscendHostLayout;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.cdi.CdiSpecWriter;
import io.vnpu.kube.dra.cdi.DeviceNodeProbe;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.checkpoint.CheckpointStores;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.devices.NpuInventory;
import io.vnpu.kube.dra.modes.ChipModes;
import io.vnpu.kube.dra.modes.SoftCapacityNames;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.kube.softslice.SoftSliceLayout;
import io.vnpu.kube.softslice.SoftSlices;
import io.vnpu.kube.testing.MutableDeviceManager;
import io.vnpu.quota.region.QuotaRegions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 29: a soft share's prepare writes the checkpoint once, after its quota region and registry
 * entry exist. A plugin killed (SIGKILL, another JVM) in that window leaves a region, a registry
 * entry and a CDI spec that no checkpoint entry records; they are found by the claim's UID:
 * start-up removes them, and without a restart (the other pod of a rolling update) the kubelet's
 * retry replaces them (one registry entry, never two) and an unprepare removes them.
 */
class SoftPrepareKillTest {
  static final String DRIVER = "npu.huawei.com";
  static final String POOL = "node-1";
  static final CdiKind KIND = CdiKind.of(DRIVER, "npu");
  static final String KILL_ME = "checkpoint write reached: kill me";

  @TempDir Path tmp;

  final List<SoftSlices> opened = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (SoftSlices s : opened) s.close();
  }

  /** The plugin's state on {@code root}, as one instance opens it. */
  static DeviceState open(Path root, CheckpointStore store, SoftSlices regions) throws Exception {
    NpuInventory inventory = new NpuInventory();
    inventory.update(MutableDeviceManager.eight910b3());
    Path dev = Files.createDirectories(root.resolve("dev"));
    for (String n : List.of("davinci0", "davinci_manager", "devmm_svm", "hisi_hdc")) {
      if (!Files.exists(dev.resolve(n))) Files.writeString(dev.resolve(n), "");
    }
    return DeviceState.builder()
        .store(store)
        .cdi(new CdiSpecWriter(root.resolve("cdi"), KIND))
        .specs(
            new ClaimSpecBuilder(
                KIND,
                new AscendHostLayout(new DeviceNodeProbe(dev), root.resolve("host")),
                layout(root)))
        .planner(
            new ClaimPlanner(
                DRIVER,
                POOL,
                KIND,
                new ChipModes(HardVnpuChips.OFF, true, SoftCapacityNames.HAMI),
                layout(root)))
        .inventory(inventory)
        .poolName(POOL)
        .bootId("b1")
        .lockTimeout(Duration.ofSeconds(30))
        .vnpus(
            new io.vnpu.kube.dra.vnpu.VnpuDriver() {
              @Override
              public io.vnpu.api.model.Vnpu create(int logicId, String template) {
                throw new AssertionError("no vNPU on a soft chip");
              }

              @Override
              public void destroy(int logicId, int vnpuId) {
                throw new AssertionError("no vNPU on a soft chip");
              }

              @Override
              public List<io.vnpu.api.model.Vnpu> list(int logicId) {
                return List.of();
              }
            })
        .softRegions(regions)
        .open();
  }

  static SoftSliceLayout layout(Path root) {
    return SoftSliceLayout.vnpu(root.resolve("data"), LimiterFiles.hami(root.resolve("limiter")));
  }

  static SoftSlices regions(Path root) {
    return new SoftSlices(layout(root), QuotaRegionFactory.writing(new QuotaRegions()), () -> {});
  }

  static Path checkpointFile(Path root) throws Exception {
    return Files.createDirectories(root.resolve("state")).resolve(CheckpointStore.FILE_NAME);
  }

  static ResourceClaim softClaim(String name, String uid) {
    return allocated(
        "demo",
        name,
        uid,
        List.of(
            new DeviceRequestAllocationResultBuilder()
                .withRequest("npu")
                .withDriver(DRIVER)
                .withPool(POOL)
                .withDevice("npu-0")
                .withShareID("s-" + uid)
                .withConsumedCapacity(
                    Map.of("memory", new Quantity("4Gi"), "cores", new Quantity("25")))
                .build()));
  }

  /**
   * The plugin that gets killed: opens the state on {@code args[0]}, prepares the soft claim {@code
   * args[1]}, and at its checkpoint write says so on stdout and waits to be killed.
   */
  public static final class Victim {
    public static void main(String[] args) throws Exception {
      Path root = Path.of(args[0]);
      int[] writes = {0};
      CheckpointStore store =
          CheckpointStores.withWrite(
              checkpointFile(root),
              Clock.systemUTC(),
              (f, content) -> {
                if (++writes[0] > 1) { // the first is open's
                  System.out.println(KILL_ME);
                  System.out.flush();
                  try {
                    Thread.sleep(Long.MAX_VALUE);
                  } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                  }
                }
                CheckpointStores.writeDurably(f, content);
              });
      DeviceState state = open(root, store, regions(root));
      state.prepare(softClaim("c-" + args[1], args[1]));
      System.out.println("prepared without being killed");
      System.exit(3);
    }
  }

  /** Runs {@link Victim} for {@code uid} and SIGKILLs it at its checkpoint write. */
  void killAtTheCheckpointWrite(String uid) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                java.toString(),
                "-Dorg.slf4j.simpleLogger.logFile=System.err",
                "-cp",
                System.getProperty("java.class.path"),
                Victim.class.getName(),
                tmp.toString(),
                uid)
            .redirectErrorStream(true)
            .start();
    List<String> out = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        out.add(line);
        if (line.equals(KILL_ME)) {
          p.destroyForcibly(); // SIGKILL: no finally, no shutdown hook
          break;
        }
      }
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("killed; output %s", out).isTrue();
    } finally {
      p.destroyForcibly();
    }
    assertThat(out).as("the victim's output").contains(KILL_ME);
    assertThat(p.exitValue()).isEqualTo(137);
  }

  /** Region directories, registry entries, CDI specs and entries in the checkpoint file. */
  List<String> nodeState() throws Exception {
    List<String> out = new ArrayList<>();
    SoftSliceLayout soft = layout(tmp);
    for (Path dir : List.of(soft.regionRoot(), soft.registryHostDir())) {
      if (!Files.isDirectory(dir)) continue;
      try (Stream<Path> s = Files.list(dir)) {
        for (Path p : s.sorted().toList()) {
          String n = dir.getFileName() + "/" + p.getFileName();
          if (p.getFileName().toString().equals(io.vnpu.kube.softslice.ChargeRecords.DIR)) {
            // the agent's charge records: each one left is a slice's leftover, the directory is not
            try (Stream<Path> records = Files.list(p)) {
              records.sorted().forEach(r -> out.add(n + "/" + r.getFileName()));
            }
            continue;
          }
          if (!n.endsWith(".reg")) {
            out.add(n);
            continue;
          }
          try (var r = new io.vnpu.quota.registry.ComputeRegistries().open(p)) {
            for (long k : r.keys())
              out.add(n.substring(0, n.length() - 4) + ":" + Long.toHexString(k));
          }
        }
      }
    }
    if (Files.isDirectory(tmp.resolve("cdi"))) {
      new CdiSpecWriter(tmp.resolve("cdi"), KIND).claimUids().forEach(u -> out.add("cdi/" + u));
    }
    new CheckpointStore(checkpointFile(tmp), Clock.systemUTC())
        .load("b1")
        .preparedClaims()
        .keySet()
        .forEach(u -> out.add("checkpoint/" + u));
    return out;
  }

  /**
   * What the window leaves of claim {@code uid}: region, one registry entry, CDI spec, no entry.
   */
  void assertLeftUnrecorded(String uid, List<String> state) {
    assertThat(state).contains("regions/" + uid + "_npu", "cdi/" + uid);
    assertThat(state).filteredOn(n -> n.startsWith("compute/npu0:")).hasSize(1);
    assertThat(state).doesNotContain("checkpoint/" + uid);
  }

  SoftSlices regionsHere() {
    SoftSlices s = regions(tmp);
    opened.add(s);
    return s;
  }

  // the structural figure of DraPrepareBenchmark's soft row: checkpoint writes per call
  @Test
  void aSoftSharePrepareAndItsUnprepareWriteTheCheckpointOnceEach() throws Exception {
    java.util.concurrent.atomic.AtomicInteger writes =
        new java.util.concurrent.atomic.AtomicInteger();
    DeviceState s =
        open(
            tmp,
            CheckpointStores.withWrite(
                checkpointFile(tmp),
                Clock.systemUTC(),
                (f, content) -> {
                  writes.incrementAndGet();
                  CheckpointStores.writeDurably(f, content);
                }),
            regionsHere());
    writes.set(0);
    assertThat(s.prepare(softClaim("c-ua", "ua")).error()).isEmpty();
    assertThat(writes.get()).as("writes of the prepare").isEqualTo(1);
    assertThat(nodeState()).contains("regions/ua_npu", "cdi/ua", "checkpoint/ua");
    assertThat(s.prepare(softClaim("c-ua", "ua")).error()).isEmpty();
    assertThat(writes.get()).as("a repeated prepare writes nothing").isEqualTo(1);
    assertThat(s.unprepare(new ClaimRef("demo", "ua", "c-ua"))).isEmpty();
    assertThat(writes.get()).as("writes of the unprepare").isEqualTo(2);
    assertThat(nodeState()).isEmpty();
  }

  @Test
  void killedAtTheCheckpointWriteTheRestartRemovesWhatThePrepareMadeAndTheRetryRegistersOnce()
      throws Exception {
    killAtTheCheckpointWrite("ua");
    assertLeftUnrecorded("ua", nodeState());

    DeviceState restarted =
        open(tmp, new CheckpointStore(checkpointFile(tmp), Clock.systemUTC()), regionsHere());
    assertThat(nodeState()).isEmpty();
    assertThat(restarted.prepare(softClaim("c-ua", "ua")).error()).isEmpty();
    assertThat(nodeState())
        .contains("regions/ua_npu", "cdi/ua", "checkpoint/ua")
        .filteredOn(n -> n.startsWith("compute/npu0:"))
        .hasSize(1);
    assertThat(restarted.unprepare(new ClaimRef("demo", "ua", "c-ua"))).isEmpty();
    assertThat(nodeState()).isEmpty();
  }

  @Test
  void withoutARestartTheRetryReplacesTheLeftoversAndAnUnprepareRemovesThem() throws Exception {
    // the other pod of a rolling update, running all along
    DeviceState other =
        open(tmp, new CheckpointStore(checkpointFile(tmp), Clock.systemUTC()), regionsHere());
    killAtTheCheckpointWrite("ua");
    assertLeftUnrecorded("ua", nodeState());
    List<String> keyOfUa = registryEntries();
    killAtTheCheckpointWrite("ub");
    List<String> keyOfUb = registryEntries();
    keyOfUb.removeAll(keyOfUa);
    assertThat(keyOfUb).hasSize(1);

    // the kubelet retries ua on the other pod: its leftovers replaced, one registry entry for it
    assertThat(other.prepare(softClaim("c-ua", "ua")).error()).isEmpty();
    assertThat(nodeState()).contains("regions/ua_npu", "cdi/ua", "checkpoint/ua");
    assertThat(registryEntries())
        .hasSize(2)
        .containsAll(keyOfUb)
        .doesNotContainAnyElementsOf(keyOfUa);
    // ub's pod is deleted instead: its unprepare finds no entry and removes what the kill left
    assertThat(other.unprepare(new ClaimRef("demo", "ub", "c-ub"))).isEmpty();
    assertThat(nodeState())
        .doesNotContain("regions/ub_npu", "cdi/ub")
        .doesNotContainAnyElementsOf(keyOfUb)
        .contains("regions/ua_npu", "cdi/ua", "checkpoint/ua");
    assertThat(registryEntries()).hasSize(1);
    assertThat(other.unprepare(new ClaimRef("demo", "ua", "c-ua"))).isEmpty();
    assertThat(nodeState()).isEmpty();
  }

  List<String> registryEntries() throws Exception {
    return new ArrayList<>(
        nodeState().stream().filter(n -> n.startsWith("compute/npu0:")).toList());
  }
}
