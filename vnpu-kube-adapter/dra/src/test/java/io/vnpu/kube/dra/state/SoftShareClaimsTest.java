package io.vnpu.kube.dra.state;

import static io.vnpu.kube.testing.DraClaims.allocated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.vnpu.kube.dra.cdi.AscendHostLayout;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.cdi.CdiSpecWriter;
import io.vnpu.kube.dra.cdi.DeviceNodeProbe;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile or inconsistent allocations of soft-shared chips (a scheduler bug, a race, a forged
 * status): each fails its claim naming the claim, field and value, and leaves nothing on the node
 * (no region directory, no compute-registry entry, no CDI spec, no checkpoint entry). Real regions
 * and registries ({@link SoftSlices}) on eight simulated 910B3 chips (64 GiB).
 */
class SoftShareClaimsTest {
  static final String DRIVER = "npu.huawei.com";
  static final String POOL = "node-1";
  static final CdiKind KIND = CdiKind.of(DRIVER, "npu");
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T03:00:00Z"), ZoneOffset.UTC);

  @TempDir Path tmp;

  final NpuInventory inventory = new NpuInventory();
  CdiSpecWriter cdi;
  CheckpointStore store;
  SoftSliceLayout soft;
  SoftSlices regions;
  DeviceState state;
  volatile boolean breakCheckpointDir;

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
    store =
        new CheckpointStore(
            Files.createDirectories(tmp.resolve("state")).resolve("checkpoint.json"), CLOCK);
    // the gate runs between the PrepareStarted and PrepareCompleted writes of a soft share
    soft = SoftSliceLayout.vnpu(tmp.resolve("data"), LimiterFiles.hami(tmp.resolve("limiter")));
    regions =
        new SoftSlices(
            soft,
            QuotaRegionFactory.writing(new QuotaRegions()),
            () -> {
              if (breakCheckpointDir) {
                try {
                  Files.move(tmp.resolve("state"), tmp.resolve("state-away"));
                  Files.writeString(tmp.resolve("state"), "not a directory");
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              }
            });
    ChipModes modes = new ChipModes(HardVnpuChips.OFF, true, SoftCapacityNames.HAMI);
    state =
        DeviceState.builder()
            .store(store)
            .cdi(cdi)
            .specs(
                new ClaimSpecBuilder(
                    KIND,
                    new AscendHostLayout(new DeviceNodeProbe(dev), tmp.resolve("host")),
                    soft))
            .planner(new ClaimPlanner(DRIVER, POOL, KIND, modes, soft))
            .inventory(inventory)
            .poolName(POOL)
            .bootId("b1")
            .lockTimeout(Duration.ofSeconds(5))
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

  @AfterEach
  void tearDown() throws Exception {
    regions.close();
  }

  static DeviceRequestAllocationResult share(
      String request, String device, String shareId, Map<String, String> consumed) {
    Map<String, Quantity> q = new LinkedHashMap<>();
    consumed.forEach((k, v) -> q.put(k, new Quantity(v)));
    return new DeviceRequestAllocationResultBuilder()
        .withRequest(request)
        .withDriver(DRIVER)
        .withPool(POOL)
        .withDevice(device)
        .withShareID(shareId)
        .withConsumedCapacity(q)
        .build();
  }

  static DeviceRequestAllocationResult soft(
      String device, String shareId, String mem, String cores) {
    return share("npu", device, shareId, Map.of("memory", mem, "cores", cores));
  }

  static ResourceClaim claim(String name, String uid, DeviceRequestAllocationResult... results) {
    return allocated("demo", name, uid, List.of(results));
  }

  static ResourceClaim whole(String name, String uid, DeviceRequestAllocationResult r) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("apiVersion", "npu.vnpu.io/v1alpha1");
    p.put("kind", "NpuConfig");
    p.put("sharing", "whole");
    return new ResourceClaimBuilder(claim(name, uid, r))
        .editStatus()
        .editAllocation()
        .editDevices()
        .addNewConfig()
        .withSource("FromClaim")
        .withNewOpaque()
        .withDriver(DRIVER)
        .withParameters(p)
        .endOpaque()
        .endConfig()
        .endDevices()
        .endAllocation()
        .endStatus()
        .build();
  }

  /** Region directories, registry entries, CDI specs and checkpoint entries. */
  List<String> nodeState() throws Exception {
    List<String> out = new ArrayList<>();
    for (Path dir : List.of(soft.regionRoot(), soft.registryHostDir())) {
      if (Files.isDirectory(dir)) {
        try (Stream<Path> s = Files.list(dir)) {
          for (Path p : s.toList()) {
            String n = dir.getFileName() + "/" + p.getFileName();
            if (p.getFileName().toString().equals(io.vnpu.kube.softslice.ChargeRecords.DIR)) {
              // the agent's charge records: each one left is a slice's leftover, the directory is
              // not
              try (Stream<Path> records = Files.list(p)) {
                records.sorted().forEach(r -> out.add(n + "/" + r.getFileName()));
              }
              continue;
            }
            if (!n.endsWith(".reg")) {
              out.add(n);
              continue;
            }
            // a registry: its entries (the limiter's view), "compute/npu0:<key>"
            try (var r = new io.vnpu.quota.registry.ComputeRegistries().open(p)) {
              for (long k : r.keys())
                out.add(n.substring(0, n.length() - 4) + ":" + Long.toHexString(k));
            }
          }
        }
      }
    }
    cdi.claimUids().forEach(u -> out.add("cdi/" + u));
    state.snapshot().preparedClaims().keySet().forEach(u -> out.add("checkpoint/" + u));
    return out;
  }

  static final String AT = "ResourceClaim demo/bad: status.allocation.devices.results[0]";

  @Test
  void consumedAmountsOffThePublishedRangeOrStepFailTheClaimNamingFieldAndValue() throws Exception {
    Map<DeviceRequestAllocationResult, String> bad = new LinkedHashMap<>();
    bad.put(
        soft("npu-0", "s1", "1572864", "25"),
        AT + ".consumedCapacity.memory = 1572864:" + " not a multiple of 1Mi (1572864 bytes)");
    bad.put(soft("npu-0", "s1", "4Gi", "0"), AT + ".consumedCapacity.cores = 0: outside 1..100");
    bad.put(
        soft("npu-0", "s1", "4Gi", "101"),
        AT + ".consumedCapacity.cores = 101: outside" + " 1..100");
    bad.put(
        soft("npu-0", "s1", "65Gi", "25"),
        AT + ".consumedCapacity.memory = 65Gi: outside" + " 1.." + (64L << 30));
    bad.put(
        soft("npu-0", "s1", "-1Gi", "25"),
        AT + ".consumedCapacity.memory = -1Gi: outside" + " 1.." + (64L << 30));
    bad.put(
        soft("npu-0", "s1", "1e30", "25"),
        AT + ".consumedCapacity.memory = 1e30: not a" + " whole number");
    bad.put(
        soft("npu-0", "s1", "4Gi", "12.5"),
        AT + ".consumedCapacity.cores = 12.5: not a" + " whole number");
    bad.put(
        share("npu", "npu-0", "s1", Map.of("cores", "25")),
        AT + ".consumedCapacity.memory:" + " missing (the soft share needs it; consumed: [cores])");
    for (var e : bad.entrySet()) {
      assertThat(state.prepare(claim("bad", "u1", e.getKey())).error()).isEqualTo(e.getValue());
      assertThat(nodeState()).isEmpty();
    }
  }

  @Test
  void aSoftResultConsumingCapacityWithoutShareIdFailsTheClaimInsteadOfTheWholeChip()
      throws Exception {
    DeviceRequestAllocationResult noShare =
        new DeviceRequestAllocationResultBuilder(soft("npu-0", "s1", "4Gi", "25"))
            .withShareID(null)
            .build();
    assertThat(state.prepare(claim("bad", "u1", noShare)).error())
        .isEqualTo(
            AT
                + ": device"
                + " npu-0 is shared (soft) and the result consumes {cores=25, memory=4Gi} but has no"
                + " shareID");
    assertThat(nodeState()).isEmpty();
  }

  @Test
  void twoClaimsThatOverCommitAChipLeaveTheSecondUnprepared() throws Exception {
    assertThat(state.prepare(claim("a", "ua", soft("npu-0", "s1", "40Gi", "60"))).error())
        .isEmpty();
    List<String> before = nodeState();
    assertThat(before).contains("checkpoint/ua", "cdi/ua", "regions/ua_npu");
    assertThat(state.prepare(claim("b", "ub", soft("npu-0", "s2", "30Gi", "30"))).error())
        .isEqualTo(
            "ResourceClaim demo/b: device npu-0: soft shares would hold 71680 of 65536"
                + " MiB and 90 of 100 % AI-core time with the ones already prepared");
    assertThat(state.prepare(claim("b", "ub", soft("npu-0", "s2", "4Gi", "41"))).error())
        .isEqualTo(
            "ResourceClaim demo/b: device npu-0: soft shares would hold 45056 of 65536"
                + " MiB and 101 of 100 % AI-core time with the ones already prepared");
    assertThat(nodeState()).isEqualTo(before);
  }

  @Test
  void aWholeChipAndASoftShareOfItNeverCoexist() throws Exception {
    // the whole chip taken as such: no limiter, so nothing may share it
    assertThat(state.prepare(whole("w", "uw", soft("npu-1", "s1", "64Gi", "100"))).error())
        .isEmpty();
    List<String> before = nodeState();
    assertThat(state.prepare(claim("b", "ub", soft("npu-1", "s2", "4Gi", "10"))).error())
        .isEqualTo(
            "ResourceClaim demo/b: device npu-1 shareID s2: the device is held by"
                + " ResourceClaim demo/w (uid uw, shareID s1) and one of them is the whole chip");
    assertThat(nodeState()).isEqualTo(before);
    // and the other way round
    assertThat(state.prepare(claim("c", "uc", soft("npu-2", "s3", "4Gi", "10"))).error()).isEmpty();
    before = nodeState();
    assertThat(state.prepare(whole("d", "ud", soft("npu-2", "s4", "64Gi", "100"))).error())
        .isEqualTo(
            "ResourceClaim demo/d: device npu-2 shareID s4: the device is held by"
                + " ResourceClaim demo/c (uid uc, shareID s3) and one of them is the whole chip");
    assertThat(nodeState()).isEqualTo(before);
  }

  @Test
  void aCheckpointThatCannotBeWrittenAfterTheShareWasCreatedLeavesNothingAndARetryRegistersOnce()
      throws Exception {
    breakCheckpointDir = true;
    assertThatThrownBy(() -> state.prepare(claim("a", "ua", soft("npu-0", "s1", "4Gi", "25"))))
        .isInstanceOf(StateUnavailableException.class)
        .hasMessageContaining("writing the checkpoint failed");
    // region, registry entry and CDI spec released, the claim forgotten
    assertThat(nodeState()).isEmpty();
    breakCheckpointDir = false;
    Files.delete(tmp.resolve("state"));
    Files.move(tmp.resolve("state-away"), tmp.resolve("state"));
    // the kubelet retries: one region, one registry entry
    assertThat(state.prepare(claim("a", "ua", soft("npu-0", "s1", "4Gi", "25"))).error()).isEmpty();
    assertThat(nodeState())
        .hasSize(5)
        .contains("regions/ua_npu", "regions/.charged/ua_npu.json", "cdi/ua", "checkpoint/ua")
        .filteredOn(n -> n.startsWith("compute/npu0:"))
        .hasSize(1);
  }

  @Test
  void adminAccessToASoftChipGetsThePlainChipWithoutRegionAndSharesStillFit() throws Exception {
    // the scheduler charges no capacity for admin access: no consumedCapacity
    DeviceRequestAllocationResult admin =
        new DeviceRequestAllocationResultBuilder()
            .withRequest("monitor")
            .withDriver(DRIVER)
            .withPool(POOL)
            .withDevice("npu-0")
            .withShareID("a1")
            .withAdminAccess(true)
            .build();
    PrepareOutcome o = state.prepare(claim("mon", "um", admin));
    assertThat(o.error()).isEmpty();
    assertThat(o.devices())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.soft()).isNull();
              assertThat(d.adminAccess()).isTrue();
            });
    assertThat(nodeState()).containsExactlyInAnyOrder("cdi/um", "checkpoint/um");
    assertThat(state.prepare(claim("a", "ua", soft("npu-0", "s1", "64Gi", "100"))).error())
        .isEmpty();
  }

  @Test
  void oneDeviceTwiceInOneRequestFailsTheClaimAndCreatesNothing() throws Exception {
    assertThat(
            state
                .prepare(
                    claim(
                        "bad",
                        "u1",
                        soft("npu-3", "s1", "4Gi", "10"),
                        soft("npu-3", "s2", "8Gi", "20")))
                .error())
        .isEqualTo(
            "ResourceClaim demo/bad: request"
                + " npu got device npu-3 twice (shares s1 and s2): one share per device per request"
                + " (add a distinctAttribute constraint on physicalId)");
    assertThat(nodeState()).isEmpty();
  }
}
