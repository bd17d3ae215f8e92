package io.vnpu.quota.region;

import static io.vnpu.quota.layout.RegionLayout.*;

import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.mapped.MappedFileFault;
import io.vnpu.quota.mapped.SharedMemory;
import io.vnpu.quota.mapped.UncheckedWords;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.channels.FileLock;
import java.util.concurrent.locks.LockSupport;

/**
 * Memory admission from Java on the JVM's own slot, with exactly the C limiter's protocol and
 * refusal policy (publish pending, sum committed+pending over all slots, commit or roll back;
 * docs/region-layout.md). Thread-safe: the slot's counters have a single writer process, and
 * concurrent threads of this JVM only ever add and subtract atomically. A region whose account was
 * claimed stays mapped after {@link QuotaRegion#close()} until garbage collection, so a late
 * admission on another thread never touches unmapped memory.
 */
public final class MemoryAccount {
  // the C limiter's bounds (native/limiter/region.c, region.h VNPU_ADMIT_CONTENDED_WAIT_NS)
  /** Immediate retries while only pending charges keep a request out. */
  static final int CONTENDED_TRIES = 256;

  /** Yields before the wait for pending charges sleeps. */
  static final int CONTENDED_YIELDS = 16;

  /** One sleep of the wait for pending charges. */
  static final long CONTENDED_SLEEP_NS = 20_000L;

  /** The whole wait of one admission for other admitters' pending charges, then it is refused. */
  static final long CONTENDED_WAIT_NS = 50_000_000L;

  private final QuotaRegion region;
  private final SharedMemory mem;
  private final int slot;
  private final FileLock slotLock;
  private final int deviceCount;

  /**
   * Address of the mapping's byte 0 ({@link SharedMemory#uncheckedBase()}): the region of a claimed
   * account is never unmapped before garbage collection ({@link QuotaRegion#close()}), and {@code
   * mem} keeps its buffer reachable.
   */
  private final long base;

  private MemoryAccount(
      QuotaRegion region, SharedMemory mem, long base, int slot, FileLock slotLock) {
    // fixed at creation and checked at open: read once, so admission takes no pin and a writer
    // changing the field later cannot widen the device range
    this.deviceCount = region.deviceCount();
    this.base = base;
    this.region = region;
    this.mem = mem;
    this.slot = slot;
    this.slotLock = slotLock;
  }

  static MemoryAccount claim(
      QuotaRegion region, SharedMemory mem, RegionLocks locks, ProcessIdentity me)
      throws IOException {
    // before any slot is touched: a JVM without the unchecked access fails here, claiming nothing
    long base = mem.uncheckedBase();
    if (mem.mappedBytes() < REGION_FILE_BYTES) {
      throw new IllegalStateException(
          "quota region "
              + region.file()
              + ": "
              + mem.mappedBytes()
              + " bytes mapped, the unchecked admission addresses need "
              + REGION_FILE_BYTES);
    }
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
      // unsigned, as in C: a word at or above 2^31 already covers every slot and is not lowered
      for (int cur = mem.getInt(H_SLOT_HWM);
          Integer.compareUnsigned(cur, i + 1) < 0;
          cur = mem.getInt(H_SLOT_HWM)) {
        if (mem.casInt(H_SLOT_HWM, cur, i + 1)) break;
      }
      mem.setInt(o + S_STATE, SLOT_ACTIVE);
      return new MemoryAccount(region, mem, base, i, l);
    }
    return null;
  }

  /** Index of the slot this JVM owns. */
  public int slot() {
    return slot;
  }

  /**
   * Charges {@code bytes} on logical device {@code dev} if its limit allows, with the C limiter's
   * refusal policy (docs/region-layout.md "Admission"): a request that does not fit beside the
   * committed bytes is refused at once (dead owners in the way reaped first); one that only other
   * admitters' pending charges keep out is retried, then waits for them for at most {@value
   * #CONTENDED_WAIT_NS} ns, and is refused if they are still in the way.
   *
   * @return true if charged, false if over quota (the C limiter returns 207001 in that case)
   * @throws IllegalArgumentException for a device outside the region or negative bytes
   */
  public boolean admit(int dev, long bytes) throws IOException {
    checkDevice(dev, bytes);
    try {
      return admitChecked(dev, bytes);
    } catch (InternalError e) {
      throw new MappedFileFault(region.file(), e);
    } finally {
      // the raw addresses below are only valid while the mapping's buffer is reachable
      Reference.reachabilityFence(mem);
    }
  }

  /**
   * {@link #admit} for a checked device: every address is {@code base} (held in a register across
   * the atomics, so none of them waits for a field load after the one before) plus an offset below
   * {@link RegionLayout#REGION_FILE_BYTES} built from {@code dev < deviceCount <= 16}, {@code slot
   * < 256} and {@code i < slot_hwm}, clamped to 256.
   */
  private boolean admitChecked(int dev, long bytes) throws IOException {
    final long a = base;
    final long own = a + slotOff(slot) + S_USED_BYTES + 8 * dev;
    final long pending = a + slotOff(slot) + S_PENDING_BYTES + 8 * dev;
    final long state = a + devStateOff(dev);
    final long limitAt = a + devCfgOff(dev) + DC_MEM_LIMIT;
    long limit = UncheckedWords.getLong(limitAt);
    boolean enforce =
        (UncheckedWords.getInt(a + H_POLICY_FLAGS) & POLICY_MEM_ENFORCE) != 0 && limit != 0;
    if (!enforce) {
      // unlimited, but counted exactly, as in C: a charge that would wrap the u64 counter is
      // refused (a limit set later must see the true usage, and a release must never be clamped)
      for (long cur = UncheckedWords.getLong(own); ; cur = UncheckedWords.getLong(own)) {
        if (Long.compareUnsigned(cur + bytes, cur) < 0) {
          UncheckedWords.addLong(state + DS_OOM_REJECTIONS, 1);
          return false;
        }
        if (UncheckedWords.casLong(own, cur, cur + bytes)) break;
      }
      // commit_seq counts every admission (minor 4: the admissions field is no longer written)
      UncheckedWords.addLong(state + DS_COMMIT_SEQ, 1);
      return true;
    }
    if (Long.compareUnsigned(bytes, limit) > 0) {
      UncheckedWords.addLong(state + DS_OOM_REJECTIONS, 1);
      return false;
    }
    final long slots = a + SLOTS_OFF + 8 * dev;
    boolean reaped = false;
    int waits = 0;
    long waitStart = 0;
    for (int tries = 0; ; tries++) {
      // publish, then verify (docs/region-layout.md: why committed bytes never exceed the limit)
      UncheckedWords.addLong(pending, bytes);
      long used = 0;
      long claimed = 0;
      int hwm = QuotaRegion.slotHwm(UncheckedWords.getInt(a + H_SLOT_HWM));
      for (int i = 0; i < hwm; i++) {
        long o = slots + (long) i * SLOT_BYTES;
        claimed = SharedMemory.satAdd(claimed, UncheckedWords.getLong(o + S_PENDING_BYTES));
        used = SharedMemory.satAdd(used, UncheckedWords.getLong(o + S_USED_BYTES));
      }
      long sum = SharedMemory.satAdd(used, claimed);
      if (Long.compareUnsigned(sum, limit) <= 0) {
        // commit before un-pending (counted twice for an instant, never zero times); commit_seq
        // is also the admissions count (minor 4)
        UncheckedWords.addLong(state + DS_COMMIT_SEQ, 1);
        UncheckedWords.addLong(own, bytes);
        UncheckedWords.addLong(pending, -bytes);
        // what is in use now is at most sum: only a sum above the peak can raise it
        if (Long.compareUnsigned(UncheckedWords.getLong(state + DS_PEAK_BYTES), sum) < 0) {
          raisePeak(state, dev, sum);
        }
        return true;
      }
      UncheckedWords.addLong(pending, -bytes);
      limit = UncheckedWords.getLong(limitAt); // the agent may have changed it
      boolean fitsCommitted = Long.compareUnsigned(SharedMemory.satAdd(used, bytes), limit) <= 0;
      if (fitsCommitted && tries < CONTENDED_TRIES) {
        Thread.onSpinWait();
        continue;
      }
      if (!reaped) {
        // what stands in the way may belong to owners that died (never to us: our slot is live)
        reaped = true;
        if (region.reap(dev) > 0) {
          tries = 0;
          continue;
        }
      }
      if (fitsCommitted) {
        // only live admitters' pending charges are in the way: wait for them, bounded
        long now = System.nanoTime();
        if (waits == 0) waitStart = now;
        if (now - waitStart < CONTENDED_WAIT_NS) {
          if (waits++ < CONTENDED_YIELDS) Thread.yield();
          else LockSupport.parkNanos(CONTENDED_SLEEP_NS);
          continue;
        }
      }
      UncheckedWords.addLong(state + DS_OOM_REJECTIONS, 1);
      return false;
    }
  }

  /**
   * Called when the verified sum is above the peak. What is in use after an admission is at most
   * that sum, but the slot scan bounds it too (the verified sum may hold pending bytes that were
   * then refused, and a scan is not atomic: a release read late plus the admission it allowed read
   * early can add up past the limit for no instant at all), so the peak is the smaller of the two.
   * {@code state} is the device state's address.
   */
  private void raisePeak(long state, int dev, long verified) {
    long scanned = region.usedBytes(dev);
    long used = Long.compareUnsigned(scanned, verified) < 0 ? scanned : verified;
    for (long peak = UncheckedWords.getLong(state + DS_PEAK_BYTES);
        Long.compareUnsigned(peak, used) < 0
            && !UncheckedWords.casLong(state + DS_PEAK_BYTES, peak, used);
        peak = UncheckedWords.getLong(state + DS_PEAK_BYTES)) {
      // raise the peak
    }
  }

  /** Uncharges {@code bytes} on {@code dev}, never below zero. */
  public void release(int dev, long bytes) {
    checkDevice(dev, bytes);
    try {
      final long own = base + slotOff(slot) + S_USED_BYTES + 8 * dev;
      for (; ; ) {
        long cur = UncheckedWords.getLong(own);
        long next = Long.compareUnsigned(cur, bytes) >= 0 ? cur - bytes : 0;
        if (UncheckedWords.casLong(own, cur, next)) return;
      }
    } catch (InternalError e) {
      throw new MappedFileFault(region.file(), e);
    } finally {
      Reference.reachabilityFence(mem);
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
