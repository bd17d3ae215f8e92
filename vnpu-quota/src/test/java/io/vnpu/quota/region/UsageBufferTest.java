package io.vnpu.quota.region;

import static io.vnpu.api.model.Units.MIB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.quota.model.RegionConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link QuotaRegion#usage(UsageBuffer)}: the primitive read equals the records and allocates nothing. */
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
    }
  }

  @Test
  void readingIntoABufferAllocatesNothing() throws Exception {
    com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
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
