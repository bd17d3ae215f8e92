package io.vnpu.quota.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.NativeDir;
import io.vnpu.quota.layout.RegistryLayout;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Java side of the compute registry, and interoperation with the C side (registry_tool). */
class ComputeRegistryTest {
  @TempDir Path tmp;

  /** The registry directory; its lock directory lies beside it, inside the temporary directory. */
  private Path dir;

  private final ComputeRegistries registries = new ComputeRegistries();

  @org.junit.jupiter.api.BeforeEach
  void registryDir() throws IOException {
    dir = Files.createDirectory(tmp.resolve("registry"));
  }

  private static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  private static void poke16(Path f, long off, int v) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
      raf.seek(off);
      raf.write(ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) v).array());
    }
  }

  @Test
  void aRegistrationDoesNotWaitForAPublishRoundReadingTheRegions() throws Exception {
    Path f = dir.resolve(RegistryLayout.fileName(0));
    try (ComputeRegistry r = registries.createOrOpen(f, 0)) {
      r.register(
          new RegistryMember(
              1L, "pod-a/main", 1, 0, Priority.NORMAL, 0, java.util.Optional.empty()));
      java.util.concurrent.CountDownLatch parked = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch resume = new java.util.concurrent.CountDownLatch(1);
      r.betweenReadAndSample =
          () -> {
            parked.countDown();
            try {
              resume.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          };
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(2);
      try {
        java.util.concurrent.Future<Boolean> round =
            pool.submit(() -> r.publish(System.nanoTime(), 10, 100));
        assertThat(parked.await(10, TimeUnit.SECONDS)).isTrue();
        // a Prepare's registration and an Unprepare's removal while the round is parked
        java.util.concurrent.Future<Integer> reg =
            pool.submit(
                () ->
                    r.register(
                        new RegistryMember(
                            2L,
                            "pod-b/main",
                            1,
                            0,
                            Priority.NORMAL,
                            0,
                            java.util.Optional.empty())));
        assertThat(reg.get(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(r.unregister(1L)).isTrue();
        resume.countDown();
        assertThat(round.get(10, TimeUnit.SECONDS)).isTrue();
        // the round wrote its figures into the registry as it is now: neither change is undone
        assertThat(r.keys()).containsExactly(2L);
      } finally {
        resume.countDown();
        pool.shutdownNow();
      }
    }
  }

  @Test
  void createdByJavaIsReadByCAndViceVersa() throws Exception {
    Path f = dir.resolve(RegistryLayout.fileName(2));
    try (ComputeRegistry r = registries.createOrOpen(f, 2)) {
      assertThat(r.physId()).isEqualTo(2);
      assertThat(r.epoch()).isNotZero();
      assertThat(Files.size(f)).isEqualTo(RegistryLayout.REG_FILE_BYTES);
      // only the node agent writes a registry: the limiter refuses one writable by group or others
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
          .isEqualTo("rw-r--r--");
      int idx =
          r.register(
              new RegistryMember(
                      0x1234L, "pod-a/main", 3, 40, Priority.HIGH, 2, java.util.Optional.empty())
                  .withPolicy(java.util.Optional.of(io.vnpu.api.slice.SharingPolicy.ELASTIC)));
      // C validates and reads it (limiter's read path): one ACTIVE entry, nothing published yet, no
      // region;
      // its sharing policy from the entry's flags (2 = elastic, enum vnpu_share_policy)
      String dump =
          run(NativeDir.program("limiter/registry_tool").toString(), "dump", f.toString());
      assertThat(dump)
          .isEqualTo(
              "entry=0 key="
                  + 0x1234L
                  + " weight=3 cap=40 prio=0 dev=2 flags=0 used_ppm=0"
                  + " blocked_ppm=0 pub_busy_ns=0 policy=2 region=none\npub_count=0\n");
      assertThat(idx).isZero();
    }
    // a registry the C side created opens in Java with the same geometry
    Path g = dir.resolve("c.reg");
    run(NativeDir.program("limiter/registry_tool").toString(), "create", g.toString(), "5");
    try (ComputeRegistry r = registries.open(g)) {
      assertThat(r.physId()).isEqualTo(5);
      assertThat(r.entries()).isEmpty();
    }
  }

  @Test
  void registerIsIdempotentPerKeyAndUnregisterFreesIdleEntries() throws Exception {
    try (ComputeRegistry r = registries.createOrOpen(dir.resolve("npu0.reg"), 0)) {
      int a = r.register(new RegistryMember(1, "a", 1, 0, Priority.NORMAL));
      int b = r.register(new RegistryMember(2, "b", 3, 0, Priority.NORMAL));
      assertThat(b).isNotEqualTo(a);
      assertThat(r.register(new RegistryMember(1, "a", 7, 25, Priority.NORMAL))).isEqualTo(a);
      List<RegistryEntry> es = r.entries();
      assertThat(es).extracting(RegistryEntry::key).containsExactly(1L, 2L);
      assertThat(r.keys()).containsExactly(1L, 2L);
      RegistryEntry ea = es.get(0);
      assertThat(ea.weight()).isEqualTo(7);
      assertThat(ea.capPct()).isEqualTo(25);
      assertThat(ea.pinned()).isTrue();
      assertThat(ea.live()).isFalse();
      assertThat(ea.launches()).isZero();
      assertThat(r.unregister(1)).isTrue();
      assertThat(r.unregister(99)).isFalse();
      assertThat(r.keys()).containsExactly(2L);
      assertThat(r.entries()).extracting(RegistryEntry::key).containsExactly(2L);
    }
  }

  @Test
  void reopeningValidatesAndNamesTheField() throws Exception {
    Path f = dir.resolve("npu1.reg");
    registries.createOrOpen(f, 1).close();
    poke16(f, RegistryLayout.RH_MAJOR, 9);
    assertThatThrownBy(() -> registries.open(f))
        .isInstanceOf(RegistryFormatException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("field VNPU_RH_MAJOR = 9, expected 3");
    // the node agent's createOrOpen re-initialises an unreadable registry (it holds no lasting
    // state)
    try (ComputeRegistry r = registries.createOrOpen(f, 1)) {
      assertThat(r.entries()).isEmpty();
    }
    Files.write(f, new byte[100]);
    assertThatThrownBy(() -> registries.open(f))
        .isInstanceOf(RegistryFormatException.class)
        .hasMessageContaining("field file size = 100");
    assertThatThrownBy(() -> registries.open(dir.resolve("absent.reg")))
        .isInstanceOf(NoSuchFileException.class);
  }

  /**
   * A quota region as the limiter leaves it: device 1 launched 300 kernels, share 25 %, slot 3
   * ACTIVE but its owner gone (nobody holds the slot's lock).
   */
  private static ByteBuffer regionImage(long busyNs, long blockedNs, long lastLaunchNs) {
    ByteBuffer b =
        ByteBuffer.allocate(io.vnpu.quota.layout.RegionLayout.REGION_FILE_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
    int ds = io.vnpu.quota.layout.RegionLayout.devStateOff(1);
    b.putLong(ds + io.vnpu.quota.layout.RegionLayout.DS_LAUNCHES, 300);
    b.putLong(ds + io.vnpu.quota.layout.RegionLayout.DS_BUSY_NS, busyNs);
    b.putLong(ds + io.vnpu.quota.layout.RegionLayout.DS_BLOCKED_NS, blockedNs);
    b.putLong(ds + io.vnpu.quota.layout.RegionLayout.DS_LAST_LAUNCH_NS, lastLaunchNs);
    b.putLong(ds + io.vnpu.quota.layout.RegionLayout.DS_THROTTLED_NS, 5_000_000L);
    b.putInt(ds + io.vnpu.quota.layout.RegionLayout.DS_SHARE_PPM, 250_000);
    b.putLong(
        io.vnpu.quota.layout.RegionLayout.H_SYMBOL_LAUNCHES
            + 8 * LaunchSymbol.rtsModelExecute.ordinal(),
        300);
    b.putInt(
        io.vnpu.quota.layout.RegionLayout.slotOff(3) + io.vnpu.quota.layout.RegionLayout.S_STATE,
        io.vnpu.quota.layout.RegionLayout.SLOT_ACTIVE);
    return b;
  }

  private static void writeRegion(Path region, ByteBuffer b) throws IOException {
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(
            region,
            java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(b.duplicate().clear(), 0);
    }
  }

  /** What the publisher last wrote into entry {@code i}: the device time it published. */
  private static long publishedBusyNs(Path registry, int i) throws IOException {
    return ByteBuffer.wrap(Files.readAllBytes(registry))
        .order(ByteOrder.LITTLE_ENDIAN)
        .getLong(RegistryLayout.entryOff(i) + RegistryLayout.RE_BUSY_NS);
  }

  @Test
  void aRoundReadsTheMemberTableAgainWhenAnEntryChanged() throws Exception {
    Path first = tmp.resolve("first-region");
    Path second = tmp.resolve("second-region");
    Path third = tmp.resolve("third-region");
    writeRegion(first, regionImage(1_000_000L, 0, 1));
    writeRegion(second, regionImage(2_000_000L, 0, 1));
    writeRegion(third, regionImage(3_000_000L, 0, 1));
    Path f = dir.resolve("npu7.reg");
    try (ComputeRegistry r = registries.createOrOpen(f, 7)) {
      r.register(
          new RegistryMember(0xaL, "a", 1, 0, Priority.NORMAL, 1, java.util.Optional.of(first)));
      assertThat(r.publish(1_000_000_000L, 10, 100)).isTrue();
      assertThat(publishedBusyNs(f, 0)).isEqualTo(1_000_000L);
      // the same key registered again in place with another region: only its generation changes
      r.register(
          new RegistryMember(0xaL, "a", 1, 0, Priority.NORMAL, 1, java.util.Optional.of(second)));
      assertThat(r.publish(1_100_000_000L, 10, 100)).isTrue();
      assertThat(publishedBusyNs(f, 0)).isEqualTo(2_000_000L);
      // another container in the freed entry
      assertThat(r.unregister(0xaL)).isTrue();
      r.register(
          new RegistryMember(0xbL, "b", 1, 0, Priority.NORMAL, 1, java.util.Optional.of(third)));
      assertThat(r.publish(1_200_000_000L, 10, 100)).isTrue();
      assertThat(publishedBusyNs(f, 0)).isEqualTo(3_000_000L);
      // nothing changed: the round publishes what the region says now, from the table it kept
      writeRegion(third, regionImage(4_000_000L, 0, 2));
      assertThat(r.publish(1_300_000_000L, 10, 100)).isTrue();
      assertThat(publishedBusyNs(f, 0)).isEqualTo(4_000_000L);
    }
  }

  @Test
  void theRegionIsNamedOnlyInTheAgentsFileAndItsUsageIsPublished() throws Exception {
    Path region = tmp.resolve("c1-region");
    writeRegion(region, regionImage(7_000_000L, 0, 1));
    Path f = dir.resolve("npu6.reg");
    try (ComputeRegistry r = registries.createOrOpen(f, 6)) {
      r.register(
          new RegistryMember(
              0xabcL, "c1", 2, 0, Priority.NORMAL, 1, java.util.Optional.of(region)));
      // nothing of the container's lies in the directory containers mount: only the registry
      try (java.util.stream.Stream<Path> files = Files.list(dir)) {
        assertThat(files.map(p -> p.getFileName().toString())).containsExactly("npu6.reg");
      }
      assertThat(r.registeredRegion(0xabcL))
          .get()
          .extracting(ComputeRegistry.RegisteredRegion::file)
          .isEqualTo(region.toAbsolutePath());
      RegistryEntry e = r.entries().get(0);
      assertThat(e.launches()).isEqualTo(300);
      assertThat(e.busyNs()).isEqualTo(7_000_000L);
      assertThat(e.sharePpm()).isEqualTo(250_000);
      assertThat(e.live()).isFalse();
      assertThat(e.launchesBySymbol())
          .containsExactly(java.util.Map.entry("rtsModelExecute", 300L));
      assertThat(e.pubFlags()).isZero(); // nothing published yet

      // two publications 100 ms apart: 10 ms of device time used, active, not saturated
      assertThat(r.publish(1_000_000_000L, 10, 100)).isTrue();
      writeRegion(region, regionImage(17_000_000L, 1_000_000L, 2));
      assertThat(r.publish(1_100_000_000L, 10, 100)).isTrue();
      // the C reader (the limiter's code) sees the publication
      String dump =
          run(NativeDir.program("limiter/registry_tool").toString(), "dump", f.toString());
      assertThat(dump)
          .contains("dev=1 flags=3 used_ppm=100000 blocked_ppm=10000 pub_busy_ns=17000000")
          .contains("launches=300 busy_ns=17000000 ")
          .contains("share_ppm=250000")
          .contains("sym=rtsModelExecute launches=300")
          .contains("pub_count=2");
      // saturated: its launches waited 30 % of the window
      writeRegion(region, regionImage(18_000_000L, 31_000_000L, 3));
      assertThat(r.publish(1_200_000_000L, 10, 100)).isTrue();
      assertThat(r.entries().get(0).pubFlags())
          .isEqualTo(
              RegistryLayout.REG_PUB_VALID
                  | RegistryLayout.REG_PUB_ACTIVE
                  | RegistryLayout.REG_PUB_SATURATED);
      // a reader's instance (metrics, vnpu top) sees the published figures without the agents' file
      try (ComputeRegistry reader = new ComputeRegistries().open(f)) {
        RegistryEntry p = reader.entries().get(0);
        assertThat(p.busyNs()).isEqualTo(18_000_000L);
        assertThat(p.launches()).isEqualTo(300);
        assertThat(p.throttledNs()).isEqualTo(5_000_000L);
        assertThat(p.sharePpm()).isEqualTo(250_000);
        assertThat(p.usedPpm()).isEqualTo(10_000);
      }
      assertThat(r.unregister(0xabcL)).isTrue();
      assertThat(r.registeredRegion(0xabcL)).isEmpty();
      assertThat(region).exists();
    }
  }

  /** Only the holder of the publish lock publishes: a second agent process waits for it to go. */
  @Test
  void oneAgentProcessPublishes() throws Exception {
    Path f = dir.resolve("npu7.reg");
    try (ComputeRegistry r = registries.createOrOpen(f, 7)) {
      Process c =
          new ProcessBuilder(
                  NativeDir.program("limiter/registry_tool").toString(),
                  "agent",
                  f.toString(),
                  "10")
              .redirectErrorStream(true)
              .start();
      try {
        String first =
            new java.io.BufferedReader(new java.io.InputStreamReader(c.getInputStream()))
                .readLine();
        assertThat(first).isEqualTo("agent publishing");
        assertThat(r.publish(System.nanoTime(), 10, 100)).isFalse();
      } finally {
        c.destroy();
        assertThat(c.waitFor(10, TimeUnit.SECONDS)).isTrue();
      }
      // its record locks went with it: this process takes over
      assertThat(r.publish(System.nanoTime(), 10, 100)).isTrue();
    }
  }

  /**
   * What a tenant can do to its own region path (the agent reads it to publish): a FIFO, a symbolic
   * link, a directory, a sparse 1 TiB file, another file in its place. Each is an error for that
   * one container, logged and counted once; publishing goes on at once for everybody.
   */
  @Test
  void hostileRegionPathsAreAnErrorForThatContainerOnly() throws Exception {
    Path f = dir.resolve("npu8.reg");
    String[] kinds = {"fifo", "symlink", "dir", "huge", "replaced", "good"};
    try (ComputeRegistry r = registries.createOrOpen(f, 8)) {
      for (int k = 0; k < kinds.length; k++) {
        Path region = tmp.resolve("region-" + kinds[k]);
        writeRegion(region, regionImage(1, 0, 1));
        r.register(
            new RegistryMember(
                100 + k, kinds[k], 1, 0, Priority.NORMAL, 1, java.util.Optional.of(region)));
        switch (kinds[k]) {
          case "fifo" -> {
            Files.delete(region);
            run("mkfifo", region.toString());
          }
          case "symlink" -> {
            Files.delete(region);
            Files.createSymbolicLink(region, f);
          }
          case "dir" -> {
            Files.delete(region);
            Files.createDirectory(region);
          }
          case "huge" -> {
            try (RandomAccessFile raf = new RandomAccessFile(region.toFile(), "rw")) {
              raf.setLength(1L << 40);
            }
          }
          case "replaced" -> {
            Path other = tmp.resolve("other");
            writeRegion(other, regionImage(1, 0, 1));
            Files.move(region, tmp.resolve("kept-alive")); // a new inode for the replacement
            Files.move(other, region);
          }
          default -> {}
        }
      }
      long t0 = System.nanoTime();
      for (int i = 0; i < 3; i++)
        assertThat(r.publish(1_000_000_000L + i * 100_000_000L, 10, 100)).isTrue();
      assertThat((System.nanoTime() - t0) / 1_000_000)
          .as("ms for three publications")
          .isLessThan(2000);
      assertThat(registries.unreadableRegions()).isEqualTo(5);
      List<RegistryEntry> es = r.entries();
      assertThat(es).filteredOn(e -> !e.name().equals("good")).allMatch(e -> e.pubFlags() == 0);
      assertThat(es)
          .filteredOn(e -> e.name().equals("good"))
          .singleElement()
          .matches(e -> (e.pubFlags() & RegistryLayout.REG_PUB_VALID) != 0);
    }
  }

  @Test
  void oneOpenPerJvm() throws Exception {
    Path f = dir.resolve("npu4.reg");
    try (ComputeRegistry r = registries.createOrOpen(f, 4)) {
      assertThatThrownBy(() -> registries.open(f))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("already open");
      assertThat(r.file()).isEqualTo(f);
    }
    registries.open(f).close();
  }

  @Test
  void memberValidation() {
    assertThatThrownBy(() -> new RegistryMember(0, "x", 1, 0, Priority.NORMAL))
        .hasMessageContaining("key");
    assertThatThrownBy(() -> new RegistryMember(1, "x", 0, 0, Priority.NORMAL))
        .hasMessageContaining("weight must be in 1..10000: 0");
    assertThatThrownBy(() -> new RegistryMember(1, "x", 1, 101, Priority.NORMAL))
        .hasMessageContaining("capPct must be in 0..100: 101");
    assertThatThrownBy(() -> new RegistryMember(1, "x".repeat(32), 1, 0, Priority.NORMAL))
        .hasMessageContaining("31 bytes");
    assertThatThrownBy(
            () -> new RegistryMember(1, "x", 1, 0, Priority.NORMAL, 16, java.util.Optional.empty()))
        .hasMessageContaining("deviceIndex must be in 0..15: 16");
  }

  @Test
  void achievedSharesFromTwoSnapshots() {
    RegistryEntry a0 = entry(0, 1, 1_000_000_000L, 100);
    RegistryEntry a1 = entry(0, 1, 1_250_000_000L, 350);
    RegistryEntry b1 = entry(1, 2, 500_000_000L, 10); // appeared in between: no base, not reported
    List<AchievedShare> s = AchievedShare.between(List.of(a0), List.of(a1, b1), 1_000_000_000L);
    assertThat(s).containsExactly(new AchievedShare(1, "e0", 0.25, 250));
    assertThatThrownBy(() -> AchievedShare.between(List.of(), List.of(), 0))
        .hasMessageContaining("elapsedNs");
  }

  private static RegistryEntry entry(int idx, long key, long busy, long launches) {
    return new RegistryEntry(
        idx,
        key,
        "e" + idx,
        1,
        0,
        Priority.NORMAL,
        false,
        true,
        0,
        launches,
        busy,
        0,
        0,
        0,
        0,
        java.util.Map.of(),
        0,
        0,
        0);
  }

  // the registry is read with positional reads, not mapped: a file truncated while open reads as
  // zeros (no entries), never a fault
  @Test
  void registryTruncatedWhileOpenReadsAsEmpty() throws Exception {
    Path f = dir.resolve(RegistryLayout.fileName(4));
    try (ComputeRegistry r = registries.createOrOpen(f, 4)) {
      try (java.nio.channels.FileChannel ch =
          java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.WRITE)) {
        ch.truncate(0);
      }
      assertThat(r.entries()).isEmpty();
    }
  }

  // the registry directory is shared with the containers: a planted link is never followed
  @Test
  void createOrOpenRefusesALinkPlantedUnderTheRegistryName() throws Exception {
    Path victim = Files.writeString(dir.resolve("victim"), "host file");
    Path f = dir.resolve(RegistryLayout.fileName(5));
    Files.createSymbolicLink(f, victim);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> registries.createOrOpen(f, 5))
        .isInstanceOf(IOException.class);
    assertThat(Files.readString(victim)).isEqualTo("host file");
  }

  /**
   * Containers mount the registry directory read-only, and a read-only descriptor is enough for a
   * shared record lock: a tenant holding one on the agent's lock bytes must not stop the agent
   * (before: every register, unregister and re-open of that NPU's registry failed after 2 s).
   */
  @Test
  @SuppressWarnings("try") // the tenant's locks only need to be held while the agent works
  void aTenantsReadLockOnTheRegistryDoesNotBlockTheAgent() throws Exception {
    Path f = dir.resolve(RegistryLayout.fileName(3));
    registries.createOrOpen(f, 3).close();
    try (java.nio.channels.FileChannel tenant =
            java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.READ);
        java.nio.channels.FileLock admin = tenant.lock(RegistryLayout.REG_LOCK_ADMIN, 1, true);
        java.nio.channels.FileLock init = tenant.lock(RegistryLayout.REG_LOCK_INIT, 1, true)) {
      try (ComputeRegistry r = registries.createOrOpen(f, 3)) {
        r.register(new RegistryMember(7, "a", 1, 50, Priority.NORMAL));
        assertThat(r.keys()).containsExactly(7L);
        assertThat(r.unregister(7)).isTrue();
      }
    }
    // the agents' lock file: beside the registry directory (no container mounts it), 0600 in 0700
    Path lock = tmp.resolve("registry.locks/npu3.reg.lock");
    assertThat(lock).isRegularFile();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(lock)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(lock.getParent())))
        .isEqualTo("rwx------");
  }

  /** A region that is not a regular file cannot be registered, and leaves no entry behind. */
  @Test
  void aRegistrationOfAMissingRegionLeavesNoEntry() throws Exception {
    try (ComputeRegistry r = registries.createOrOpen(dir.resolve("npu0.reg"), 0)) {
      Path missing = tmp.resolve("gone/region");
      assertThatThrownBy(
              () ->
                  r.register(
                      new RegistryMember(
                          9, "a", 1, 50, Priority.NORMAL, 0, java.util.Optional.of(missing))))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("quota region " + missing + " cannot be registered");
      assertThat(r.keys()).isEmpty();
      assertThat(writeSeq(dir.resolve("npu0.reg")) % 2).isZero();
    }
  }

  /**
   * An agent killed inside a write leaves write_seq odd; the next write restores the parity readers
   * rely on.
   */
  @Test
  void aWriteSeqLeftOddByAKilledAgentIsEvenAfterTheNextWrite() throws Exception {
    Path f = dir.resolve("npu1.reg");
    try (ComputeRegistry r = registries.createOrOpen(f, 1)) {
      r.register(new RegistryMember(1, "a", 1, 0, Priority.NORMAL));
      try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
        raf.seek(RegistryLayout.RH_WRITE_SEQ);
        raf.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(7).array());
      }
      r.register(new RegistryMember(2, "b", 1, 0, Priority.NORMAL));
      assertThat(writeSeq(f)).isEqualTo(10);
      r.unregister(2);
      assertThat(writeSeq(f)).isEqualTo(12);
    }
  }

  private static int writeSeq(Path f) throws IOException {
    return ByteBuffer.wrap(Files.readAllBytes(f))
        .order(ByteOrder.LITTLE_ENDIAN)
        .getInt(RegistryLayout.RH_WRITE_SEQ);
  }
}
