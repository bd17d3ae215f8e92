package io.vnpu.quota.registry;

import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.mapped.MappedFileFault;
import io.vnpu.quota.mapped.SharedMemory;
import static io.vnpu.quota.layout.RegistryLayout.*;

import io.vnpu.api.model.Priority;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An open per-NPU compute registry (layout {@code VNPUREG1} v1, {@code docs/compute-registry.md}):
 * the node agent registers containers (pinned entries), the CLI reads entries and achieved shares.
 * The C limiter joins entries by key and keeps them live with shared record locks. Thread-safe.
 * Obtain it from {@link ComputeRegistries}.
 */
public final class ComputeRegistry implements AutoCloseable {
  static final long LOCK_WAIT_MS = 2000;
  /** {@code rw-rw-rw-}: containers of any user join the registry. */
  static final java.util.Set<java.nio.file.attribute.PosixFilePermission> REGISTRY_FILE_MODE =
      PosixFilePermissions.fromString("rw-rw-rw-");

  private final Path file;
  private final FileChannel channel;
  private final SharedMemory mem;
  private final ComputeRegistries owner;
  private final Object ownerKey;
  private boolean closed;

  private ComputeRegistry(Path file, FileChannel channel, MappedByteBuffer buf, ComputeRegistries owner, Object key) {
    this.file = file;
    this.channel = channel;
    this.mem = new SharedMemory(buf, file);
    this.owner = owner;
    this.ownerKey = key;
  }

  // ---------------------------------------------------------------- open / create

  static ComputeRegistry createOrOpen(Path file, int physId, ComputeRegistries owner) throws IOException {
    // the registry directory is shared with the containers: create exclusively and never follow a
    // link a tenant planted under the registry's name (HostFiles rules)
    try {
      HostFiles.createExclusive(file, REGISTRY_FILE_MODE).close();
    } catch (java.nio.file.FileAlreadyExistsException exists) {
      // another initialiser created it (or something else has the name): opened no-follow below
    }
    Object key = owner.register(file);
    FileChannel ch = null;
    try {
      ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
      FileLock init = lockBounded(ch, REG_LOCK_INIT);
      if (init == null) throw new RegistryBusyException(file, "init lock held for more than " + LOCK_WAIT_MS + " ms");
      try {
        if (ch.size() < REG_FILE_BYTES) {
          ch.write(java.nio.ByteBuffer.allocate(1), REG_FILE_BYTES - 1);
        }
        MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, REG_FILE_BYTES);
        ComputeRegistry r = new ComputeRegistry(file, ch, buf, owner, key);
        if (r.problem(ch.size()).isPresent()) r.initialise(physId);
        return r;
      } finally {
        init.release();
      }
    } catch (IOException | RuntimeException e) {
      if (ch != null) ch.close();
      owner.unregister(key);
      throw e;
    }
  }

  static ComputeRegistry open(Path file, ComputeRegistries owner) throws IOException {
    Object key = owner.register(file);
    FileChannel ch = null;
    try {
      ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
      long size = ch.size();
      if (size < REG_HDR_BYTES) {
        throw new RegistryFormatException(file, "file size", Long.toString(size), ">= " + REG_FILE_BYTES + " bytes");
      }
      MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, Math.min(size, REG_FILE_BYTES));
      ComputeRegistry r = new ComputeRegistry(file, ch, buf, owner, key);
      Optional<RegistryFormatException> bad = r.problem(size);
      if (bad.isPresent()) throw bad.get();
      return r;
    } catch (IOException | RuntimeException e) {
      if (ch != null) ch.close();
      owner.unregister(key);
      throw e;
    }
  }

  /** The first header check that fails, in the order the C limiter checks them. */
  private Optional<RegistryFormatException> problem(long size) {
    long magic = mem.getLong(RH_MAGIC);
    if (magic != REG_MAGIC) {
      return bad("VNPU_RH_MAGIC", "0x" + Long.toHexString(magic), "0x" + Long.toHexString(REG_MAGIC));
    }
    int major = mem.getU16(RH_MAJOR);
    if (major != REG_MAJOR) return bad("VNPU_RH_MAJOR", Integer.toString(major), Integer.toString(REG_MAJOR));
    long fileBytes = mem.getLong(RH_FILE_BYTES);
    if (fileBytes < REG_FILE_BYTES || size < REG_FILE_BYTES) {
      return bad("VNPU_RH_FILE_BYTES", fileBytes + " (file size " + size + ")", ">= " + REG_FILE_BYTES);
    }
    if (mem.getInt(RH_ENTRY_COUNT) != REG_ENTRY_COUNT) {
      return bad("VNPU_RH_ENTRY_COUNT", Integer.toString(mem.getInt(RH_ENTRY_COUNT)), Integer.toString(REG_ENTRY_COUNT));
    }
    if (mem.getInt(RH_ENTRY_BYTES) != REG_ENTRY_BYTES) {
      return bad("VNPU_RH_ENTRY_BYTES", Integer.toString(mem.getInt(RH_ENTRY_BYTES)), Integer.toString(REG_ENTRY_BYTES));
    }
    if (mem.getInt(RH_HEADER_BYTES) != REG_HDR_BYTES) {
      return bad("VNPU_RH_HEADER_BYTES", Integer.toString(mem.getInt(RH_HEADER_BYTES)), Integer.toString(REG_HDR_BYTES));
    }
    int state = mem.getInt(RH_INIT_STATE);
    if (state != REG_INIT_READY) return bad("VNPU_RH_INIT_STATE", Integer.toString(state), "2 (READY)");
    return Optional.empty();
  }

  private Optional<RegistryFormatException> bad(String field, String actual, String expected) {
    return Optional.of(new RegistryFormatException(file, field, actual, expected));
  }

  /** Same order as the C side: hide the file from readers, clear it, fill the header, publish. */
  private void initialise(int physId) {
    mem.setInt(RH_INIT_STATE, REG_INIT_INITIALISING);
    mem.setLong(RH_MAGIC, 0);
    mem.zero(8, REG_FILE_BYTES - 8);
    mem.setInt(RH_INIT_STATE, REG_INIT_INITIALISING);
    mem.setU16(RH_MAJOR, REG_MAJOR);
    mem.setU16(RH_MINOR, REG_MINOR);
    mem.setInt(RH_HEADER_BYTES, REG_HDR_BYTES);
    mem.setLong(RH_FILE_BYTES, REG_FILE_BYTES);
    mem.setInt(RH_ENTRY_COUNT, REG_ENTRY_COUNT);
    mem.setInt(RH_ENTRY_BYTES, REG_ENTRY_BYTES);
    mem.setInt(RH_PHYS_ID, physId);
    long epoch = 0;
    SecureRandom rnd = new SecureRandom();
    while (epoch == 0) epoch = rnd.nextLong();
    mem.setLong(RH_EPOCH, epoch);
    java.time.Instant now = java.time.Instant.now();
    mem.setLong(RH_CREATED_NS, now.getEpochSecond() * 1_000_000_000L + now.getNano());
    mem.setInt(RH_ACTIVE_WINDOW_MS, REG_DEFAULT_ACTIVE_WINDOW_MS);
    mem.setInt(RH_BURST_US, REG_DEFAULT_BURST_US);
    mem.setInt(RH_PRIO_WAIT_MS, REG_DEFAULT_PRIO_WAIT_MS);
    mem.setInt(RH_CREATOR, REG_CREATOR_JAVA);
    mem.setLong(RH_MAGIC, REG_MAGIC);
    mem.setInt(RH_INIT_STATE, REG_INIT_READY);
  }

  private static FileLock tryLock(FileChannel ch, long pos, boolean shared) throws IOException {
    try {
      return ch.tryLock(pos, 1, shared);
    } catch (OverlappingFileLockException held) {
      return null;
    }
  }

  private static FileLock lockBounded(FileChannel ch, long pos) throws IOException {
    long deadline = System.nanoTime() + LOCK_WAIT_MS * 1_000_000L;
    for (; ; ) {
      FileLock l = tryLock(ch, pos, false);
      if (l != null || System.nanoTime() > deadline) return l;
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  // ---------------------------------------------------------------- queries

  /** The registry file. */
  public Path file() {
    return file;
  }

  /** Phy ID of the NPU this registry coordinates. */
  public int physId() {
    return mem.getInt(RH_PHYS_ID);
  }

  /** Initialisation epoch (random, non-zero, new at every initialisation). */
  public long epoch() {
    return mem.getLong(RH_EPOCH);
  }

  /**
   * Snapshot of every ACTIVE entry, with liveness probed through the entries' lock bytes.
   *
   * @throws IOException if a lock probe fails
   * @throws RegistryFormatException if the file was truncated while mapped
   */
  public synchronized List<RegistryEntry> entries() throws IOException {
    ensureOpen();
    // touching a page past the end of a truncated file faults; the JVM may report it only later
    // as an InternalError, so check the size first and catch both forms at this boundary
    if (channel.size() < REG_FILE_BYTES) throw truncated(null);
    try {
      return readEntries();
    } catch (MappedFileFault e) {
      throw truncated(e.getCause());
    } catch (InternalError e) {
      throw truncated(e);
    }
  }

  private RegistryFormatException truncated(Throwable cause) {
    RegistryFormatException f = new RegistryFormatException(file, "file size", "truncated while mapped",
        ">= " + REG_FILE_BYTES + " bytes");
    f.initCause(cause);
    return f;
  }

  private List<RegistryEntry> readEntries() throws IOException {
    List<RegistryEntry> out = new ArrayList<>();
    LaunchSymbol[] syms = LaunchSymbol.values();
    for (int i = 0; i < REG_ENTRY_COUNT; i++) {
      int o = entryOff(i);
      if (mem.getInt(o + RE_STATE) != REG_ENTRY_ACTIVE) continue;
      Map<String, Long> bySym = new LinkedHashMap<>();
      for (LaunchSymbol s : syms) {
        long n = mem.getLong(o + RE_SYMBOL_LAUNCHES + 8 * s.ordinal());
        if (n != 0) bySym.put(s.name(), n);
      }
      int prio = mem.getInt(o + RE_PRIORITY_CLASS);
      out.add(new RegistryEntry(
          i,
          mem.getLong(o + RE_KEY),
          name(o),
          mem.getInt(o + RE_WEIGHT),
          mem.getInt(o + RE_CAP_PCT),
          prio == REG_PRIO_HIGH ? Priority.HIGH : Priority.NORMAL,
          (mem.getInt(o + RE_FLAGS) & REG_ENTRYF_PINNED) != 0,
          live(i),
          mem.getLong(o + RE_LAST_LAUNCH_NS),
          mem.getLong(o + RE_LAUNCHES),
          mem.getLong(o + RE_BUSY_NS),
          mem.getLong(o + RE_THROTTLED_NS),
          mem.getInt(o + RE_SHARE_PPM),
          mem.getLong(o + RE_COST_NS),
          mem.getLong(o + RE_SAMPLES),
          bySym));
    }
    return out;
  }

  private String name(int entryOff) {
    byte[] b = mem.getBytes(entryOff + RE_NAME, REG_NAME_BYTES);
    int n = 0;
    while (n < b.length && b[n] != 0) n++;
    return new String(b, 0, n, StandardCharsets.UTF_8);
  }

  /** Whether some process holds entry i's liveness lock (an exclusive probe fails). */
  private boolean live(int i) throws IOException {
    FileLock probe = tryLock(channel, lockEntry(i), false);
    if (probe == null) return true;
    probe.release();
    return false;
  }

  // ---------------------------------------------------------------- node agent writes

  /**
   * Registers (or updates) a container: a pinned entry that survives while no process of the
   * container runs, so its configuration is visible before the first launch. The limiter later joins
   * the entry with the same key and overwrites weight, cap and priority with the quota region's.
   *
   * @return the entry index
   * @throws RegistryBusyException if the admin lock stays held for more than 2 s
   * @throws IllegalStateException if all 64 entries belong to other containers with live processes
   *     or pinned registrations
   */
  public synchronized int register(RegistryMember m) throws IOException {
    ensureOpen();
    FileLock admin = lockBounded(channel, REG_LOCK_ADMIN);
    if (admin == null) throw new RegistryBusyException(file, "admin lock held for more than " + LOCK_WAIT_MS + " ms");
    try {
      int found = -1;
      for (int i = 0; i < REG_ENTRY_COUNT && found < 0; i++) {
        int o = entryOff(i);
        if (mem.getInt(o + RE_STATE) == REG_ENTRY_ACTIVE && mem.getLong(o + RE_KEY) == m.key()) found = i;
      }
      if (found < 0) {
        for (int pass = 0; pass < 2 && found < 0; pass++) {
          for (int i = 0; i < REG_ENTRY_COUNT && found < 0; i++) {
            int o = entryOff(i);
            int s = mem.getInt(o + RE_STATE);
            if (pass == 0 && s == REG_ENTRY_FREE) found = i;
            else if (pass == 1 && s != REG_ENTRY_FREE && (mem.getInt(o + RE_FLAGS) & REG_ENTRYF_PINNED) == 0 && !live(i)) {
              found = i;
            }
          }
        }
        if (found < 0) throw new IllegalStateException("compute registry " + file + ": all " + REG_ENTRY_COUNT + " entries are in use");
        int o = entryOff(found);
        mem.setInt(o + RE_STATE, REG_ENTRY_CLAIMING);
        mem.zero(o + 64, REG_ENTRY_BYTES - 64);
        mem.setLong(o + RE_KEY, m.key());
        mem.addInt(o + RE_GENERATION, 1);
      }
      int o = entryOff(found);
      mem.setInt(o + RE_FLAGS, mem.getInt(o + RE_FLAGS) | REG_ENTRYF_PINNED);
      mem.setInt(o + RE_WEIGHT, m.weight());
      mem.setInt(o + RE_CAP_PCT, m.capPct());
      mem.setInt(o + RE_PRIORITY_CLASS, m.priority() == Priority.HIGH ? REG_PRIO_HIGH : REG_PRIO_NORMAL);
      mem.setBytes(o + RE_NAME, m.name().getBytes(StandardCharsets.UTF_8), REG_NAME_BYTES);
      mem.setInt(o + RE_STATE, REG_ENTRY_ACTIVE);
      return found;
    } finally {
      admin.release();
    }
  }

  /**
   * Removes a container's registration: its entry becomes free once no process of it is live (until
   * then only the pin is dropped, and the limiter reclaims the entry after the last process exits).
   *
   * @return true if an entry with this key existed
   * @throws RegistryBusyException if the admin lock stays held for more than 2 s
   */
  public synchronized boolean unregister(long key) throws IOException {
    ensureOpen();
    FileLock admin = lockBounded(channel, REG_LOCK_ADMIN);
    if (admin == null) throw new RegistryBusyException(file, "admin lock held for more than " + LOCK_WAIT_MS + " ms");
    try {
      for (int i = 0; i < REG_ENTRY_COUNT; i++) {
        int o = entryOff(i);
        if (mem.getInt(o + RE_STATE) != REG_ENTRY_ACTIVE || mem.getLong(o + RE_KEY) != key) continue;
        mem.setInt(o + RE_FLAGS, mem.getInt(o + RE_FLAGS) & ~REG_ENTRYF_PINNED);
        if (!live(i)) mem.setInt(o + RE_STATE, REG_ENTRY_FREE);
        return true;
      }
      return false;
    } finally {
      admin.release();
    }
  }

  private void ensureOpen() {
    if (closed) throw new IllegalStateException("compute registry " + file + " is closed");
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed) return;
    closed = true;
    try {
      channel.close();
    } finally {
      owner.unregister(ownerKey);
    }
  }
}
