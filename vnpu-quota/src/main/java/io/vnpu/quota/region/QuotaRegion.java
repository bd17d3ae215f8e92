package io.vnpu.quota.region;

import static io.vnpu.quota.layout.RegionLayout.*;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.files.RandomIds;
import io.vnpu.quota.mapped.MappedFileFault;
import io.vnpu.quota.mapped.SharedMemory;
import io.vnpu.quota.mapped.UncheckedWords;
import io.vnpu.quota.model.ComputeCounters;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.SizedBy;
import io.vnpu.quota.model.UsageSnapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * An open quota region (layout HVNP v1, see {@code docs/region-layout.md}): config, usage
 * snapshots, reaping, and a {@link MemoryAccount} to admit and release memory with the same
 * protocol as the C limiter. Thread-safe. Obtain it from {@link QuotaRegions}.
 */
// "try": SharedMemory.Pin is a scope guard (keeps the mapping alive while the body reads it), so
// its variable is never named in the body on purpose.
@SuppressWarnings("try")
public final class QuotaRegion implements AutoCloseable {
  static final long INIT_WAIT_MS = 2000;
  static final int SNAPSHOT_ATTEMPTS = 10_000;
  static final int CONFIG_READ_ATTEMPTS = 10_000;

  /**
   * {@code rw-rw-rw-}: the container may run as any user; its directory is what keeps others out.
   */
  static final java.util.Set<java.nio.file.attribute.PosixFilePermission> REGION_FILE_MODE =
      PosixFilePermissions.fromString("rw-rw-rw-");

  private final Path file;
  private final FileChannel channel;
  private final FileSize size;
  private final SharedMemory mem;
  private final RegionLocks locks;
  private final QuotaRegions registry;
  private final Object registryKey;
  private final Object reapLock = new Object();
  private MemoryAccount account;
  private boolean closed;

  /**
   * The current size of the region file through the descriptor the region holds, for {@link
   * #checkSize()}.
   */
  @FunctionalInterface
  private interface FileSize {
    long bytes() throws IOException;
  }

  private QuotaRegion(
      Path file,
      FileChannel channel,
      FileSize size,
      MappedByteBuffer buf,
      QuotaRegions registry,
      Object key) {
    this.file = file;
    this.channel = channel;
    this.size = size;
    this.mem = new SharedMemory(buf, file);
    this.locks = new RegionLocks(channel);
    this.registry = registry;
    this.registryKey = key;
  }

  // ---------------------------------------------------------------- open / create

  static QuotaRegion create(Path file, RegionConfig config, SizedBy sizedBy, QuotaRegions registry)
      throws IOException {
    // exclusive and no-follow: a planted link or any existing file makes this fail, so nothing
    // outside the region's own name is ever created, truncated or chmod-ed (HostFiles rules)
    FileChannel ch = HostFiles.createExclusive(file, REGION_FILE_MODE);
    Object key = null;
    try {
      key = registry.register(file);
      RegionLocks locks = new RegionLocks(ch);
      FileLock init = locks.lockBounded(LOCK_INIT, INIT_WAIT_MS);
      if (init == null)
        throw new RegionBusyException(file, "init lock busy for more than " + INIT_WAIT_MS + " ms");
      try {
        allocate(file, ch);
        MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, REGION_FILE_BYTES);
        QuotaRegion r = new QuotaRegion(file, ch, ch::size, buf, registry, key);
        r.initialise(config, sizedBy);
        return r;
      } finally {
        init.release();
      }
    } catch (IOException | RuntimeException e) {
      if (key != null) registry.unregister(key);
      ch.close();
      HostFiles.deleteQuietly(file);
      throw e;
    }
  }

  /**
   * Largest file opened as a region (a region is 139,264 bytes; a huge file in its place is
   * refused).
   */
  static final long MAX_OPEN_BYTES = 16L << 20;

  /**
   * A region's worth of zeros, read-only and direct: written as it is, where a heap buffer is first
   * allocated and zeroed, then copied into a temporary direct buffer on every creation.
   */
  private static final ByteBuffer ZEROS =
      ByteBuffer.allocateDirect(REGION_FILE_BYTES).asReadOnlyBuffer();

  /**
   * Writes every byte of the new region through the channel, so that each page has its block before
   * the file is mapped. A sparse region (only the last byte written) gets its blocks on the first
   * store through a mapping; on a full file system, one a tenant can fill from its own directory,
   * that store faults: SIGBUS in the limiter of every process of the container, an asynchronous
   * {@link InternalError} here. A file system without room fails this call instead.
   *
   * @throws RegionSpaceException naming the file when the file system cannot hold the region
   */
  private static void allocate(Path file, FileChannel ch) throws IOException {
    ByteBuffer zeros = ZEROS.duplicate();
    try {
      while (zeros.hasRemaining()) {
        ch.write(zeros, zeros.position());
      }
    } catch (IOException e) {
      throw new RegionSpaceException(file, REGION_FILE_BYTES, e);
    }
    if (ch.size() < REGION_FILE_BYTES) {
      throw new RegionSpaceException(
          file, REGION_FILE_BYTES, new IOException("file size " + ch.size() + " after writing"));
    }
  }

  static QuotaRegion open(Path file, QuotaRegions registry) throws IOException {
    // the container can write its directory: never wait on what it put there (TenantFiles). A
    // RandomAccessFile: readers check the size before every snapshot, and its length() is the
    // cheaper fstat (FullRegionSnapshotBenchmark.sizeCheckBareFstat); its channel shares the fd
    java.io.RandomAccessFile raf =
        registry.tenantFiles().openRandomAccess(file, true, 0, MAX_OPEN_BYTES, false);
    FileChannel ch = raf.getChannel();
    Object key = null;
    try {
      key = registry.register(file);
      ByteBuffer hdr = readHeader(ch);
      validate(file, hdr, ch.size());
      MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, REGION_FILE_BYTES);
      return new QuotaRegion(file, ch, raf::length, buf, registry, key);
    } catch (IOException | RuntimeException e) {
      if (key != null) registry.unregister(key);
      ch.close();
      throw e;
    }
  }

  private static ByteBuffer readHeader(FileChannel ch) throws IOException {
    ByteBuffer hdr = ByteBuffer.allocate(HDR_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    while (hdr.hasRemaining() && ch.read(hdr, hdr.position()) > 0) {
      // pread until the header page is in or EOF
    }
    return hdr.clear();
  }

  private static void validate(Path file, ByteBuffer h, long size) throws RegionFormatException {
    if (size < HDR_BYTES) {
      throw new RegionFormatException(
          file, "file size", Long.toString(size), ">= " + REGION_FILE_BYTES);
    }
    long magic = h.getLong(H_MAGIC);
    if (magic != REGION_MAGIC)
      throw new RegionFormatException(file, "magic", hex(magic), hex(REGION_MAGIC));
    int major = Short.toUnsignedInt(h.getShort(H_MAJOR));
    if (major != REGION_MAJOR) {
      throw new RegionFormatException(
          file, "version_major", Integer.toString(major), Integer.toString(REGION_MAJOR));
    }
    int state = h.getInt(H_INIT_STATE);
    if (state != INIT_READY) {
      throw new RegionFormatException(
          file, "init_state", Integer.toString(state), INIT_READY + " (READY)");
    }
    expect(file, "header_bytes", h.getInt(H_HEADER_BYTES), HDR_BYTES);
    long fileBytes = h.getLong(H_FILE_BYTES);
    if (fileBytes < REGION_FILE_BYTES) {
      throw new RegionFormatException(
          file, "file_bytes", Long.toUnsignedString(fileBytes), ">= " + REGION_FILE_BYTES);
    }
    if (size < fileBytes) {
      throw new RegionFormatException(
          file, "file size", Long.toString(size), ">= file_bytes " + fileBytes);
    }
    expect(file, "slot_count", h.getInt(H_SLOT_COUNT), REGION_SLOT_COUNT);
    expect(file, "slot_bytes", h.getInt(H_SLOT_BYTES), SLOT_BYTES);
    expect(file, "device_config_stride", h.getInt(H_DEVCFG_STRIDE), DEVCFG_BYTES);
    expect(file, "device_state_stride", h.getInt(H_DEVSTATE_STRIDE), DEVSTATE_BYTES);
    int devs = h.getInt(H_DEVICE_COUNT);
    if (devs < 1 || devs > REGION_MAX_DEVICES) {
      throw new RegionFormatException(
          file, "device_count", Integer.toUnsignedString(devs), "1..16");
    }
  }

  private static void expect(Path file, String field, int actual, int expected)
      throws RegionFormatException {
    if (actual != expected) {
      throw new RegionFormatException(
          file, field, Integer.toUnsignedString(actual), Integer.toString(expected));
    }
  }

  private static String hex(long v) {
    return String.format("0x%016x", v);
  }

  private void initialise(RegionConfig config, SizedBy sizedBy) {
    mem.setInt(H_INIT_STATE, INIT_INITIALISING);
    mem.setU16(H_MAJOR, REGION_MAJOR);
    mem.setU16(H_MINOR, REGION_MINOR);
    mem.setInt(H_HEADER_BYTES, HDR_BYTES);
    mem.setLong(H_FILE_BYTES, REGION_FILE_BYTES);
    mem.setInt(H_DEVICE_COUNT, config.devices().size());
    mem.setInt(H_SLOT_COUNT, REGION_SLOT_COUNT);
    mem.setInt(H_SLOT_BYTES, SLOT_BYTES);
    mem.setLong(H_EPOCH, RandomIds.nonZeroLong());
    long now = System.currentTimeMillis() * 1_000_000L;
    mem.setLong(H_CREATED_NS, now);
    mem.setInt(H_DEVCFG_STRIDE, DEVCFG_BYTES);
    mem.setInt(H_DEVSTATE_STRIDE, DEVSTATE_BYTES);
    mem.setInt(H_CREATOR, CREATOR_JAVA);
    mem.setInt(H_SIZED_BY, sizedBy.code());
    writeConfigFields(config);
    mem.setLong(H_MAGIC, REGION_MAGIC);
    mem.setInt(H_INIT_STATE, INIT_READY);
  }

  // ---------------------------------------------------------------- config

  /** The region file. */
  public Path file() {
    return file;
  }

  /**
   * Number of configured logical devices (1..16; fixed at creation and checked at open, clamped
   * here should a writer have changed it since).
   *
   * @throws MappedFileFault if the file was truncated while mapped
   */
  public int deviceCount() {
    try (SharedMemory.Pin p = mem.pin()) {
      return deviceCountPinned();
    }
  }

  private int deviceCountPinned() {
    return Math.max(1, Math.min(mem.getInt(H_DEVICE_COUNT), REGION_MAX_DEVICES));
  }

  /**
   * Initialisation epoch (random, non-zero): the container's key in the per-NPU compute registries
   * ({@code io.vnpu.quota.registry.RegistryMember#key}).
   */
  public long epoch() {
    try (SharedMemory.Pin p = mem.pin()) {
      return mem.getLong(H_EPOCH);
    }
  }

  /**
   * Who decided the slice's sizes ({@code sized_by}, written at initialisation): only a {@link
   * SizedBy#HOST} slice may be resized live. A file older than minor 3 reads {@link
   * SizedBy#SCHEDULER}.
   */
  public SizedBy sizedBy() {
    try (SharedMemory.Pin p = mem.pin()) {
      return mem.getU16(H_MINOR) < 3 ? SizedBy.SCHEDULER : SizedBy.decode(mem.getInt(H_SIZED_BY));
    }
  }

  /** Minor version of the file (a newer minor only adds fields). */
  public int versionMinor() {
    try (SharedMemory.Pin p = mem.pin()) {
      return mem.getU16(H_MINOR);
    }
  }

  /**
   * Reads the config consistently (seqlock {@code config_seq}).
   *
   * @throws RegionBusyException if a writer kept it changing for {@value #CONFIG_READ_ATTEMPTS}
   *     attempts
   * @throws RegionFormatException if a field holds what no writer of the layout writes (a UUID byte
   *     outside printable ASCII, a registry directory that is not UTF-8), or the file was truncated
   *     while mapped
   */
  public RegionConfig readConfig() throws RegionBusyException, RegionFormatException {
    try (SharedMemory.Pin p = mem.pin()) {
      return readConfigPinned();
    }
  }

  private RegionConfig readConfigPinned() throws RegionBusyException, RegionFormatException {
    checkSize();
    try {
      for (int attempt = 0; attempt < CONFIG_READ_ATTEMPTS; attempt++) {
        int s1 = mem.getInt(H_CONFIG_SEQ);
        if ((s1 & 1) == 0) {
          RegionConfig c;
          try {
            c = readConfigFields();
          } catch (RegionFormatException e) {
            // a torn read during an update is retried; a stable bad field is the file's
            if (mem.getInt(H_CONFIG_SEQ) == s1) throw e;
            continue;
          }
          if (mem.getInt(H_CONFIG_SEQ) == s1) return c;
        }
        Thread.onSpinWait();
      }
    } catch (MappedFileFault e) {
      throw truncated(e.getCause());
    } catch (InternalError e) {
      // in compiled code the JVM delivers a mapping fault asynchronously, after the accessor
      // returned
      throw truncated(e);
    }
    throw new RegionBusyException(file, "config kept changing (config_seq)");
  }

  private RegionFormatException truncated(Throwable cause) {
    RegionFormatException f =
        new RegionFormatException(
            file, "file size", "truncated while mapped", ">= " + REGION_FILE_BYTES + " bytes");
    f.initCause(cause);
    return f;
  }

  /**
   * Readers check the size first: touching a mapped page past the end of a truncated file faults
   * (SIGBUS), which the JVM may report only later as an {@link InternalError}. The check makes a
   * file truncated before the read fail the call cleanly, once per call (a check every N calls
   * would return garbage for the rest). It cannot cover a truncation that races the read after the
   * check: compiled code then gets the {@code InternalError} asynchronously, possibly after the
   * call returned (docs/benchmarks.md, snapshot section); only storage the tenant cannot shrink
   * closes that.
   */
  private void checkSize() throws RegionFormatException {
    long bytes;
    try {
      bytes = size.bytes();
    } catch (IOException e) {
      throw truncated(e);
    }
    if (bytes < REGION_FILE_BYTES) throw truncated(null);
  }

  private RegionConfig readConfigFields() throws RegionFormatException {
    List<DeviceQuota> devs = new ArrayList<>();
    for (int d = 0; d < deviceCount(); d++) {
      int o = devCfgOff(d);
      byte[] raw = mem.getBytes(o + DC_UUID, REGION_UUID_BYTES);
      int n = 0;
      while (n < REGION_UUID_BYTES - 1 && raw[n] != 0) n++;
      for (int i = 0; i < n; i++) {
        if (raw[i] < 0x21 || raw[i] > 0x7e) {
          throw new RegionFormatException(
              file,
              "devices[" + d + "].uuid",
              "byte 0x" + String.format("%02x", raw[i] & 0xff) + " at " + i,
              "printable ASCII");
        }
      }
      devs.add(
          new DeviceQuota(
              Math.max(0, mem.getLong(o + DC_MEM_LIMIT)),
              Math.max(1, Math.min(10000, mem.getInt(o + DC_COMPUTE_WEIGHT))),
              Math.max(0, Math.min(100, mem.getInt(o + DC_COMPUTE_CAP_PCT))),
              mem.getInt(o + DC_PRIORITY_CLASS) == 0 ? Priority.HIGH : Priority.NORMAL,
              Math.max(-1, mem.getInt(o + DC_PHYS_ID)),
              new String(raw, 0, n, StandardCharsets.US_ASCII)));
    }
    byte[] dir = mem.getBytes(H_REGISTRY_DIR, REGION_PATH_BYTES);
    int n = 0;
    while (n < dir.length - 1 && dir[n] != 0) n++;
    String registryDir;
    try {
      registryDir =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(dir, 0, n))
              .toString();
    } catch (CharacterCodingException e) {
      throw new RegionFormatException(file, "registry_dir", "invalid UTF-8", "a UTF-8 path");
    }
    int flags = mem.getInt(H_POLICY_FLAGS);
    if (Integer.bitCount(flags & POLICY_SHARE_MASK) > 1) {
      // the writer asked for two sharing policies at once; the limiter reads that as best-effort,
      // a reader that reports the config says it is malformed rather than pick one
      throw new RegionFormatException(
          file,
          "policy_flags",
          String.format("0x%x", flags),
          "at most one sharing-policy bit of 0x" + Integer.toHexString(POLICY_SHARE_MASK));
    }
    return new RegionConfig(devs, PolicyFlag.decode(flags), registryDir);
  }

  /**
   * Replaces the config while processes run. Limits take effect at the next admission; lowering a
   * limit below current usage refuses new allocations and frees nothing. The device count is fixed
   * at creation.
   *
   * @throws IllegalArgumentException if {@code config} has another number of devices
   * @throws RegionBusyException if another config writer holds the config lock for more than 2 s
   */
  public synchronized void updateConfig(RegionConfig config) throws IOException {
    try (SharedMemory.Pin p = mem.pin()) {
      updateConfigPinned(config);
    }
  }

  private void updateConfigPinned(RegionConfig config) throws IOException {
    if (config.devices().size() != deviceCount()) {
      throw new IllegalArgumentException(
          "quota region "
              + file
              + ": device count is "
              + deviceCount()
              + ", config has "
              + config.devices().size());
    }
    FileLock l = locks.lockBounded(LOCK_CONFIG, INIT_WAIT_MS);
    if (l == null)
      throw new RegionBusyException(file, "config lock busy for more than " + INIT_WAIT_MS + " ms");
    try {
      // an odd value left by a writer that died mid-update stays odd: we finish its job
      int seq = mem.getInt(H_CONFIG_SEQ);
      int odd = (seq & 1) == 1 ? seq : seq + 1;
      mem.setInt(H_CONFIG_SEQ, odd);
      writeConfigFields(config);
      mem.setInt(H_CONFIG_SEQ, odd + 1);
    } finally {
      l.release();
    }
  }

  private void writeConfigFields(RegionConfig config) {
    mem.setInt(H_POLICY_FLAGS, PolicyFlag.encode(config.policy()));
    mem.setBytes(
        H_REGISTRY_DIR, config.registryDir().getBytes(StandardCharsets.UTF_8), REGION_PATH_BYTES);
    for (int d = 0; d < REGION_MAX_DEVICES; d++) {
      int o = devCfgOff(d);
      if (d >= config.devices().size()) {
        mem.setLong(o + DC_MEM_LIMIT, 0);
        continue;
      }
      DeviceQuota q = config.devices().get(d);
      mem.setLong(o + DC_MEM_LIMIT, q.memLimitBytes());
      mem.setInt(o + DC_COMPUTE_WEIGHT, q.computeWeight());
      mem.setInt(o + DC_COMPUTE_CAP_PCT, q.computeCapPct());
      mem.setInt(o + DC_PRIORITY_CLASS, q.priority() == Priority.HIGH ? 0 : 1);
      mem.setInt(o + DC_PHYS_ID, q.physId());
      mem.setBytes(o + DC_UUID, q.uuid().getBytes(StandardCharsets.US_ASCII), REGION_UUID_BYTES);
    }
  }

  // ---------------------------------------------------------------- usage

  int slotHwm() {
    return slotHwm(mem.getInt(H_SLOT_HWM));
  }

  /** How many slots a scan reads for the {@code slot_hwm} word {@code hwm}: 0..256. */
  static int slotHwm(int hwm) {
    // a u32, as the C limiter reads it: a word at or above 2^31 (a tenant's) is above 256 there
    // too, so every slot is scanned, never none (a Java admitter and the agent see the slots C
    // sees)
    return Integer.compareUnsigned(hwm, REGION_SLOT_COUNT) > 0 ? REGION_SLOT_COUNT : hwm;
  }

  /** Committed bytes on {@code dev} over all slots (saturating, never negative); not a snapshot. */
  long usedBytes(int dev) {
    long sum = 0;
    int hwm = slotHwm();
    for (int i = 0; i < hwm; i++)
      sum = SharedMemory.satAdd(sum, mem.getLong(slotOff(i) + S_USED_BYTES + 8 * dev));
    return sum;
  }

  /**
   * A consistent snapshot of per-device and per-process usage: no admission committed on any device
   * while it was read, so it shows a state the region really had. Allocates the records; a reader
   * that polls often uses {@link #usage(UsageBuffer)}.
   *
   * @throws RegionBusyException if admissions kept committing during {@value #SNAPSHOT_ATTEMPTS}
   *     reads
   * @throws RegionFormatException if the file was truncated while mapped
   */
  public UsageSnapshot usage() throws RegionBusyException, RegionFormatException {
    UsageBuffer b = new UsageBuffer();
    usage(b);
    return b.toSnapshot();
  }

  /**
   * The same consistent read as {@link #usage()} into {@code into}, allocating nothing: every slot
   * is copied as primitives (no record, no boxed byte count per slot).
   *
   * @throws RegionBusyException if admissions kept committing during {@value #SNAPSHOT_ATTEMPTS}
   *     reads
   * @throws RegionFormatException if the file was truncated while mapped
   */
  public void usage(UsageBuffer into) throws RegionBusyException, RegionFormatException {
    try (SharedMemory.Pin p = mem.pin()) {
      checkSize();
      consistentUsage(into);
    } catch (MappedFileFault e) {
      throw truncated(e.getCause());
    } catch (InternalError e) {
      throw truncated(e);
    }
  }

  private void consistentUsage(UsageBuffer into) throws RegionBusyException {
    int devs = deviceCountPinned();
    long[] seq = into.commitSeq;
    // unchecked loads, base in a register: every address below is base plus an offset of slot i <
    // slot_hwm clamped to 256 or device d < devs <= 16, inside the REGION_FILE_BYTES mapped; the
    // caller's pin keeps the mapping
    final long a = mem.uncheckedBase();
    for (int attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
      for (int d = 0; d < devs; d++)
        seq[d] = UncheckedWords.getLong(a + devStateOff(d) + DS_COMMIT_SEQ);
      readUsage(a, devs, into);
      SharedMemory
          .loadLoadFence(); // the plain slot reads complete before the sequences are re-read
      boolean stable = true;
      for (int d = 0; d < devs && stable; d++)
        stable = UncheckedWords.getLong(a + devStateOff(d) + DS_COMMIT_SEQ) == seq[d];
      if (stable) return;
      Thread.onSpinWait();
    }
    throw new RegionBusyException(
        file, "admissions kept committing during " + SNAPSHOT_ATTEMPTS + " reads");
  }

  /**
   * One pass over the slots reads each slot's state and bytes on devices 0 and 1 and, for a listed
   * slot, its identity, into {@link UsageBuffer#records}; devices 2.. (regions of more than two
   * devices are rare) take one more pass each. Written out per device on purpose: a loop over the
   * devices inside the loop over the slots ran ~5x slower in C2 (FullRegionSnapshotBenchmark), more
   * than the whole read is allowed to cost. Plain reads: {@link #usage(UsageBuffer)} validates the
   * whole read with the commit sequences. {@code a} is the mapping's base ({@link
   * #consistentUsage}).
   */
  private void readUsage(long a, int devs, UsageBuffer b) {
    b.devices = devs;
    int hwm = slotHwm(UncheckedWords.getInt(a + H_SLOT_HWM));
    b.ensure(hwm, devs);
    long[] rec = b.records;
    int stride = b.stride;
    // device 1's field exists in every slot whatever the device count: read it always, count it
    // only when configured (no branch in the loop)
    long mask1 = devs > 1 ? -1L : 0L;
    // plain sums plus the OR of every addend: with no addend at or above 2^55, 256 of them cannot
    // reach 2^63 and the sums are exact; otherwise (a broken or hostile writer) they are redone
    // saturating
    long sum0 = 0;
    long sum1 = 0;
    long bits = 0;
    int r = 0;
    long o = a + SLOTS_OFF;
    for (int i = 0; i < hwm; i++, o += SLOT_BYTES) {
      // S_STATE and S_PID are adjacent u32s (as are S_HOST_PID and S_FLAGS): one 8-byte read each
      long statePid = UncheckedWords.getLongPlain(o + S_STATE);
      long u0 = UncheckedWords.getLongPlain(o + S_USED_BYTES);
      long u1 = UncheckedWords.getLongPlain(o + S_USED_BYTES + 8) & mask1;
      sum0 += u0;
      sum1 += u1;
      bits |= u0 | u1;
      if (!listed((int) statePid)) continue;
      rec[r + UsageBuffer.R_STATE_PID] = statePid;
      rec[r + UsageBuffer.R_START_TIME] = UncheckedWords.getLongPlain(o + S_STARTTIME);
      rec[r + UsageBuffer.R_GENERATION] = UncheckedWords.getLongPlain(o + S_GENERATION);
      rec[r + UsageBuffer.R_HOST_PID_FLAGS] = UncheckedWords.getLongPlain(o + S_HOST_PID);
      rec[r + UsageBuffer.R_SLOT] = i;
      rec[r + UsageBuffer.R_USED] = u0;
      rec[r + UsageBuffer.R_USED + 1] = u1;
      r += stride;
    }
    int n = r / stride;
    b.processes = n;
    boolean exact = (bits >>> 55) == 0;
    b.used[0] = exact ? sum0 : saturatedSum(S_USED_BYTES, hwm);
    if (devs > 1) b.used[1] = exact ? sum1 : saturatedSum(S_USED_BYTES + 8, hwm);
    for (int d = 2; d < devs; d++) {
      int field = S_USED_BYTES + 8 * d;
      long sum = 0;
      long bitsD = 0;
      for (int i = 0; i < hwm; i++) {
        long u = UncheckedWords.getLongPlain(a + slotOff(i) + field);
        sum += u;
        bitsD |= u;
      }
      b.used[d] = (bitsD >>> 55) == 0 ? sum : saturatedSum(field, hwm);
      for (int p = 0; p < n; p++) {
        int at = p * stride;
        rec[at + UsageBuffer.R_USED + d] =
            UncheckedWords.getLongPlain(a + slotOff((int) rec[at + UsageBuffer.R_SLOT]) + field);
      }
    }
    for (int d = 0; d < devs; d++) {
      long s = a + devStateOff(d);
      b.limit[d] =
          SharedMemory.clampReport(UncheckedWords.getLong(a + devCfgOff(d) + DC_MEM_LIMIT));
      b.peak[d] = SharedMemory.clampReport(UncheckedWords.getLong(s + DS_PEAK_BYTES));
      b.oomRejections[d] = SharedMemory.clampReport(UncheckedWords.getLong(s + DS_OOM_REJECTIONS));
      b.reaped[d] = SharedMemory.clampReport(UncheckedWords.getLong(s + DS_REAPED_BYTES));
      b.unknownFrees[d] = SharedMemory.clampReport(UncheckedWords.getLong(s + DS_UNKNOWN_FREES));
      // minor 4 writers count admissions in commit_seq only, older ones in admissions as well
      long legacy = UncheckedWords.getLong(s + DS_ADMISSIONS);
      long seq = b.commitSeq[d];
      b.admissions[d] =
          SharedMemory.clampReport(Long.compareUnsigned(legacy, seq) > 0 ? legacy : seq);
    }
  }

  /**
   * Whether a slot in {@code state} is reported: claiming, active or reaping (not free or junk).
   */
  private static boolean listed(int state) {
    return Integer.compareUnsigned(state - SLOT_CLAIMING, SLOT_REAPING - SLOT_CLAIMING) <= 0;
  }

  /**
   * The unsigned sum of one u64 field over the slots below {@code hwm}, for reporting: {@code
   * Long.MAX_VALUE} when it does not fit a non-negative long. The slow path of {@link #readUsage},
   * taken only when some addend is at or above 2^55.
   */
  private long saturatedSum(int field, int hwm) {
    long sum = 0;
    for (int i = 0; i < hwm; i++)
      sum = SharedMemory.satAdd(sum, mem.getLongPlain(slotOff(i) + field));
    return SharedMemory.clampReport(sum);
  }

  // ---------------------------------------------------------------- compute counters

  /**
   * How many launch-like entry points the runtime loaded by the slice's processes exports that the
   * limiter does not hook ({@code VNPU_H_UNHOOKED_LAUNCHES}, written by the limiter's measurement
   * thread). 0: the compute share is enforced on every launch path the limiter saw; greater than 0:
   * work enqueued through those entry points is not throttled, so the compute share is <b>not
   * enforced</b> and callers ({@code vnpu top}, metrics) should say so. A negative value written by
   * a broken writer reads as 0.
   */
  public int unhookedLaunchEntryPoints() {
    return Math.max(0, mem.getInt(H_UNHOOKED_LAUNCHES));
  }

  /**
   * The compute counters of logical device {@code device} (its live state's {@code launches} and
   * {@code busy_ns}). Each 8-byte field is read atomically; the two may come from slightly
   * different instants. A negative value written by a broken writer reads as 0.
   *
   * @throws IllegalArgumentException when {@code device} is not in {@code 0..deviceCount()-1}
   */
  public ComputeCounters computeCounters(int device) {
    if (device < 0 || device >= deviceCount()) {
      throw new IllegalArgumentException(
          "quota region " + file + ": device " + device + " is not in 0.." + (deviceCount() - 1));
    }
    int s = devStateOff(device);
    return new ComputeCounters(
        Math.max(0, mem.getLong(s + DS_LAUNCHES)), Math.max(0, mem.getLong(s + DS_BUSY_NS)));
  }

  /**
   * The compute counters of every process slot that is not free, by slot index (the {@link
   * io.vnpu.quota.model.ProcessUsage#slot()} of {@link #usage()}), in slot order.
   */
  public java.util.SortedMap<Integer, ComputeCounters> processComputeCounters() {
    java.util.SortedMap<Integer, ComputeCounters> out = new java.util.TreeMap<>();
    int hwm = slotHwm();
    for (int i = 0; i < hwm; i++) {
      int o = slotOff(i);
      int state = mem.getInt(o + S_STATE);
      if (state == SLOT_FREE || state < 0 || state > SLOT_REAPING) continue;
      out.put(
          i,
          new ComputeCounters(
              Math.max(0, mem.getLong(o + S_LAUNCHES)), Math.max(0, mem.getLong(o + S_BUSY_NS))));
    }
    return java.util.Collections.unmodifiableSortedMap(out);
  }

  // ---------------------------------------------------------------- reaping

  /**
   * Frees the slots of dead owners (their slot lock is free) and adds their bytes to {@code
   * reaped_bytes}. A live owner, in any PID namespace, is never touched.
   *
   * @return number of slots reaped
   */
  public int reap() throws IOException {
    try (SharedMemory.Pin p = mem.pin()) {
      return reapPinned(-1);
    }
  }

  /**
   * Reaps only the dead owners that hold bytes (committed or pending) on {@code dev}: the ones in
   * an admission's way there. Slots holding nothing on it are not probed (no lock call each).
   */
  int reap(int dev) throws IOException {
    try (SharedMemory.Pin p = mem.pin()) {
      return reapPinned(dev);
    }
  }

  private int reapPinned(int dev) throws IOException {
    synchronized (reapLock) {
      int reaped = 0;
      int own = account == null ? -1 : account.slot();
      int hwm = slotHwm();
      for (int i = 0; i < hwm; i++) {
        if (i == own) continue;
        int o = slotOff(i);
        if (mem.getInt(o + S_STATE) == SLOT_FREE) continue;
        if (dev >= 0
            && mem.getLong(o + S_USED_BYTES + 8 * dev) == 0
            && mem.getLong(o + S_PENDING_BYTES + 8 * dev) == 0) continue; // in nobody's way there
        FileLock probe = locks.tryLock(lockSlot(i));
        if (probe == null) continue; // a live process (maybe this JVM) holds it
        try {
          int st = mem.getInt(o + S_STATE);
          if (st != SLOT_FREE && mem.casInt(o + S_STATE, st, SLOT_REAPING)) {
            for (int d = 0; d < REGION_MAX_DEVICES; d++) {
              mem.setLong(o + S_PENDING_BYTES + 8 * d, 0);
              long b = mem.swapLong(o + S_USED_BYTES + 8 * d, 0);
              if (b != 0) mem.addLong(devStateOff(d) + DS_REAPED_BYTES, b);
            }
            mem.setInt(o + S_STATE, SLOT_FREE);
            reaped++;
          }
        } finally {
          probe.release();
        }
      }
      return reaped;
    }
  }

  // ---------------------------------------------------------------- Java admission

  /**
   * The JVM's own process slot, claimed on first call (reaping dead slots if none is free) and held
   * until {@link #close()}.
   *
   * @throws RegionBusyException if all 256 slots belong to live processes
   */
  public synchronized MemoryAccount memoryAccount() throws IOException {
    if (closed) throw new IllegalStateException("quota region " + file + " is closed");
    try (SharedMemory.Pin p = mem.pin()) {
      return claimAccount();
    }
  }

  private MemoryAccount claimAccount() throws IOException {
    if (account == null) {
      account = MemoryAccount.claim(this, mem, locks, ProcessIdentity.current());
      if (account == null && reap() > 0)
        account = MemoryAccount.claim(this, mem, locks, ProcessIdentity.current());
      if (account == null)
        throw new RegionBusyException(file, "all " + REGION_SLOT_COUNT + " slots are in use");
    }
    return account;
  }

  /**
   * Releases the JVM's slot (its charges vanish) and closes the file. A region without a {@link
   * MemoryAccount} is unmapped at once (after operations of other threads finished; later calls
   * throw {@link IllegalStateException}); one whose account was claimed stays mapped until garbage
   * collection, because admissions take no pin (they must stay a few tens of ns).
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) return;
    closed = true;
    try {
      if (account != null) account.retire();
    } finally {
      registry.unregister(registryKey);
      if (account == null) mem.unmap();
      channel.close();
    }
  }
}
