package io.vnpu.quota.region;

import static io.vnpu.api.model.Units.MIB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.DeviceUsage;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.SlotState;
import io.vnpu.quota.model.UsageSnapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuotaRegionTest {
  @TempDir Path dir;
  private final QuotaRegions regions = new QuotaRegions();

  private static RegionConfig twoDevices() {
    return new RegionConfig(
        List.of(
            new DeviceQuota(100 * MIB, 30, 0, Priority.NORMAL, 3, "GPU-uuid-0"),
            new DeviceQuota(200 * MIB, 70, 50, Priority.HIGH, 5, "GPU-uuid-1")),
        Set.of(PolicyFlag.MEM_ENFORCE, PolicyFlag.COMPUTE_ENFORCE),
        "/hami-shared-region");
  }

  private static void patch(Path file, long offset, byte[] bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(bytes), offset);
    }
  }

  @Test
  void createThenReadConfigRoundTrips() throws Exception {
    Path f = dir.resolve("r");
    try (QuotaRegion r = regions.create(f, twoDevices())) {
      assertThat(r.readConfig()).isEqualTo(twoDevices());
      assertThat(r.deviceCount()).isEqualTo(2);
      // minor 1: compute statistics (issue 12); 2: blocked_ns (issue 23); 3: sized_by (issue 28);
      // 4: admissions counted by commit_seq only (issue 29)
      assertThat(r.versionMinor()).isEqualTo(4);
      assertThat(r.unhookedLaunchEntryPoints()).isZero(); // nothing reported until a limiter ran
      // what the limiter writes when the runtime exports launch entry points it does not hook
      try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(f.toFile(), "rw")) {
        raf.seek(RegionLayout.H_UNHOOKED_LAUNCHES);
        raf.write(new byte[] {3, 0, 0, 0});
      }
      assertThat(r.unhookedLaunchEntryPoints()).isEqualTo(3);
    }
    assertThat(Files.size(f)).isEqualTo(RegionLayout.REGION_FILE_BYTES);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-rw-rw-");
    try (QuotaRegion r = regions.open(f)) {
      assertThat(r.readConfig()).isEqualTo(twoDevices());
    }
  }

  @Test
  void createRefusesAnExistingFileAndNeverOverwritesIt() throws Exception {
    Path f = dir.resolve("r");
    regions.create(f, twoDevices()).close();
    assertThatThrownBy(() -> regions.create(f, twoDevices()))
        .isInstanceOf(FileAlreadyExistsException.class);
    Path junk = dir.resolve("junk");
    byte[] content = new byte[8192];
    java.util.Arrays.fill(content, (byte) 'x');
    Files.write(junk, content);
    assertThatThrownBy(() -> regions.create(junk, twoDevices()))
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining(junk.toString());
    assertThat(Files.readAllBytes(junk)).isEqualTo(content);
  }

  // an empty file or a link (even dangling) under the region's name is never truncated or chmod-ed
  @Test
  void createIsExclusiveAndNeverFollowsLinks() throws Exception {
    Path empty = dir.resolve("empty");
    Files.createFile(empty);
    Files.setPosixFilePermissions(
        empty, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    assertThatThrownBy(() -> regions.create(empty, twoDevices()))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(Files.size(empty)).isZero();
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(empty)))
        .isEqualTo("rw-------");

    Path target = dir.resolve("victim");
    Path link = dir.resolve("link");
    Files.createSymbolicLink(link, target);
    assertThatThrownBy(() -> regions.create(link, twoDevices()))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(target).doesNotExist();
    assertThat(Files.isSymbolicLink(link)).isTrue();

    Path made = dir.resolve("made");
    regions.create(made, twoDevices()).close();
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(made)))
        .isEqualTo("rw-rw-rw-");
  }

  @Test
  void openRejectsBadFilesWithFileAndField() throws Exception {
    assertThatThrownBy(() -> regions.open(dir.resolve("none")))
        .isInstanceOf(NoSuchFileException.class);

    Path magic = dir.resolve("magic");
    regions.create(magic, twoDevices()).close();
    patch(magic, 0, "NOTVNPU!".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThatThrownBy(() -> regions.open(magic))
        .isInstanceOfSatisfying(
            RegionFormatException.class,
            e -> {
              assertThat(e.field()).isEqualTo("magic");
              assertThat(e.file()).isEqualTo(magic);
            })
        .hasMessageContaining(magic.toString());

    Path major = dir.resolve("major");
    regions.create(major, twoDevices()).close();
    patch(major, RegionLayout.H_MAJOR, new byte[] {2, 0});
    assertThatThrownBy(() -> regions.open(major))
        .isInstanceOf(RegionFormatException.class)
        .hasMessage("quota region " + major + ": field version_major = 2, expected 1");

    Path small = dir.resolve("small");
    regions.create(small, twoDevices()).close();
    try (FileChannel ch = FileChannel.open(small, StandardOpenOption.WRITE)) {
      ch.truncate(8192);
    }
    assertThatThrownBy(() -> regions.open(small))
        .isInstanceOf(RegionFormatException.class)
        .hasMessage(
            "quota region " + small + ": field file size = 8192, expected >= file_bytes 139264");

    Path tiny = dir.resolve("tiny");
    Files.write(tiny, new byte[100]);
    assertThatThrownBy(() -> regions.open(tiny))
        .isInstanceOf(RegionFormatException.class)
        .hasMessageContaining("field file size = 100");

    Path empty = dir.resolve("empty");
    Files.write(empty, new byte[RegionLayout.REGION_FILE_BYTES]);
    assertThatThrownBy(() -> regions.open(empty))
        .isInstanceOf(RegionFormatException.class)
        .hasMessageContaining("field magic = 0x0000000000000000");

    Path devs = dir.resolve("devs");
    regions.create(devs, twoDevices()).close();
    patch(
        devs,
        RegionLayout.H_DEVICE_COUNT,
        ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 17).array());
    assertThatThrownBy(() -> regions.open(devs))
        .isInstanceOf(RegionFormatException.class)
        .hasMessage("quota region " + devs + ": field device_count = 17, expected 1..16");
  }

  @Test
  @SuppressWarnings("try") // the region only needs to be open while the second open is tried
  void aFileIsOpenAtMostOncePerRegistry() throws Exception {
    Path f = dir.resolve("r");
    try (QuotaRegion r = regions.create(f, twoDevices())) {
      assertThatThrownBy(() -> regions.open(f))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(f.toString());
    }
    regions.open(f).close();
  }

  @Test
  void admissionIsExactPerDeviceWithoutAggregation() throws Exception {
    try (QuotaRegion r = regions.create(dir.resolve("r"), twoDevices())) {
      MemoryAccount a = r.memoryAccount();
      assertThat(a.admit(0, 60 * MIB)).isTrue();
      assertThat(a.admit(0, 40 * MIB)).isTrue();
      assertThat(a.admit(0, 1)).isFalse();
      assertThat(a.admit(1, 200 * MIB)).isTrue();
      assertThat(a.admit(1, 1)).isFalse();
      a.release(0, 40 * MIB);
      assertThat(a.admit(0, 1)).isTrue();
      UsageSnapshot s = r.usage();
      assertThat(s.devices())
          .containsExactly(
              new DeviceUsage(0, 60 * MIB + 1, 100 * MIB, 100 * MIB, 1, 0, 0, 3),
              new DeviceUsage(1, 200 * MIB, 200 * MIB, 200 * MIB, 1, 0, 0, 1));
      assertThat(s.processes()).hasSize(1);
      assertThat(s.processes().get(0).pid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(s.processes().get(0).java()).isTrue();
      assertThat(s.processes().get(0).state()).isEqualTo(SlotState.ACTIVE);
      assertThat(s.processes().get(0).usedBytes()).containsExactly(60 * MIB + 1, 200 * MIB);
      assertThat(s.processes().get(0).startTime()).isPositive();
      a.release(1, 500 * MIB); // more than charged: clamps at zero, never wraps
      assertThat(r.usage().devices().get(1).usedBytes()).isZero();
      assertThatThrownBy(() -> a.admit(2, 1)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void computeCountersPerDeviceAndPerProcessSlot() throws Exception {
    Path file = dir.resolve("r");
    try (QuotaRegion r = regions.create(file, twoDevices())) {
      assertThat(r.computeCounters(0)).isEqualTo(io.vnpu.quota.model.ComputeCounters.ZERO);
      r.memoryAccount().admit(0, 1); // claims a slot for this JVM
      int slot = r.usage().processes().get(0).slot();
      ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      patch(
          file,
          RegionLayout.devStateOff(1) + RegionLayout.DS_LAUNCHES,
          b.putLong(0, 300).array().clone());
      patch(
          file,
          RegionLayout.devStateOff(1) + RegionLayout.DS_BUSY_NS,
          b.putLong(0, 7_000_000L).array().clone());
      patch(
          file,
          RegionLayout.slotOff(slot) + RegionLayout.S_LAUNCHES,
          b.putLong(0, 12).array().clone());
      patch(
          file,
          RegionLayout.slotOff(slot) + RegionLayout.S_BUSY_NS,
          b.putLong(0, -5).array().clone());
      assertThat(r.computeCounters(1))
          .isEqualTo(new io.vnpu.quota.model.ComputeCounters(300, 7_000_000L));
      // a negative value from a broken writer reads as 0
      assertThat(r.processComputeCounters())
          .containsExactly(
              java.util.Map.entry(slot, new io.vnpu.quota.model.ComputeCounters(12, 0)));
      assertThatThrownBy(() -> r.computeCounters(2))
          .hasMessageContaining("device 2 is not in 0..1");
    }
  }

  @Test
  void configUpdatesApplyToTheNextAdmissionAndLoweringBelowUsageNeverWraps() throws Exception {
    try (QuotaRegion r = regions.create(dir.resolve("r"), twoDevices())) {
      MemoryAccount a = r.memoryAccount();
      assertThat(a.admit(0, 80 * MIB)).isTrue();
      RegionConfig lower =
          twoDevices()
              .withDevices(
                  List.of(DeviceQuota.memoryOnly(50 * MIB), DeviceQuota.memoryOnly(200 * MIB)));
      r.updateConfig(lower);
      assertThat(r.readConfig()).isEqualTo(lower);
      assertThat(a.admit(0, 1)).isFalse();
      DeviceUsage d0 = r.usage().devices().get(0);
      assertThat(d0.usedBytes()).isEqualTo(80 * MIB);
      assertThat(d0.limitBytes()).isEqualTo(50 * MIB);
      RegionConfig off = new RegionConfig(lower.devices(), Set.of(), "");
      r.updateConfig(off);
      assertThat(a.admit(0, 1000 * MIB)).isTrue(); // not enforced: charged, never refused
      assertThatThrownBy(() -> r.updateConfig(RegionConfig.memoryLimit(3, MIB)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("device count is 2, config has 3");
    }
  }

  @Test
  void closingFreesTheJvmSlot() throws Exception {
    Path f = dir.resolve("r");
    try (QuotaRegion r = regions.create(f, twoDevices())) {
      assertThat(r.memoryAccount().admit(0, 10 * MIB)).isTrue();
    }
    try (QuotaRegion r = regions.open(f)) {
      assertThat(r.usage().processes()).isEmpty();
      assertThat(r.usage().devices().get(0).usedBytes()).isZero();
    }
  }

  @Test
  void configValidationNamesTheValue() {
    assertThatThrownBy(() -> new DeviceQuota(-1, 1, 0, Priority.NORMAL, -1, ""))
        .hasMessage("memLimitBytes must be >= 0 bytes: -1");
    assertThatThrownBy(() -> new DeviceQuota(0, 0, 0, Priority.NORMAL, -1, ""))
        .hasMessage("computeWeight must be in 1..10000: 0");
    assertThatThrownBy(() -> new DeviceQuota(0, 1, 101, Priority.NORMAL, -1, ""))
        .hasMessage("computeCapPct must be in 0..100: 101");
    assertThatThrownBy(() -> RegionConfig.memoryLimit(17, 1))
        .hasMessage("devices must hold 1..16 entries: 17");
    assertThat(PolicyFlag.decode(0xFF)).containsExactlyInAnyOrder(PolicyFlag.values());
    assertThat(PolicyFlag.encode(Set.of(PolicyFlag.MEM_ENFORCE, PolicyFlag.HARD_CAP))).isEqualTo(9);
  }

  // a hostile writer of the mapped file: bad encodings are the documented format exception
  @Test
  void hostileBytesInAnOpenRegionAreAFormatException() throws Exception {
    Path f = dir.resolve("r");
    try (QuotaRegion r = regions.create(f, twoDevices())) {
      patch(f, RegionLayout.devCfgOff(1) + RegionLayout.DC_UUID + 2, new byte[] {(byte) 0xe9});
      assertThatThrownBy(r::readConfig)
          .isInstanceOf(RegionFormatException.class)
          .hasMessage(
              "quota region "
                  + f
                  + ": field devices[1].uuid = byte 0xe9 at 2, expected printable ASCII");
      patch(f, RegionLayout.devCfgOff(1) + RegionLayout.DC_UUID + 2, new byte[] {'u'});
      patch(f, RegionLayout.H_REGISTRY_DIR + 1, new byte[] {(byte) 0xc3, (byte) 0x28});
      assertThatThrownBy(r::readConfig)
          .isInstanceOf(RegionFormatException.class)
          .hasMessage(
              "quota region " + f + ": field registry_dir = invalid UTF-8, expected a UTF-8 path");
      patch(f, RegionLayout.H_REGISTRY_DIR + 1, new byte[] {'a', 'b'});
      patch(
          f,
          RegionLayout.H_POLICY_FLAGS,
          ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0x73).array());
      assertThatThrownBy(r::readConfig)
          .isInstanceOf(RegionFormatException.class)
          .hasMessage(
              "quota region "
                  + f
                  + ": field policy_flags = 0x73, expected at most one sharing-policy bit of 0x70");
      patch(
          f,
          RegionLayout.H_POLICY_FLAGS,
          ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0x23).array());
      assertThat(r.readConfig().sharingPolicy()).isPresent();
      patch(
          f,
          RegionLayout.H_DEVICE_COUNT,
          ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, -7).array());
      assertThat(r.deviceCount()).isEqualTo(1);
      assertThat(r.usage().devices()).hasSize(1);
    }
  }

  // the JVM reports a fault on a truncated mapping as InternalError, which escaped every catch
  @Test
  void regionTruncatedWhileMappedIsAFormatExceptionNotAnInternalError() throws Exception {
    Path f = dir.resolve("r");
    try (QuotaRegion r = regions.create(f, twoDevices())) {
      try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
        ch.truncate(0);
      }
      assertThatThrownBy(r::readConfig)
          .isInstanceOf(RegionFormatException.class)
          .hasMessage(
              "quota region "
                  + f
                  + ": field file size = truncated while mapped, expected >= "
                  + RegionLayout.REGION_FILE_BYTES
                  + " bytes");
      assertThatThrownBy(r::usage).isInstanceOf(RegionFormatException.class);
    }
  }

  private static long mappingsOf(Path dir) throws IOException {
    return Files.readAllLines(Path.of("/proc/self/maps")).stream()
        .filter(l -> l.contains(dir.toString()))
        .count();
  }

  // mappings were left to the garbage collector (1,884 alive after 3,000 creates): close unmaps now
  @Test
  void closeUnmapsAtOnceAndLaterCallsFailCleanly() throws Exception {
    Path f = dir.resolve("r");
    QuotaRegion r = regions.create(f, twoDevices());
    assertThat(r.readConfig()).isEqualTo(twoDevices());
    assertThat(mappingsOf(dir)).isEqualTo(1);
    r.close();
    assertThat(mappingsOf(dir)).isZero();
    assertThatThrownBy(r::readConfig)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(r::usage).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(r::deviceCount).isInstanceOf(IllegalStateException.class);

    // with a memory account, admissions take no pin: the mapping stays until GC, a late one is
    // harmless
    Path withAccountFile = dir.resolve("with-account");
    QuotaRegion withAccount = regions.create(withAccountFile, twoDevices());
    MemoryAccount a = withAccount.memoryAccount();
    assertThat(a.admit(0, MIB)).isTrue();
    withAccount.close();
    a.release(0, MIB);

    for (int i = 0; i < 300; i++) {
      Path g = dir.resolve("many-" + i);
      regions.create(g, twoDevices()).close();
      Files.delete(g);
    }
    assertThat(mappingsOf(dir.resolve("many-"))).isZero();
  }
}
