package io.vnpu.quota.region;

import static io.vnpu.quota.layout.RegionLayout.*;

import io.vnpu.quota.mapped.SharedMemory;
import java.io.IOException;
import java.nio.channels.FileLock;
import java.util.concurrent.locks.LockSupport;

/**
 * Memory admission from Java on the JVM's own slot, with exactly the C limiter's protocol (publish
 * pending, sum committed+pending over all slots, commit or roll back; docs/region-layout.md).
 * Thread-safe: the slot's counters have a single writer process, and concurrent threads of this JVM
 * only ever add and subtract atomically. A region whose account was claimed stays mapped after
 * {@link QuotaRegion#close()} until garbage collection, so a late admission on another thread never
 * touches unmapped memory.
 */
public final class MemoryAccount {
  /** Attempts before refusing, as in the C limiter (a refusal may come from a transient charge). */
  static final int ADMIT_ATTEMPTS = 4;

  private final QuotaRegion region;
  private final SharedMemory mem;
  private final int slot;
  private final FileLock slotLock;
  private final int deviceCount;

  private MemoryAccount(QuotaRegion region, SharedMemory mem, int slot, FileLock slotLock) {
    // fixed at creation and checked at open: read once, so admission takes no pin and a writer
    // changing the field later cannot widen the device range
    this.deviceCount = region.deviceCount();
    this.region = region;
    this.mem = mem;
    this.slot = slot;
    this.slotLock = slotLock;
  }

  static MemoryAccount claim(
      QuotaRegion region, SharedMemory mem, RegionLocks locks, ProcessIdentity me)
      throws IOException {
    for (int i = 0; i < REGION_SLOT_COUNT; i++) {
      int o = slotOff(i);
      if (mem.getInt(o + S_STATE) != SLOT_FREE) continue;
      FileLock l = locks.tryLock(lockSlot(i)); // lock before publishing: see docs "Slot ownership"
      if (l == null) continue;
      if (!mem.casInt(o + S_STATE, SLOT_FREE, SLOT_CLAIMING)) {
        l.release();
        continue;
      }
      mem.setInt(o + S_PID, me.pid());
      mem.setLong(o + S_STARTTIME, me.startTime());
      mem.setInt(o + S_HOST_PID, 0);
      mem.setInt(o + S_FLAGS, SLOTF_JAVA);
      mem.setLong(o + S_CLAIMED_NS, System.currentTimeMillis() * 1_000_000L);
      for (int d = 0; d < REGION_MAX_DEVICES; d++) {
        mem.setLong(o + S_USED_BYTES + 8 * d, 0);
        mem.setLong(o + S_PENDING_BYTES + 8 * d, 0);
      }
      mem.setLong(o + S_LAUNCHES, 0);
      mem.setLong(o + S_BUSY_NS, 0);
      mem.addLong(o + S_GENERATION, 1);
      for (int cur = mem.getInt(H_SLOT_HWM); cur < i + 1; cur = mem.getInt(H_SLOT_HWM)) {
        if (mem.casInt(H_SLOT_HWM, cur, i + 1)) break;
      }
      mem.setInt(o + S_STATE, SLOT_ACTIVE);
      return new MemoryAccount(region, mem, i, l);
    }
    return null;
  }

  /** Index of the slot this JVM owns. */
  public int slot() {
    return slot;
  }

  /**
   * Charges {@code bytes} on logical device {@code dev} if its limit allows.
   *
   * @return true if charged, false if over quota (the C limiter returns 207001 in that case)
   * @throws IllegalArgumentException for a device outside the region or negative bytes
   */
  public boolean admit(int dev, long bytes) throws IOException {
    checkDevice(dev, bytes);
    int own = slotOff(slot) + S_USED_BYTES + 8 * dev;
    int pending = slotOff(slot) + S_PENDING_BYTES + 8 * dev;
    int state = devStateOff(dev);
    long limit = mem.getLong(devCfgOff(dev) + DC_MEM_LIMIT);
    boolean enforce = (mem.getInt(H_POLICY_FLAGS) & POLICY_MEM_ENFORCE) != 0 && limit != 0;
    if (!enforce) {
      mem.addLong(own, bytes);
      mem.addLong(state + DS_ADMISSIONS, 1);
      return true;
    }
    if (Long.compareUnsigned(bytes, limit) > 0) {
      mem.addLong(state + DS_OOM_REJECTIONS, 1);
      return false;
    }
    for (int attempt = 0; attempt < ADMIT_ATTEMPTS; attempt++) {
      mem.addLong(pending, bytes);
      long sum = region.claimedBytes(dev);
      if (Long.compareUnsigned(sum, limit) <= 0) {
        mem.addLong(state + DS_COMMIT_SEQ, 1);
        mem.addLong(own, bytes);
        mem.addLong(pending, -bytes);
        // what is in use now is at most the verified sum: only a sum above the peak can raise it,
        // so the usual admission (peak already higher) skips the second slot scan
        long peak = mem.getLong(state + DS_PEAK_BYTES);
        if (Long.compareUnsigned(peak, sum) < 0) {
          // the slot scan is not atomic (a release read late plus the admission it allowed read
          // early can add up past the limit for no instant at all): the verified sum bounds it
          long scanned = region.usedBytes(dev);
          long used = Long.compareUnsigned(scanned, sum) < 0 ? scanned : sum;
          for (;
              Long.compareUnsigned(peak, used) < 0
                  && !mem.casLong(state + DS_PEAK_BYTES, peak, used);
              peak = mem.getLong(state + DS_PEAK_BYTES)) {
            // raise the peak
          }
        }
        mem.addLong(state + DS_ADMISSIONS, 1);
        return true;
      }
      mem.addLong(pending, -bytes);
      limit = mem.getLong(devCfgOff(dev) + DC_MEM_LIMIT);
      if (region.reap() > 0) continue;
      if (attempt + 1 < ADMIT_ATTEMPTS) LockSupport.parkNanos(50_000L * (attempt + 1));
    }
    mem.addLong(state + DS_OOM_REJECTIONS, 1);
    return false;
  }

  /** Uncharges {@code bytes} on {@code dev}, never below zero. */
  public void release(int dev, long bytes) {
    checkDevice(dev, bytes);
    int own = slotOff(slot) + S_USED_BYTES + 8 * dev;
    for (; ; ) {
      long cur = mem.getLong(own);
      long next = Long.compareUnsigned(cur, bytes) >= 0 ? cur - bytes : 0;
      if (mem.casLong(own, cur, next)) return;
    }
  }

  /** Bytes this JVM has charged on {@code dev}. */
  public long chargedBytes(int dev) {
    checkDevice(dev, 0);
    return mem.getLong(slotOff(slot) + S_USED_BYTES + 8 * dev);
  }

  private void checkDevice(int dev, long bytes) {
    if (dev < 0 || dev >= deviceCount) {
      throw new IllegalArgumentException(
          "quota region " + region.file() + ": device " + dev + " outside 0.." + (deviceCount - 1));
    }
    if (bytes < 0) throw new IllegalArgumentException("bytes must be >= 0: " + bytes);
  }

  /** Frees the slot: zero charges, FREE, then drop the lock (in this order, so no reaper races). */
  void retire() throws IOException {
    int o = slotOff(slot);
    mem.setInt(o + S_STATE, SLOT_REAPING);
    for (int d = 0; d < REGION_MAX_DEVICES; d++) {
      mem.setLong(o + S_PENDING_BYTES + 8 * d, 0);
      mem.setLong(o + S_USED_BYTES + 8 * d, 0);
    }
    mem.setInt(o + S_STATE, SLOT_FREE);
    slotLock.release();
  }
}
