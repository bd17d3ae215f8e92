package io.vnpu.quota.region;

import static io.vnpu.api.model.Units.MIB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.model.RegionConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link QuotaRegion#usage(UsageBuffer)}: the primitive read equals the records and allocates
 * nothing.
 */
class UsageBufferTest {
  @TempDir Path dir;
  private final QuotaRegions regions = new QuotaRegions();

  @Test
  void theBufferHoldsWhatTheSnapshotShows() throws Exception {
    try (QuotaRegion r = regions.create(dir.resolve("r"), RegionConfig.memoryLimit(2, 100 * MIB))) {
      MemoryAccount a = r.memoryAccount();
      assertThat(a.admit(0, 60 * MIB)).isTrue();
      assertThat(a.admit(1, 30 * MIB)).isTrue();
      assertThat(a.admit(1, 80 * MIB)).isFalse();
      UsageBuffer b = new UsageBuffer();
      r.usage(b);

      assertThat(b.deviceCount()).isEqualTo(2);
      assertThat(b.usedBytes(0)).isEqualTo(60 * MIB);
      assertThat(b.usedBytes(1)).isEqualTo(30 * MIB);
      assertThat(b.limitBytes(1)).isEqualTo(100 * MIB);
      assertThat(b.oomRejections(1)).isEqualTo(1);
      assertThat(b.processCount()).isEqualTo(1);
      assertThat(b.pid(0)).isEqualTo((int) ProcessHandle.current().pid());
      assertThat(b.processUsedBytes(0, 1)).isEqualTo(30 * MIB);
      assertThat(b.toSnapshot()).isEqualTo(r.usage());
      assertThatThrownBy(() -> b.usedBytes(2)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> b.pid(1)).isInstanceOf(IndexOutOfBoundsException.class);

      a.release(0, 60 * MIB);
      r.usage(b); // reused: the second read replaces the first
      assertThat(b.usedBytes(0)).isZero();
      assertThat(b.processUsedBytes(0, 0)).isZero();
      assertThat(b.peakBytes(0)).as("the peak stays").isEqualTo(60 * MIB);
      assertThat(a.admit(0, 10 * MIB)).isTrue(); // below the peak: not raised
      assertThat(a.admit(0, 55 * MIB)).isTrue(); // 65 MiB in use: raised
      r.usage(b);
      assertThat(b.peakBytes(0)).isEqualTo(65 * MIB);
    }
  }

  /**
   * Slots as limiter processes (or a hostile tenant) left them, three devices: sums over every slot
   * below the high-water mark (free ones too, as admission counts them), saturating at {@code
   * Long.MAX_VALUE}; per-process bytes clamped; the third device through its own pass.
   */
  @Test
  void sumsEverySlotOnEveryDeviceAndSaturates() throws Exception {
    Path file = dir.resolve("r");
    regions.create(file, RegionConfig.memoryLimit(3, 100 * MIB)).close();
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(
            file, java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
      java.nio.MappedByteBuffer m =
          ch.map(
              java.nio.channels.FileChannel.MapMode.READ_WRITE,
              0,
              io.vnpu.quota.layout.RegionLayout.REGION_FILE_BYTES);
      m.order(java.nio.ByteOrder.LITTLE_ENDIAN);
      long[][] used = {
        {5 * MIB, 7, 1L << 62},
        {3 * MIB, 11, 1L << 62}, // device 2: 2^63 in all -> saturated
        {2 * MIB, 13, -1L}, // a FREE slot's bytes still count (as in admission)
        {1L << 40, 17, 0}
      };
      int[] states = {
        io.vnpu.quota.layout.RegionLayout.SLOT_ACTIVE,
        io.vnpu.quota.layout.RegionLayout.SLOT_ACTIVE,
        io.vnpu.quota.layout.RegionLayout.SLOT_FREE,
        io.vnpu.quota.layout.RegionLayout.SLOT_ACTIVE
      };
      for (int i = 0; i < used.length; i++) {
        int o = io.vnpu.quota.layout.RegionLayout.slotOff(i);
        m.putInt(o + io.vnpu.quota.layout.RegionLayout.S_PID, 1000 + i);
        for (int d = 0; d < 3; d++)
          m.putLong(o + io.vnpu.quota.layout.RegionLayout.S_USED_BYTES + 8 * d, used[i][d]);
        m.putInt(o + io.vnpu.quota.layout.RegionLayout.S_STATE, states[i]);
      }
      m.putInt(io.vnpu.quota.layout.RegionLayout.H_SLOT_HWM, used.length);
      m.force();
    }
    try (QuotaRegion r = regions.open(file)) {
      UsageBuffer b = new UsageBuffer();
      r.usage(b);
      assertThat(b.processCount()).isEqualTo(3);
      assertThat(b.usedBytes(0)).isEqualTo(10 * MIB + (1L << 40));
      assertThat(b.usedBytes(1)).isEqualTo(7 + 11 + 13 + 17);
      assertThat(b.usedBytes(2)).isEqualTo(Long.MAX_VALUE);
      assertThat(b.pid(2)).isEqualTo(1003);
      assertThat(b.processUsedBytes(0, 2)).isEqualTo(1L << 62);
      assertThat(b.processUsedBytes(2, 0)).isEqualTo(1L << 40);
      assertThat(b.processUsedBytes(2, 1)).isEqualTo(17);
      assertThat(b.processUsedBytes(1, 1)).isEqualTo(11);
      assertThat(b.toSnapshot()).isEqualTo(r.usage());
    }
  }

  /**
   * Writes slots as limiter processes (or a hostile tenant) would: bytes per device, state, pid.
   */
  private static void writeSlots(Path file, long[][] used, int[] states)
      throws java.io.IOException {
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(
            file, java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
      java.nio.MappedByteBuffer m =
          ch.map(
              java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, RegionLayout.REGION_FILE_BYTES);
      m.order(java.nio.ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < used.length; i++) {
        int o = RegionLayout.slotOff(i);
        m.putInt(o + RegionLayout.S_PID, 1000 + i);
        m.putInt(o + RegionLayout.S_FLAGS, i % 2 == 0 ? RegionLayout.SLOTF_JAVA : 0);
        for (int d = 0; d < used[i].length; d++)
          m.putLong(o + RegionLayout.S_USED_BYTES + 8 * d, used[i][d]);
        m.putInt(o + RegionLayout.S_STATE, states[i]);
      }
      m.putInt(RegionLayout.H_SLOT_HWM, used.length);
      m.force();
    }
  }

  /**
   * The sums are plain while every addend is below 2^55 (256 of them cannot reach 2^63) and redone
   * saturating otherwise: exact on both sides of that bound, saturated only past 2^63 - 1.
   */
  @Test
  void sumsAreExactOnBothSidesOfThePlainSumBound() throws Exception {
    Path file = dir.resolve("r");
    regions.create(file, RegionConfig.memoryLimit(3, 100 * MIB)).close();
    long below = (1L << 55) - 1;
    long[][] used = new long[RegionLayout.REGION_SLOT_COUNT][];
    int[] states = new int[used.length];
    for (int i = 0; i < used.length; i++) {
      // device 0: 256 addends just below the bound; device 1: one at the bound, the rest 1;
      // device 2: two halves of 2^63 -> saturated
      used[i] = new long[] {below, i == 7 ? 1L << 55 : 1, i < 2 ? 1L << 62 : 0};
      states[i] = i % 3 == 0 ? RegionLayout.SLOT_FREE : RegionLayout.SLOT_ACTIVE;
    }
    writeSlots(file, used, states);
    try (QuotaRegion r = regions.open(file)) {
      UsageBuffer b = new UsageBuffer();
      r.usage(b);
      assertThat(b.usedBytes(0)).isEqualTo(256 * below);
      assertThat(b.usedBytes(1)).isEqualTo((1L << 55) + 255);
      assertThat(b.usedBytes(2)).isEqualTo(Long.MAX_VALUE);
      assertThat(b.processCount()).isEqualTo(256 - 86);
      assertThat(b.pid(0)).isEqualTo(1001);
      assertThat(b.processUsedBytes(0, 2)).isEqualTo(1L << 62);
      assertThat(b.toSnapshot()).isEqualTo(r.usage());
      assertThat(b.toSnapshot().processes().get(0).java()).isFalse();
      assertThat(b.toSnapshot().processes().get(1).java()).isTrue();
    }
  }

  /** A one-device region: what a writer left in device 1's field is neither summed nor listed. */
  @Test
  void aOneDeviceRegionIgnoresTheSecondDevicesField() throws Exception {
    Path file = dir.resolve("r");
    regions.create(file, RegionConfig.memoryLimit(1, 100 * MIB)).close();
    writeSlots(
        file,
        new long[][] {{3 * MIB, -1L}, {4 * MIB, 1L << 62}},
        new int[] {RegionLayout.SLOT_ACTIVE, RegionLayout.SLOT_CLAIMING});
    try (QuotaRegion r = regions.open(file)) {
      UsageBuffer b = new UsageBuffer();
      r.usage(b);
      assertThat(b.deviceCount()).isEqualTo(1);
      assertThat(b.usedBytes(0)).isEqualTo(7 * MIB);
      assertThat(b.processUsedBytes(1, 0)).isEqualTo(4 * MIB);
      assertThatThrownBy(() -> b.processUsedBytes(0, 1))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThat(b.toSnapshot().processes()).allSatisfy(p -> assertThat(p.usedBytes()).hasSize(1));
      assertThat(b.toSnapshot()).isEqualTo(r.usage());
    }
  }

  @Test
  void readingIntoABufferAllocatesNothing() throws Exception {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (QuotaRegion r = regions.create(dir.resolve("r"), RegionConfig.memoryLimit(2, 100 * MIB))) {
      r.memoryAccount().admit(0, MIB);
      UsageBuffer b = new UsageBuffer();
      for (int i = 0; i < 1_000; i++) r.usage(b); // past class loading and first compilations
      long tid = Thread.currentThread().getId();
      long before = mx.getThreadAllocatedBytes(tid);
      for (int i = 0; i < 1_000; i++) r.usage(b);
      long allocated = mx.getThreadAllocatedBytes(tid) - before;
      // the records path allocates well over 100 bytes per read; a few bytes of noise are tolerated
      assertThat(allocated).as("bytes allocated by 1000 reads").isLessThan(1_000);
    }
  }
}
