package io.vnpu.kube.dra.state;

import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraClaims.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.vnpu.kube.dra.cdi.AscendHostLayout;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.cdi.CdiSpecWriter;
import io.vnpu.kube.dra.cdi.DeviceNodeProbe;
import io.vnpu.kube.dra.checkpoint.Checkpoint;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.checkpoint.ClaimState;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.devices.NpuInventory;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Claim state without the API server and sockets: recovery, rollback, idempotency. */
class DeviceStateTest {
  static final String DRIVER = "npu.huawei.com";
  static final String POOL = "node-1";
  static final CdiKind KIND = CdiKind.of(DRIVER, "npu");
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T03:00:00Z"), ZoneOffset.UTC);

  @TempDir Path tmp;

  NpuInventory inventory = new NpuInventory();
  CdiSpecWriter cdi;
  CheckpointStore store;

  @BeforeEach
  void setUp() throws Exception {
    inventory.update(MutableDeviceManager.eight910b3());
    Path dev = Files.createDirectories(tmp.resolve("dev"));
    for (String n :
        List.of(
            "davinci0",
            "davinci1",
            "davinci2",
            "davinci3",
            "davinci_manager",
            "devmm_svm",
            "hisi_hdc")) {
      Files.writeString(dev.resolve(n), "");
    }
    cdi = new CdiSpecWriter(tmp.resolve("cdi"), KIND);
    store = new CheckpointStore(tmp.resolve("checkpoint.json"), CLOCK);
  }

  DeviceState open(String bootId) throws Exception {
    return DeviceState.builder()
        .store(store)
        .cdi(cdi)
        .specs(
            new ClaimSpecBuilder(
                KIND,
                new AscendHostLayout(new DeviceNodeProbe(tmp.resolve("dev")), tmp.resolve("host"))))
        .planner(new ClaimPlanner(DRIVER, POOL, KIND))
        .inventory(inventory)
        .poolName(POOL)
        .bootId(bootId)
        .lockTimeout(Duration.ofSeconds(5))
        .open();
  }

  static ResourceClaim claim(String name, String uid, String... devices) {
    return allocated(
        "demo",
        name,
        uid,
        java.util.Arrays.stream(devices).map(d -> result("npus", DRIVER, POOL, d)).toList());
  }

  @Test
  void twoDevicesOfOneRequestSeeEachOther() throws Exception {
    DeviceState s = open("b1");
    PrepareOutcome o = s.prepare(claim("c", "u1", "npu-1", "npu-3"));
    assertThat(o.error()).isEmpty();
    assertThat(o.devices())
        .extracting(PreparedDevice::deviceName)
        .containsExactly("npu-1", "npu-3");
    assertThat(cdi.read("u1").devices())
        .allSatisfy(
            d ->
                assertThat(d.containerEdits().env()).containsExactly("ASCEND_VISIBLE_DEVICES=1,3"));
  }

  @Test
  void cdiDeviceNamesSplitIntoDeviceAndShareIdIncludingSoftShareDevices() {
    String share = "7e6a1c2e-1b0f-4d55-9a35-0c2f1f6f7f10";
    assertThat(DeviceState.deviceAndShare("npu-3")).containsExactly("npu-3", null);
    assertThat(DeviceState.deviceAndShare("npu-3-" + share)).containsExactly("npu-3", share);
    assertThat(DeviceState.deviceAndShare("npu-3-soft")).containsExactly("npu-3-soft", null);
    assertThat(DeviceState.deviceAndShare("npu-3-soft-" + share))
        .containsExactly("npu-3-soft", share);
  }

  @Test
  void corruptCheckpointIsMovedAsideAndRebuiltFromTheCdiFiles() throws Exception {
    DeviceState s = open("b1");
    assertThat(s.prepare(claim("c", "u1", "npu-2")).error()).isEmpty();
    Files.writeString(store.file(), "{\"version\":\"v1\",\"checks"); // truncated by a crash

    DeviceState again = open("b1");
    assertThat(tmp.resolve("checkpoint.json.corrupt-20261201T030000Z")).exists();
    PreparedClaim rebuilt = again.snapshot().preparedClaims().get("u1");
    assertThat(rebuilt)
        .isEqualTo(
            new PreparedClaim(
                "u1",
                "",
                "",
                ClaimState.PrepareCompleted,
                List.of(
                    new PreparedDevice(
                        List.of(),
                        POOL,
                        "npu-2",
                        null,
                        2,
                        false,
                        List.of("npu.huawei.com/npu=u1-npu-2"))),
                true));
    // the repaired checkpoint is on disk and trusted by the next start
    assertThat(store.load("x").preparedClaims()).containsOnlyKeys("u1");

    // the next prepare recomputes from the claim (request names come back), same CDI ID
    PrepareOutcome o = again.prepare(claim("c", "u1", "npu-2"));
    assertThat(o.devices())
        .containsExactly(
            new PreparedDevice(
                List.of("npus"),
                POOL,
                "npu-2",
                null,
                2,
                false,
                List.of("npu.huawei.com/npu=u1-npu-2")));
    assertThat(again.snapshot().preparedClaims().get("u1").rebuilt()).isFalse();
    assertThat(again.unprepare(new ClaimRef("demo", "u1", "c"))).isEmpty();
    assertThat(cdi.exists("u1")).isFalse();
  }

  @Test
  void halfPreparedClaimIsRolledBackAtStart() throws Exception {
    PreparedClaim started =
        new PreparedClaim(
            "u9",
            "demo",
            "c",
            ClaimState.PrepareStarted,
            List.of(
                new PreparedDevice(
                    List.of("npus"),
                    POOL,
                    "npu-0",
                    null,
                    0,
                    false,
                    List.of("npu.huawei.com/npu=u9-npu-0"))),
            false);
    store.save(Checkpoint.empty("b1").with(started));
    Files.createDirectories(tmp.resolve("cdi"));
    Files.writeString(cdi.specPath("u9"), "{}"); // written just before the crash
    DeviceState s = open("b1");
    assertThat(s.snapshot().preparedClaims()).isEmpty();
    assertThat(cdi.exists("u9")).isFalse();
    assertThat(store.load("b1").preparedClaims()).isEmpty();
  }

  @Test
  void cdiSpecWithoutACheckpointEntryIsRemovedAtStart() throws Exception {
    DeviceState s = open("b1");
    assertThat(s.prepare(claim("c", "u1", "npu-1")).error()).isEmpty();
    Files.writeString(cdi.specPath("u-orphan"), "{}"); // a prepare crashed before recording
    open("b1");
    assertThat(cdi.claimUids()).containsExactly("u1");
  }

  @Test
  void failedPrepareLeavesNoEntryAndNoFile() throws Exception {
    DeviceState s = open("b1");
    // npu-5 is offered, but its device node does not exist in this host's /dev
    PrepareOutcome o = s.prepare(claim("c", "u5", "npu-5"));
    assertThat(o.error())
        .isEqualTo(tmp.resolve("dev/davinci5") + ": device node does not exist on this host");
    assertThat(s.snapshot().preparedClaims()).isEmpty();
    assertThat(cdi.exists("u5")).isFalse();
    // a device not offered at all
    assertThat(s.prepare(claim("c", "u6", "npu-12")).error())
        .isEqualTo(
            "ResourceClaim demo/c: status.allocation.devices.results[0].device = npu-12: not a device"
                + " this node offers in pool node-1 (offered: npu-0, npu-1, npu-2, npu-3, npu-4, npu-5,"
                + " npu-6, npu-7)");
  }

  ResourceClaim withConfig(
      String uid, String source, List<String> requests, java.util.Map<String, Object> parameters) {
    return withConfig("npu-0", uid, source, requests, parameters);
  }

  ResourceClaim withConfig(
      String device,
      String uid,
      String source,
      List<String> requests,
      java.util.Map<String, Object> parameters) {
    return new ResourceClaimBuilder(claim("c", uid, device))
        .editStatus()
        .editAllocation()
        .editDevices()
        .addNewConfig()
        .withSource(source)
        .withRequests(requests)
        .withNewOpaque()
        .withDriver(DRIVER)
        .withParameters(parameters)
        .endOpaque()
        .endConfig()
        .endDevices()
        .endAllocation()
        .endStatus()
        .build();
  }

  static java.util.Map<String, Object> npuConfig(Object... kv) {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("apiVersion", "npu.vnpu.io/v1alpha1");
    m.put("kind", "NpuConfig");
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void opaqueConfigIsDecodedStrictlyNamingClaimFieldAndValue() throws Exception {
    DeviceState s = open("b1");
    String at = "ResourceClaim demo/c: status.allocation.devices.config[0].opaque.parameters";
    assertThat(s.prepare(withConfig("u7", "FromClaim", List.of(), npuConfig("mode", "x"))).error())
        .isEqualTo(
            at
                + ".mode = \"x\": unknown field (known: apiVersion, kind,"
                + " sharing, computeWeight, computeCap, priority, memoryOnly, policy)");
    assertThat(
            s.prepare(
                    withConfig(
                        "u7",
                        "FromClaim",
                        List.of(),
                        java.util.Map.of(
                            "apiVersion", "resource.nvidia.com/v1beta1", "kind", "GpuConfig")))
                .error())
        .isEqualTo(
            at + ".apiVersion = resource.nvidia.com/v1beta1: expected" + " npu.vnpu.io/v1alpha1");
    assertThat(
            s.prepare(
                    withConfig(
                        "u7",
                        "FromClaim",
                        List.of(),
                        java.util.Map.of("apiVersion", "npu.vnpu.io/v1alpha1")))
                .error())
        .isEqualTo(at + ".kind: missing (expected NpuConfig)");
    assertThat(
            s.prepare(withConfig("u7", "FromClass", List.of(), npuConfig("computeWeight", 0)))
                .error())
        .isEqualTo(at + ".computeWeight = 0: not an integer in 1..10000");
    assertThat(
            s.prepare(withConfig("u7", "FromClaim", List.of(), npuConfig("computeCap", "50")))
                .error())
        .isEqualTo(at + ".computeCap = \"50\": not an integer in 0..100");
    assertThat(
            s.prepare(withConfig("u7", "FromClaim", List.of(), npuConfig("sharing", "Soft")))
                .error())
        .isEqualTo(at + ".sharing = Soft: expected soft, hard or whole");
    assertThat(
            s.prepare(withConfig("u7", "FromClaim", List.of(), npuConfig("priority", "urgent")))
                .error())
        .isEqualTo(at + ".priority = urgent: expected high or normal");
    assertThat(
            s.prepare(
                    withConfig(
                        "u7",
                        "FromClaim",
                        List.of(),
                        npuConfig("memoryOnly", true, "computeWeight", 5)))
                .error())
        .isEqualTo(
            at
                + ".memoryOnly = true: computeWeight and computeCap cannot be set with it"
                + " (memory-only shares are not compute-limited)");
    assertThat(s.snapshot().preparedClaims()).isEmpty();
    assertThat(cdi.exists("u7")).isFalse();
  }

  @Test
  void aSharingThatDoesNotMatchTheDeviceFailsTheClaimAndOneThatDoesIsAccepted() throws Exception {
    DeviceState s = open("b1");
    assertThat(
            s.prepare(withConfig("u9", "FromClaim", List.of("npus"), npuConfig("sharing", "soft")))
                .error())
        .isEqualTo(
            "ResourceClaim demo/c:"
                + " status.allocation.devices.results[0]: NpuConfig sharing = soft: the device is"
                + " allocated whole (no shareID), which is sharing whole");
    // a config for another request does not apply; a matching one for this request does
    assertThat(
            s.prepare(withConfig("u9", "FromClaim", List.of("other"), npuConfig("sharing", "soft")))
                .error())
        .isEmpty();
    assertThat(
            s.prepare(
                    withConfig(
                        "npu-2",
                        "u10",
                        "FromClaim",
                        List.of("npus"),
                        npuConfig("sharing", "whole")))
                .error())
        .isEmpty();
    // configurations of other drivers are theirs
    ResourceClaim other =
        new ResourceClaimBuilder(claim("c", "u11", "npu-1"))
            .editStatus()
            .editAllocation()
            .editDevices()
            .addNewConfig()
            .withSource("FromClaim")
            .withNewOpaque()
            .withDriver("gpu.nvidia.com")
            .withParameters(java.util.Map.of("x", 1))
            .endOpaque()
            .endConfig()
            .endDevices()
            .endAllocation()
            .endStatus()
            .build();
    assertThat(s.prepare(other).error()).isEmpty();
  }

  @Test
  void softOnlySettingsOnAWholeDeviceFailTheClaimAndLeaveNothingBehind() throws Exception {
    DeviceState s = open("b1");
    String at = "ResourceClaim demo/c: status.allocation.devices.results[0]: NpuConfig ";
    assertThat(
            s.prepare(
                    withConfig(
                        "npu-2",
                        "u12",
                        "FromClaim",
                        List.of("npus"),
                        npuConfig("sharing", "whole", "priority", "high")))
                .error())
        .isEqualTo(
            at
                + "priority = high: applies to soft shares only, and the device is prepared whole"
                + " (npu-2)");
    assertThat(
            s.prepare(
                    withConfig(
                        "npu-2", "u12", "FromClass", List.of(), npuConfig("computeWeight", 50)))
                .error())
        .isEqualTo(
            at
                + "computeWeight = 50: applies to soft shares only, and the device is prepared whole"
                + " (npu-2)");
    assertThat(
            s.prepare(
                    withConfig("npu-2", "u12", "FromClaim", List.of(), npuConfig("computeCap", 0)))
                .error())
        .isEqualTo(
            at
                + "computeCap = 0: applies to soft shares only, and the device is prepared whole"
                + " (npu-2)");
    assertThat(s.snapshot().preparedClaims()).isEmpty();
    assertThat(cdi.exists("u12")).isFalse();
  }

  @Test
  void subRequestSuffixIsRemovedOtherDriversSkippedAndAnotherNodesPoolFailsTheClaim()
      throws Exception {
    ResourceClaim c =
        allocated(
            "demo",
            "c",
            "u8",
            List.of(
                result("main/fast", DRIVER, POOL, "npu-0"),
                result("main/fast", "gpu.example.com", "node-2", "gpu-0")));
    DeviceState s = open("b1");
    PrepareOutcome o = s.prepare(c);
    assertThat(o.devices())
        .containsExactly(
            new PreparedDevice(
                List.of("main"),
                POOL,
                "npu-0",
                null,
                0,
                false,
                List.of("npu.huawei.com/npu=u8-npu-0")));

    // a pool of this driver is one node's: another node's pool is never prepared as nothing
    PrepareOutcome other =
        s.prepare(
            allocated(
                "demo",
                "d",
                "u9",
                List.of(
                    result("main", DRIVER, POOL, "npu-1"),
                    result("main", DRIVER, "node-2", "npu-0"))));
    assertThat(other.error())
        .isEqualTo(
            "ResourceClaim demo/d: status.allocation.devices"
                + ".results[1].pool = node-2: a pool of driver npu.huawei.com on another node; this"
                + " node's pool is node-1");
    assertThat(s.snapshot().preparedClaims()).containsOnlyKeys("u8");
    assertThat(cdi.exists("u9")).isFalse();
  }

  /**
   * A store whose first prepare's write (the second write: the first is open's) holds on until
   * {@code claims} commits wait for the disk, then writes, or fails with "No space left on device"
   * when {@code fail}. The others can only get there if each prepare released the state's lock
   * before its fsync.
   */
  java.util.concurrent.atomic.AtomicInteger holdFirstPrepareWrite(int claims, boolean fail) {
    java.util.concurrent.atomic.AtomicInteger writes =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicReference<CheckpointStore> self =
        new java.util.concurrent.atomic.AtomicReference<>();
    store =
        io.vnpu.kube.dra.checkpoint.CheckpointStores.withWrite(
            tmp.resolve("checkpoint.json"),
            CLOCK,
            (f, content) -> {
              if (writes.incrementAndGet() == 2) {
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (io.vnpu.kube.dra.checkpoint.CheckpointStores.pending(self.get()) < claims
                    && System.nanoTime() < deadline) {
                  try {
                    Thread.sleep(1);
                  } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                  }
                }
                if (fail) {
                  throw new java.io.IOException("No space left on device");
                }
              }
              io.vnpu.kube.dra.checkpoint.CheckpointStores.writeDurably(f, content);
            });
    self.set(store);
    return writes;
  }

  /** Prepares claim {@code c<i>} (uid {@code u<i>}) on {@code npu-<i>} for each i, all at once. */
  static List<java.util.concurrent.Future<PrepareOutcome>> prepareAtOnce(DeviceState s, int n) {
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(n);
    try {
      List<java.util.concurrent.Future<PrepareOutcome>> out = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        ResourceClaim c = claim("c" + i, "u" + i, "npu-" + i);
        out.add(pool.submit(() -> s.prepare(c)));
      }
      return out;
    } finally {
      pool.shutdown();
    }
  }

  // issue 29: one fsync for the claims prepared at the same time (group commit)
  @Test
  void claimsPreparedAtOnceShareOneCheckpointWrite() throws Exception {
    var writes = holdFirstPrepareWrite(4, false);
    DeviceState s = open("b1");
    for (var f : prepareAtOnce(s, 4)) {
      assertThat(f.get(60, java.util.concurrent.TimeUnit.SECONDS).error()).isEmpty();
    }
    // open's, the first prepare's, then one for the three that waited behind it
    assertThat(writes.get()).isEqualTo(3);
    assertThat(store.load("b1").preparedClaims())
        .containsOnlyKeys("u0", "u1", "u2", "u3")
        .allSatisfy((uid, c) -> assertThat(c.state()).isEqualTo(ClaimState.PrepareCompleted));
    assertThat(cdi.claimUids()).containsExactlyInAnyOrder("u0", "u1", "u2", "u3");
  }

  // a failed write fails every claim whose checkpoint held it (the later ones were computed from
  // the first): each gets the error, releases its CDI spec, and the state is the file's again
  @Test
  void aFailedGroupWriteFailsEveryClaimItHeldAndLeavesNothing() throws Exception {
    holdFirstPrepareWrite(4, true);
    DeviceState s = open("b1");
    for (var f : prepareAtOnce(s, 4)) {
      assertThat(f)
          .failsWithin(java.time.Duration.ofSeconds(60))
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withCauseInstanceOf(StateUnavailableException.class)
          .withMessageContaining("No space left on device");
    }
    assertThat(cdi.claimUids()).isEmpty();
    assertThat(store.load("b1").preparedClaims()).isEmpty();
    assertThat(s.snapshot().preparedClaims()).isEmpty();
    // the kubelet retries: written now
    assertThat(s.prepare(claim("c2", "u2", "npu-2")).error()).isEmpty();
    assertThat(store.load("b1").preparedClaims()).containsOnlyKeys("u2");
    assertThat(s.snapshot().preparedClaims()).containsOnlyKeys("u2");
  }
}
