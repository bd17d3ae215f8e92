package io.vnpu.quota.region;

import static io.vnpu.api.model.Units.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.UsageSnapshot;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tenant writes what it likes into its own region (issue 23: it may hurt itself, never the
 * agent): every reader the agent uses either reports clamped figures that agree with the words the
 * C limiter would act on, or throws the per-slice {@link RegionBusyException} / {@link
 * RegionFormatException}; nothing else escapes.
 */
class HostileRegionTest {
  @TempDir Path dir;
  private final QuotaRegions regions = new QuotaRegions();

  private static MappedByteBuffer map(FileChannel ch) throws IOException {
    MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, RegionLayout.REGION_FILE_BYTES);
    m.order(ByteOrder.LITTLE_ENDIAN);
    return m;
  }

  /** Random words in the device state, the slots, the slot high-water mark and the device count. */
  @Test
  void garbageInEveryCounterIsAClampedFigureOrAPerSliceError() throws Exception {
    Path file = dir.resolve("r");
    regions.create(file, RegionConfig.memoryLimit(2, 100 * MIB)).close();
    SplittableRandom rnd = new SplittableRandom(23);
    try (FileChannel ch =
            FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        QuotaRegion r = regions.open(file)) {
      MappedByteBuffer m = map(ch);
      UsageBuffer b = new UsageBuffer();
      for (int round = 0; round < 300; round++) {
        for (int o = RegionLayout.DEVSTATE_OFF; o < RegionLayout.REGION_FILE_BYTES; o += 8) {
          long w;
          switch (rnd.nextInt(4)) {
            case 0 -> w = 0;
            case 1 -> w = rnd.nextLong();
            case 2 -> w = rnd.nextLong(1L << 40);
            default -> w = -1L - rnd.nextInt(3);
          }
          m.putLong(o, w);
        }
        for (int i = 0; i < RegionLayout.REGION_SLOT_COUNT; i++)
          if (rnd.nextBoolean()) m.putInt(RegionLayout.slotOff(i), rnd.nextInt(6) - 1);
        int[] hwms = {-1, Integer.MIN_VALUE, 0, 1, 255, 256, 257, Integer.MAX_VALUE};
        m.putInt(RegionLayout.H_SLOT_HWM, hwms[rnd.nextInt(hwms.length)]);
        int[] devs = {-1, 0, 1, 2, 3, 16, 17, Integer.MAX_VALUE};
        m.putInt(RegionLayout.H_DEVICE_COUNT, devs[rnd.nextInt(devs.length)]);

        try {
          r.usage(b);
        } catch (RegionBusyException | RegionFormatException e) {
          assertThat(e.getMessage()).contains(file.toString());
          continue;
        }
        int scanned = cScanBound(m.getInt(RegionLayout.H_SLOT_HWM));
        assertThat(b.deviceCount()).isBetween(1, RegionLayout.REGION_MAX_DEVICES);
        assertThat(b.processCount()).isBetween(0, scanned);
        for (int d = 0; d < b.deviceCount(); d++) {
          assertThat(b.usedBytes(d))
              .as("round %d device %d: the sum over the slots the C limiter scans", round, d)
              .isEqualTo(saturatingSum(m, d, scanned));
          assertThat(b.limitBytes(d)).isNotNegative();
          assertThat(b.peakBytes(d)).isNotNegative();
          assertThat(b.oomRejections(d)).isNotNegative();
          for (int p = 0; p < b.processCount(); p++)
            assertThat(b.processUsedBytes(p, d))
                .isNotNegative()
                .isLessThanOrEqualTo(b.usedBytes(d));
        }
        UsageSnapshot s = b.toSnapshot();
        assertThat(s.processes()).hasSize(b.processCount());
        for (int d = 0; d < b.deviceCount(); d++) {
          assertThat(r.computeCounters(d).launches()).isNotNegative();
        }
        assertThat(r.processComputeCounters().size()).isLessThanOrEqualTo(scanned);
      }
    }
  }

  /**
   * The slot high-water mark is a u32 (the C limiter scans min(hwm, 256) slots, so a word at or
   * above 2^31 means all of them): Java must read the same slots, or a tenant's bytes charged by C
   * vanish from the agent's figures and a Java admitter scans fewer slots than a C one.
   */
  @Test
  void aHighWaterMarkAbove2To31ScansEverySlotAsInC() throws Exception {
    Path file = dir.resolve("r");
    regions.create(file, RegionConfig.memoryLimit(1, 100 * MIB)).close();
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer m = map(ch);
      int o = RegionLayout.slotOff(7);
      m.putLong(o + RegionLayout.S_USED_BYTES, 90 * MIB);
      m.putInt(o + RegionLayout.S_STATE, RegionLayout.SLOT_ACTIVE);
      m.putInt(RegionLayout.H_SLOT_HWM, -1);
      m.force();
    }
    try (QuotaRegion r = regions.open(file)) {
      UsageBuffer b = new UsageBuffer();
      r.usage(b);
      assertThat(b.usedBytes(0)).isEqualTo(90 * MIB);
      assertThat(b.processCount()).isEqualTo(1);
      MemoryAccount a = r.memoryAccount();
      assertThat(a.slot()).isZero();
      try (FileChannel ch =
          FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        assertThat(map(ch).getInt(RegionLayout.H_SLOT_HWM))
            .as("a claim never lowers the mark C reads as 'every slot'")
            .isEqualTo(-1);
      }
    }
  }

  /**
   * On an unlimited device the C limiter refuses a charge that would wrap its slot's u64 counter (a
   * limit set later must see the true usage, a release must never be clamped); Java's admission
   * takes the same policy.
   */
  @Test
  void anUnlimitedChargeThatWouldWrapTheCounterIsRefusedAsInC() throws Exception {
    try (QuotaRegion r = regions.create(dir.resolve("r"), RegionConfig.memoryLimit(1, 0))) {
      MemoryAccount a = r.memoryAccount();
      assertThat(a.admit(0, Long.MAX_VALUE)).isTrue();
      assertThat(a.admit(0, Long.MAX_VALUE)).isTrue(); // 2^64 - 2: still a u64
      assertThat(a.admit(0, 2)).as("2^64 does not fit a u64").isFalse();
      assertThat(a.chargedBytes(0)).isEqualTo(-2L);
      assertThat(a.admit(0, 1)).isTrue();
      a.release(0, Long.MAX_VALUE);
      a.release(0, Long.MAX_VALUE);
      assertThat(a.chargedBytes(0)).isEqualTo(1);
      assertThat(r.usage().devices().get(0).oomRejections()).isEqualTo(1);
    }
  }

  /** How many slots the C limiter scans for a high-water mark word (region.c: a u32, capped). */
  private static int cScanBound(int hwm) {
    return Integer.compareUnsigned(hwm, RegionLayout.REGION_SLOT_COUNT) > 0
        ? RegionLayout.REGION_SLOT_COUNT
        : hwm;
  }

  private static long saturatingSum(MappedByteBuffer m, int d, int slots) {
    long sum = 0;
    for (int i = 0; i < slots; i++) {
      long u = m.getLong(RegionLayout.slotOff(i) + RegionLayout.S_USED_BYTES + 8 * d);
      long s = sum + u;
      sum = Long.compareUnsigned(s, sum) < 0 ? -1L : s;
    }
    return sum < 0 ? Long.MAX_VALUE : sum;
  }
}
