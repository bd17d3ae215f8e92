package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.testing.DraKubeletStandIn;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.RegistryEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Soft shares at the edges a tenant and a lost checkpoint reach: a container that replaces the
 * region file in its {@code /vnpu-shmem} mount with a tree deeper than the clean-up walks, and a
 * corrupt checkpoint under running soft shares (kubelet stand-in, mock API server, simulated 910B3
 * node, the real limiter files).
 */
@EnableKubernetesMockClient(crud = true)
class SoftShareRecoveryEndToEndTest {
  KubernetesClient client;

  @TempDir Path tmp;

  DraTestBed bed;
  DraKubeletStandIn kubelet;
  DraPlugin plugin;
  final QuotaRegions regions = new QuotaRegions();
  final Map<String, String> uids = new HashMap<>();

  @BeforeEach
  void setUp() throws Exception {
    bed = new DraTestBed(tmp, client);
    bed.softSlicing = true;
    bed.limiter = LimiterFixture.installInto(tmp.resolve("limiter"));
    kubelet = new DraKubeletStandIn();
    start();
  }

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.close();
    }
    kubelet.close();
  }

  void start() throws Exception {
    plugin = bed.startedPlugin();
    DraTestBed.await("NPUs discovered", () -> plugin.inventory().devices().size() == 8);
  }

  Path draSocket() {
    return Path.of(kubelet.getInfo(bed.registrar.resolve(DRIVER + "-reg.sock")).getEndpoint());
  }

  Path dataDir() {
    return bed.plugins.resolve(DRIVER);
  }

  static DeviceRequestAllocationResult soft(
      String device, String shareId, String mem, String cores) {
    return new DeviceRequestAllocationResultBuilder()
        .withRequest("npu")
        .withDriver(DRIVER)
        .withPool(NODE)
        .withDevice(device)
        .withShareID(shareId)
        .withConsumedCapacity(Map.of("memory", new Quantity(mem), "cores", new Quantity(cores)))
        .build();
  }

  NodePrepareResourceResponse prepare(String name, DeviceRequestAllocationResult result) {
    ResourceClaim c = bed.create(allocated("demo", name, "unused-" + name, List.of(result)));
    uids.put(name, c.getMetadata().getUid());
    return again(name);
  }

  NodePrepareResourceResponse again(String name) {
    String uid = uids.get(name);
    return kubelet.prepareV1(draSocket(), claim("demo", uid, name)).getClaimsOrThrow(uid);
  }

  String unprepare(String name) {
    String uid = uids.get(name);
    return kubelet
        .unprepareV1(draSocket(), claim("demo", uid, name))
        .getClaimsOrThrow(uid)
        .getError();
  }

  Path region(String name) {
    return dataDir()
        .resolve("regions")
        .resolve(uids.get(name) + "_npu")
        .resolve("vnpu_local_shmem");
  }

  long epoch(Path file) throws Exception {
    try (QuotaRegion r = regions.open(file)) {
      return r.epoch();
    }
  }

  List<Long> registered(int phy) throws Exception {
    try (var r =
        new io.vnpu.quota.registry.ComputeRegistries()
            .open(dataDir().resolve("compute").resolve("npu" + phy + ".reg"))) {
      return r.entries().stream().map(RegistryEntry::key).toList();
    }
  }

  @Test
  void aRegionFileReplacedByADeepTreeNeitherFailsTheUnprepareNorKeepsTheCapacity()
      throws Exception {
    assertThat(prepare("c1", soft("npu-1", "s1", "32Gi", "50")).getError()).isEmpty();
    Path file = region("c1");
    assertThat(registered(1)).containsExactly(epoch(file));
    // inside the container, through its /vnpu-shmem mount (read-write)
    Files.delete(file);
    Path deep = file;
    for (int i = 0; i <= HostFiles.MAX_DELETE_DEPTH; i++) {
      deep = deep.resolve("d");
    }
    Files.createDirectories(deep);

    assertThat(unprepare("c1")).isEmpty();
    assertThat(plugin.state().snapshot().preparedClaims()).isEmpty();
    assertThat(registered(1)).isEmpty();
    // the chip's whole capacity is free again for the next claim
    assertThat(prepare("c2", soft("npu-1", "s2", "64Gi", "100")).getError()).isEmpty();
    assertThat(unprepare("c2")).isEmpty();
  }

  @Test
  void afterACorruptCheckpointRunningSoftSharesKeepTheirRegionsAndUnprepareRemovesThem()
      throws Exception {
    assertThat(prepare("c1", soft("npu-1", "s1", "2Gi", "30")).getError()).isEmpty();
    assertThat(prepare("c2", soft("npu-1", "s2", "4Gi", "20")).getError()).isEmpty();
    Path file1 = region("c1");
    Path file2 = region("c2");
    Object inode1 = Files.getAttribute(file1, "unix:ino");
    long key1 = epoch(file1);
    long key2 = epoch(file2);
    assertThat(registered(1)).containsExactlyInAnyOrder(key1, key2);

    plugin.close();
    Files.writeString(
        dataDir().resolve(CheckpointStore.FILE_NAME),
        "{\"version\":\"v1\",\"checksum\":\"sha256:00\",\"checkpoint\":{}}");
    start();
    assertThat(plugin.state().snapshot().preparedClaims().get(uids.get("c1")).rebuilt()).isTrue();

    // the kubelet repeats c1's prepare: the live region is kept, not deleted and made again
    NodePrepareResourceResponse r = again("c1");
    assertThat(r.getError()).isEmpty();
    assertThat(r.getDevices(0).getCdiDeviceIdsList())
        .containsExactly("npu.huawei.com/npu=" + uids.get("c1") + "-npu-1-s1");
    assertThat(Files.getAttribute(file1, "unix:ino")).isEqualTo(inode1);
    assertThat(epoch(file1)).isEqualTo(key1);
    assertThat(registered(1)).containsExactlyInAnyOrder(key1, key2);
    assertThat(
            plugin
                .state()
                .snapshot()
                .preparedClaims()
                .get(uids.get("c1"))
                .devices()
                .get(0)
                .soft()
                .registryKey())
        .isEqualTo(key1);

    // c2 is unprepared while still rebuilt: its region and registry entry go with it
    assertThat(unprepare("c2")).isEmpty();
    assertThat(file2.getParent()).doesNotExist();
    assertThat(registered(1)).containsExactly(key1);
    assertThat(unprepare("c1")).isEmpty();
    assertThat(file1.getParent()).doesNotExist();
    assertThat(registered(1)).isEmpty();
  }

  // issue 24, upgrading: the previous release named a region directory <claim UID>-<request>; a
  // share prepared then keeps it (here rebuilt from its CDI spec) and its unprepare removes it
  @Test
  void aShareOfThePreviousReleaseKeepsItsOldDirectoryAndUnprepareRemovesIt() throws Exception {
    assertThat(prepare("old", soft("npu-3", "s1", "2Gi", "30")).getError()).isEmpty();
    String uid = uids.get("old");
    Path now = region("old").getParent();
    long key = epoch(region("old"));
    plugin.close();
    // what the previous release left: the directory under its old name, the CDI spec mounting it
    Path before = now.resolveSibling(uid + "-npu");
    Files.move(now, before);
    Path spec = bed.cdi.resolve("npu.huawei.com-npu_" + uid + ".json");
    Files.writeString(spec, Files.readString(spec).replace(now.toString(), before.toString()));
    Files.writeString(
        dataDir().resolve(CheckpointStore.FILE_NAME),
        "{\"version\":\"v1\",\"checksum\":\"sha256:00\",\"checkpoint\":{}}");
    start();
    assertThat(plugin.state().snapshot().preparedClaims().get(uid).rebuilt()).isTrue();
    assertThat(before.resolve("vnpu_local_shmem")).isRegularFile();
    assertThat(registered(3)).containsExactly(key);

    assertThat(unprepare("old")).isEmpty();
    assertThat(before).doesNotExist();
    assertThat(registered(3)).isEmpty();
    assertThat(plugin.state().snapshot().preparedClaims()).isEmpty();
  }
}
