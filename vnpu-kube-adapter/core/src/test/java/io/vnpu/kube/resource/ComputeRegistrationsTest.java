package io.vnpu.kube.resource;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agent's compute registrations: what is registered comes from the slice decision (never
 * from the region a container can rewrite), one entry per NPU of the container, and the clean-up
 * keeps exactly the entries whose registered region (agents' member table) is the region of a
 * container directory. Nothing of a container lies in the registry directory containers mount.
 */
class ComputeRegistrationsTest {
  @TempDir Path tmp;

  private final QuotaRegions regions = new QuotaRegions();
  private final QuotaRegionFactory factory = QuotaRegionFactory.writing(regions);

  private static SliceDevice soft(int phyId, int core) {
    return new SliceDevice(
        new NpuRef(phyId, "U" + phyId),
        new SliceShare.SoftQuota(1L << 30, core, core, Priority.NORMAL));
  }

  private long create(ComputeRegistrations reg, String name, List<SliceDevice> devices)
      throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("containers").resolve(name));
    RegionToCreate region = new RegionToCreate(dir.resolve("region"), devices, "/vnpu-registry");
    io.vnpu.quota.model.RegionConfig config = io.vnpu.quota.model.RegionConfig.forSlice(region);
    long key = factory.create(region, config);
    reg.ensureDirectory();
    reg.register(region.file(), key, "default/" + name, config);
    return key;
  }

  private List<RegistryEntry> entries(int phyId) throws Exception {
    try (ComputeRegistry r =
        new ComputeRegistries().open(tmp.resolve("registry/npu" + phyId + ".reg"))) {
      return r.entries();
    }
  }

  @Test
  void registersEachNpuOfTheContainerWithItsCapAndWeightAndKeepsLiveOnes() throws Exception {
    try (ComputeRegistrations reg =
        new ComputeRegistrations(tmp.resolve("registry"), tmp.resolve("containers"), "region")) {
      long a = create(reg, "uid-a_main", List.of(soft(2, 25), soft(5, 60)));
      long b = create(reg, "uid-b_main", List.of(soft(2, 50)));
      assertThat(entries(2))
          .extracting(e -> e.key() + " " + e.weight() + " " + e.capPct() + " " + e.name())
          .containsExactly(a + " 25 25 default/uid-a_main", b + " 50 50 default/uid-b_main");
      // logical device 1 of container a is NPU 5
      assertThat(entries(5)).extracting(e -> e.key() + " " + e.capPct()).containsExactly(a + " 60");
      assertThat(Files.getPosixFilePermissions(tmp.resolve("registry/npu2.reg")))
          .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
      assertThat(reg.reconcile()).isEmpty();
      assertThat(entries(2)).hasSize(2);

      // a container rewrites its own region (cap 100, weight 10000): the registry keeps the agent's
      // values
      try (QuotaRegion r = regions.open(tmp.resolve("containers/uid-a_main/region"))) {
        r.updateConfig(
            r.readConfig()
                .withDevices(
                    List.of(
                        new DeviceQuota(1L << 30, 10000, 100, Priority.HIGH, 2, "U2"),
                        new DeviceQuota(1L << 30, 10000, 100, Priority.HIGH, 5, "U5"))));
      }
      assertThat(reg.reconcile()).isEmpty();
      assertThat(entries(2))
          .extracting(e -> e.weight() + " " + e.capPct() + " " + e.priority())
          .containsExactly("25 25 NORMAL", "50 50 NORMAL");
    }
  }

  @Test
  void reconcileRemovesEntriesOfGoneOrReplacedContainersOnly() throws Exception {
    try (ComputeRegistrations reg =
        new ComputeRegistrations(tmp.resolve("registry"), tmp.resolve("containers"), "region")) {
      long gone = create(reg, "uid-gone_main", List.of(soft(1, 30)));
      long replaced = create(reg, "uid-again_main", List.of(soft(1, 20)));
      long kept = create(reg, "uid-kept_main", List.of(soft(1, 40), soft(3, 40)));
      io.vnpu.quota.files.HostFiles.deleteTree(tmp.resolve("containers/uid-gone_main"));
      // a new Allocate of the same container: a new region (new key) where the old one was
      long renewed = create(reg, "uid-again_main", List.of(soft(1, 20)));
      assertThat(entries(1))
          .extracting(RegistryEntry::key)
          .containsExactlyInAnyOrder(gone, replaced, kept, renewed);

      assertThat(reg.reconcile())
          .containsExactlyInAnyOrder(
              "npu1:" + Long.toHexString(gone), "npu1:" + Long.toHexString(replaced));
      assertThat(entries(1))
          .extracting(RegistryEntry::key)
          .containsExactlyInAnyOrder(kept, renewed);
      assertThat(entries(3)).extracting(RegistryEntry::key).containsExactly(kept);
      try (var files = Files.list(tmp.resolve("registry"))) {
        // what containers mount: the registries, nothing of any container
        assertThat(files.map(p -> p.getFileName().toString()))
            .containsExactlyInAnyOrder("npu1.reg", "npu3.reg");
      }
    }
    // a new agent (restart) keeps what is live and registers nothing twice
    try (ComputeRegistrations reg =
        new ComputeRegistrations(tmp.resolve("registry"), tmp.resolve("containers"), "region")) {
      assertThat(reg.reconcile()).isEmpty();
      assertThat(entries(1)).hasSize(2);
    }
  }

  /**
   * A container that replaces its own region file (same path, another inode) loses its own
   * registration at the next clean-up: the decision uses the identity recorded at registration,
   * nothing the container wrote.
   */
  @Test
  void aContainerReplacingItsRegionLosesOnlyItsOwnRegistration() throws Exception {
    try (ComputeRegistrations reg =
        new ComputeRegistrations(tmp.resolve("registry"), tmp.resolve("containers"), "region")) {
      long live = create(reg, "uid-live_main", List.of(soft(1, 30)));
      long swapped = create(reg, "uid-swap_main", List.of(soft(1, 30)));
      Path region = tmp.resolve("containers/uid-swap_main/region");
      Path copy = tmp.resolve("containers/uid-swap_main/copy");
      Files.copy(region, copy);
      Files.move(copy, region, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      assertThat(reg.reconcile()).containsExactly("npu1:" + Long.toHexString(swapped));
      assertThat(entries(1)).extracting(RegistryEntry::key).containsExactly(live);
    }
  }

  @Test
  void noAiCoreShareMeansNoRegistrationAndUnregisterRemovesEveryNpu() throws Exception {
    try (ComputeRegistrations reg =
        new ComputeRegistrations(tmp.resolve("registry"), tmp.resolve("containers"), "region")) {
      long memOnly = create(reg, "uid-m_main", List.of(soft(0, 0)));
      assertThat(memOnly).isNotZero();
      assertThat(tmp.resolve("registry")).isDirectory(); // containers mount it, registered or not
      assertThat(tmp.resolve("registry/npu0.reg")).doesNotExist();
      try (QuotaRegion r = regions.open(tmp.resolve("containers/uid-m_main/region"))) {
        RegionConfig c = r.readConfig();
        assertThat(c.registryDir()).isEqualTo("/vnpu-registry");
      }
      long two = create(reg, "uid-t_main", List.of(soft(0, 10), soft(1, 10)));
      assertThat(reg.unregister(two)).containsExactly(0, 1);
      assertThat(entries(0)).isEmpty();
      assertThat(entries(1)).isEmpty();
    }
  }

  @Test
  void displayNamesAreCutToWholeCharactersOf31Bytes() {
    assertThat(ComputeRegistrations.displayName("default/infer")).isEqualTo("default/infer");
    String cut = ComputeRegistrations.displayName("namespace-with-a-long-name/pod-name/container");
    assertThat(cut).isEqualTo("namespace-with-a-long-name/pod-");
    String wide = ComputeRegistrations.displayName("命名空间/推理服务/容器/主容器");
    assertThat(wide.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(31);
    assertThat("命名空间/推理服务/容器/主容器").startsWith(wide);
    assertThat(wide).isEqualTo("命名空间/推理服务/容"); // 29 bytes: the next character would make 32
  }
}
