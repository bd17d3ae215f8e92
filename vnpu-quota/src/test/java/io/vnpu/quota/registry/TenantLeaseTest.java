package io.vnpu.quota.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.NativeDir;
import io.vnpu.quota.files.TenantFileException;
import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.layout.RegistryLayout;
import io.vnpu.quota.region.QuotaRegions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23: root in a container (no user namespace: it owns root's files) takes a file lease
 * ({@code fcntl(F_SETLEASE)}) on what it can open: the compute registry through its read-only
 * mount, or its own quota region. Without care every blocking open by the node agent then waits the
 * kernel's lease-break time (45 s). The tenant here runs as a real container would see it: in its
 * own mount namespace ({@code unshare -m}) with the registry directory bind-mounted read-only. The
 * agent must neither stall nor lose a registration, and neighbours' limiters keep reading.
 */
class TenantLeaseTest {
  @TempDir Path tmp;
  private Process tenant;

  @BeforeEach
  void rootOnly() throws Exception {
    // one clear line in the log when skipped: leases on another user's file need root (or
    // CAP_LEASE)
    Assumptions.assumeTrue(
        "0".equals(run("id", "-u").strip()),
        "TenantLeaseTest skipped: taking a lease as a tenant would need root (CAP_LEASE) here");
    Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/unshare")), "TenantLeaseTest skipped: no unshare(1)");
  }

  @AfterEach
  void stopTenant() throws InterruptedException {
    if (tenant != null) {
      tenant.destroyForcibly();
      tenant.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return out;
  }

  /**
   * Starts the tenant: in a new mount namespace, {@code dir} bind-mounted read-only at {@code ro},
   * a write lease on {@code ro/name} (SIGIO ignored: it holds on until the kernel breaks it).
   */
  private void leaseAsTenant(Path dir, String name) throws Exception {
    Path ro = Files.createDirectories(tmp.resolve("tenant-view"));
    String py =
        "import fcntl, os, signal, sys, time\n"
            + "signal.signal(signal.SIGIO, signal.SIG_IGN)\n"
            + "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
            + "fcntl.fcntl(fd, 1024, fcntl.F_WRLCK)\n" // F_SETLEASE
            + "print('leased', flush=True)\n"
            + "time.sleep(120)\n";
    tenant =
        new ProcessBuilder(
                "unshare",
                "-m",
                "sh",
                "-c",
                "mount --make-rprivate / && mount --bind -o ro \"$1\" \"$2\" && exec python3 -c \"$3\" \"$2/$4\"",
                "tenant",
                dir.toString(),
                ro.toString(),
                py,
                name)
            .redirectErrorStream(true)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(tenant.getInputStream(), StandardCharsets.UTF_8));
    String first = out.readLine();
    assertThat(first).as("the tenant's lease").isEqualTo("leased");
  }

  private static long elapsedMs(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  @Test
  void aLeaseOnTheRegistryNeitherStallsTheAgentNorLosesARegistration() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("registry"));
    Path f = dir.resolve(RegistryLayout.fileName(0));
    Path region = tmp.resolve("region");
    Files.write(region, new byte[RegionLayout.REGION_FILE_BYTES]);
    try (ComputeRegistry r = new ComputeRegistries().createOrOpen(f, 0)) {
      r.register(
          new RegistryMember(0x77L, "neighbour", 3, 0, Priority.NORMAL, 0, Optional.of(region)));
    }
    // the agent restarts; meanwhile nobody holds the registry open, and the tenant leases it
    leaseAsTenant(dir, f.getFileName().toString());
    long t0 = System.nanoTime();
    try (ComputeRegistry r = new ComputeRegistries().createOrOpen(f, 0)) {
      assertThat(elapsedMs(t0)).as("ms to open a leased registry").isLessThan(5_000);
      // rebuilt from the agents' member table and atomically replaced: nothing lost
      assertThat(r.keys()).containsExactly(0x77L);
      t0 = System.nanoTime();
      r.register(new RegistryMember(0x78L, "new", 1, 0, Priority.NORMAL));
      assertThat(r.publish(System.nanoTime(), 10, 100)).isTrue();
      assertThat(elapsedMs(t0)).as("ms to register and publish").isLessThan(5_000);
      // a neighbour's limiter (the C reader) opens the registry at once and sees both entries
      t0 = System.nanoTime();
      String dump =
          run(NativeDir.program("limiter/registry_tool").toString(), "dump", f.toString());
      assertThat(elapsedMs(t0)).isLessThan(5_000);
      assertThat(dump)
          .contains("key=" + 0x77L + " weight=3")
          .contains("key=" + 0x78L + " weight=1");
    }
  }

  @Test
  void aLeaseOnARegionIsAnErrorForThatSliceOnly() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("registry"));
    Path f = dir.resolve(RegistryLayout.fileName(1));
    Path containers = Files.createDirectory(tmp.resolve("containers"));
    Path leased = containers.resolve("leased");
    Path other = containers.resolve("other");
    Files.write(leased, new byte[RegionLayout.REGION_FILE_BYTES]);
    Files.write(other, new byte[RegionLayout.REGION_FILE_BYTES]);
    leaseAsTenant(containers, "leased");
    ComputeRegistries registries = new ComputeRegistries();
    try (ComputeRegistry r = registries.createOrOpen(f, 1)) {
      r.register(new RegistryMember(1, "leased", 1, 0, Priority.NORMAL, 0, Optional.of(leased)));
      r.register(new RegistryMember(2, "other", 1, 0, Priority.NORMAL, 0, Optional.of(other)));
      long t0 = System.nanoTime();
      for (int i = 0; i < 3; i++)
        assertThat(r.publish(1_000_000_000L + i * 100_000_000L, 10, 100)).isTrue();
      assertThat(r.entries()).hasSize(2);
      assertThat(elapsedMs(t0)).as("ms for three publications and a snapshot").isLessThan(5_000);
      assertThat(registries.unreadableRegions()).isEqualTo(1);
      List<RegistryEntry> es = r.entries();
      assertThat(es).filteredOn(e -> e.key() == 1).singleElement().matches(e -> e.pubFlags() == 0);
      assertThat(es)
          .filteredOn(e -> e.key() == 2)
          .singleElement()
          .matches(e -> (e.pubFlags() & RegistryLayout.REG_PUB_VALID) != 0);
    }
    // what the metrics collection does for every slice on every scrape: an error at once, no wait
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> new QuotaRegions().open(leased))
        .isInstanceOf(TenantFileException.class)
        .hasMessageContaining("lease");
    assertThat(elapsedMs(t0)).isLessThan(5_000);
  }
}
