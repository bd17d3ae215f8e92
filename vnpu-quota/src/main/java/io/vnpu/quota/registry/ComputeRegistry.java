package io.vnpu.quota.registry;

import static io.vnpu.quota.layout.RegistryLayout.*;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.layout.RegionLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
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
 * An open per-NPU compute registry (layout {@code VNPUREG1} v2, {@code docs/compute-registry.md}),
 * from the node agent's side: it is the registry's only writer. It registers containers (key, weight,
 * cap, priority class, which logical device of the container's quota region is this NPU) and
 * hard-links each container's quota region next to the registry as its activity link; the limiters
 * only read. The file is accessed with positional reads and writes, never mapped, so a file shrunk
 * under it cannot fault the JVM. Thread-safe. Obtain it from {@link ComputeRegistries}.
 */
public final class ComputeRegistry implements AutoCloseable {
  static final long LOCK_WAIT_MS = 2000;
  /** {@code rw-r--r--}: only the node agent writes a registry; containers read it. */
  static final java.util.Set<java.nio.file.attribute.PosixFilePermission> REGISTRY_FILE_MODE =
      PosixFilePermissions.fromString("rw-r--r--");

  /** {@code rw-------}: the lock file is the agent's alone. */
  static final java.util.Set<java.nio.file.attribute.PosixFilePermission> LOCK_FILE_MODE = HostFiles.OWNER_ONLY_FILE;

  private final Path file;
  private final FileChannel channel;
  private final ComputeRegistries owner;
  private final Object ownerKey;
  /** The agents' record locks ({@link #lockFile}); opened at the first write. */
  private FileChannel locks;
  private boolean closed;

  private ComputeRegistry(Path file, FileChannel channel, ComputeRegistries owner, Object key) {
    this.file = file;
    this.channel = channel;
    this.owner = owner;
    this.ownerKey = key;
  }

  // ---------------------------------------------------------------- open / create

  static ComputeRegistry createOrOpen(Path file, int physId, ComputeRegistries owner) throws IOException {
    // the registry directory is shared with the containers: create exclusively and never follow a
    // link a tenant planted under the registry's name (HostFiles rules)
    try {
      HostFiles.createExclusive(file, REGISTRY_FILE_MODE).close();
    } catch (FileAlreadyExistsException exists) {
      // another initialiser created it (or something else has the name): opened no-follow below
    }
    // only the node agent writes a registry; the limiter refuses one writable by group or others
    if (!Files.isSymbolicLink(file)) HostFiles.setMode(file, REGISTRY_FILE_MODE);
    Object key = owner.register(file);
    FileChannel ch = null;
    FileChannel locks = null;
    try {
      ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
      locks = openLockFile(file);
      FileLock init = lockBounded(locks, REG_LOCK_INIT);
      if (init == null) {
        throw new RegistryBusyException(file, "init lock (" + lockFile(file) + ") held for more than " + LOCK_WAIT_MS + " ms");
      }
      try {
        ComputeRegistry r = new ComputeRegistry(file, ch, owner, key);
        r.locks = locks;
        if (r.problem().isPresent()) r.initialise(physId);
        return r;
      } finally {
        init.release();
      }
    } catch (IOException | RuntimeException e) {
      if (locks != null) locks.close();
      if (ch != null) ch.close();
      owner.unregister(key);
      throw e;
    }
  }

  /**
   * The file whose record locks serialise the node agents' writes to {@code registry}:
   * {@code <registry dir>.locks/<registry file name>.lock}, beside the registry directory and never
   * in it. The registry directory is mounted read-only into containers, and a read-only descriptor
   * is enough for a shared record lock ({@code F_RDLCK}), which would block the agent's exclusive
   * lock: a tenant could then stop every registration on its NPU. No container sees this file.
   */
  public static Path lockFile(Path registry) {
    Path dir = registry.toAbsolutePath().normalize().getParent();
    if (dir == null || dir.getParent() == null) {
      throw new IllegalArgumentException("compute registry " + registry + ": its directory must not be the root directory");
    }
    return dir.resolveSibling(dir.getFileName() + ".locks").resolve(registry.getFileName() + ".lock");
  }

  /** Opens (creating it 0600 in a trusted 0700 directory, never through a link) the lock file of {@code registry}. */
  private static FileChannel openLockFile(Path registry) throws IOException {
    Path lock = lockFile(registry);
    HostFiles.ensureTrustedDirectory(lock.getParent(), HostFiles.OWNER_ONLY_DIR);
    try {
      return HostFiles.createExclusive(lock, LOCK_FILE_MODE);
    } catch (FileAlreadyExistsException exists) {
      return FileChannel.open(lock, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    }
  }

  private FileChannel locks() throws IOException {
    if (locks == null) locks = openLockFile(file);
    return locks;
  }

  static ComputeRegistry open(Path file, ComputeRegistries owner) throws IOException {
    Object key = owner.register(file);
    FileChannel ch = null;
    try {
      ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
      ComputeRegistry r = new ComputeRegistry(file, ch, owner, key);
      Optional<RegistryFormatException> bad = r.problem();
      if (bad.isPresent()) throw bad.get();
      return r;
    } catch (IOException | RuntimeException e) {
      if (ch != null) ch.close();
      owner.unregister(key);
      throw e;
    }
  }

  // ---------------------------------------------------------------- positional I/O

  private ByteBuffer read(long off, int len) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
    while (b.hasRemaining()) {
      if (channel.read(b, off + b.position()) < 0) break;
    }
    b.flip();
    if (b.remaining() < len) {
      ByteBuffer full = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
      full.put(b);
      full.clear();
      return full; // a short file reads as zeros beyond its end
    }
    return b;
  }

  private void write(long off, ByteBuffer b) throws IOException {
    b.flip();
    while (b.hasRemaining()) channel.write(b, off + b.position());
  }

  private void putInt(long off, int v) throws IOException {
    write(off, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v));
  }

  private void putLong(long off, long v) throws IOException {
    write(off, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v));
  }

  /** The first header check that fails, in the order the C limiter checks them. */
  private Optional<RegistryFormatException> problem() throws IOException {
    long size = channel.size();
    if (size < REG_HDR_BYTES) {
      return bad("file size", Long.toString(size), ">= " + REG_FILE_BYTES + " bytes");
    }
    ByteBuffer h = read(0, REG_HDR_BYTES);
    long magic = h.getLong(RH_MAGIC);
    if (magic != REG_MAGIC) {
      return bad("VNPU_RH_MAGIC", "0x" + Long.toHexString(magic), "0x" + Long.toHexString(REG_MAGIC));
    }
    int major = Short.toUnsignedInt(h.getShort(RH_MAJOR));
    if (major != REG_MAJOR) return bad("VNPU_RH_MAJOR", Integer.toString(major), Integer.toString(REG_MAJOR));
    long fileBytes = h.getLong(RH_FILE_BYTES);
    if (fileBytes < REG_FILE_BYTES || size < REG_FILE_BYTES) {
      return bad("VNPU_RH_FILE_BYTES", fileBytes + " (file size " + size + ")", ">= " + REG_FILE_BYTES);
    }
    if (h.getInt(RH_ENTRY_COUNT) != REG_ENTRY_COUNT) {
      return bad("VNPU_RH_ENTRY_COUNT", Integer.toString(h.getInt(RH_ENTRY_COUNT)), Integer.toString(REG_ENTRY_COUNT));
    }
    if (h.getInt(RH_ENTRY_BYTES) != REG_ENTRY_BYTES) {
      return bad("VNPU_RH_ENTRY_BYTES", Integer.toString(h.getInt(RH_ENTRY_BYTES)), Integer.toString(REG_ENTRY_BYTES));
    }
    if (h.getInt(RH_HEADER_BYTES) != REG_HDR_BYTES) {
      return bad("VNPU_RH_HEADER_BYTES", Integer.toString(h.getInt(RH_HEADER_BYTES)), Integer.toString(REG_HDR_BYTES));
    }
    int state = h.getInt(RH_INIT_STATE);
    if (state != REG_INIT_READY) return bad("VNPU_RH_INIT_STATE", Integer.toString(state), "2 (READY)");
    return Optional.empty();
  }

  private Optional<RegistryFormatException> bad(String field, String actual, String expected) {
    return Optional.of(new RegistryFormatException(file, field, actual, expected));
  }

  /** Same order as the C side: hide the file from readers (all zero), fill the header, publish. */
  private void initialise(int physId) throws IOException {
    write(0, ByteBuffer.allocate(REG_FILE_BYTES).position(REG_FILE_BYTES));
    channel.truncate(REG_FILE_BYTES);
    ByteBuffer h = ByteBuffer.allocate(REG_HDR_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    h.putInt(RH_INIT_STATE, REG_INIT_INITIALISING);
    h.putShort(RH_MAJOR, (short) REG_MAJOR);
    h.putShort(RH_MINOR, (short) REG_MINOR);
    h.putInt(RH_HEADER_BYTES, REG_HDR_BYTES);
    h.putLong(RH_FILE_BYTES, REG_FILE_BYTES);
    h.putInt(RH_ENTRY_COUNT, REG_ENTRY_COUNT);
    h.putInt(RH_ENTRY_BYTES, REG_ENTRY_BYTES);
    h.putInt(RH_PHYS_ID, physId);
    long epoch = 0;
    SecureRandom rnd = new SecureRandom();
    while (epoch == 0) epoch = rnd.nextLong();
    h.putLong(RH_EPOCH, epoch);
    java.time.Instant now = java.time.Instant.now();
    h.putLong(RH_CREATED_NS, now.getEpochSecond() * 1_000_000_000L + now.getNano());
    h.putInt(RH_ACTIVE_WINDOW_MS, REG_DEFAULT_ACTIVE_WINDOW_MS);
    h.putInt(RH_BURST_US, REG_DEFAULT_BURST_US);
    h.putInt(RH_PRIO_WAIT_MS, REG_DEFAULT_PRIO_WAIT_MS);
    h.putInt(RH_CREATOR, REG_CREATOR_JAVA);
    h.position(REG_HDR_BYTES);
    write(0, h);
    putLong(RH_MAGIC, REG_MAGIC);
    putInt(RH_INIT_STATE, REG_INIT_READY);
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

  /**
   * Phy ID of the NPU this registry coordinates.
   *
   * @throws java.io.UncheckedIOException if the file cannot be read
   */
  public int physId() {
    try {
      return read(RH_PHYS_ID, 4).getInt(0);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Initialisation epoch (random, non-zero, new at every initialisation).
   *
   * @throws java.io.UncheckedIOException if the file cannot be read
   */
  public long epoch() {
    try {
      return read(RH_EPOCH, 8).getLong(0);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The activity link of a container: a hard link to its quota region next to the registry. */
  public Path activityLink(long key) {
    Path parent = file.toAbsolutePath().getParent();
    return parent.resolve(activityLinkName(physId(), key));
  }

  /**
   * Keys of the ACTIVE entries, in entry order: one read of the registry, no quota region opened
   * (what a node agent's periodic clean-up needs; {@link #entries()} also reads every region).
   *
   * @throws IOException if the registry cannot be read
   */
  public synchronized List<Long> keys() throws IOException {
    ensureOpen();
    ByteBuffer all = read(0, REG_FILE_BYTES);
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < REG_ENTRY_COUNT; i++) {
      int o = entryOff(i);
      if (all.getInt(o + RE_STATE) == REG_ENTRY_ACTIVE) out.add(all.getLong(o + RE_KEY));
    }
    return out;
  }

  /**
   * Snapshot of every ACTIVE entry. Statistics come from the container's own quota region through its
   * activity link (zero when it has none); {@code live} is true when some process holds a slot of that
   * region.
   *
   * @throws IOException if the registry cannot be read
   */
  public synchronized List<RegistryEntry> entries() throws IOException {
    ensureOpen();
    List<RegistryEntry> out = new ArrayList<>();
    ByteBuffer all = read(0, REG_FILE_BYTES);
    for (int i = 0; i < REG_ENTRY_COUNT; i++) {
      int o = entryOff(i);
      if (all.getInt(o + RE_STATE) != REG_ENTRY_ACTIVE) continue;
      long key = all.getLong(o + RE_KEY);
      int dev = all.getInt(o + RE_DEVICE_INDEX);
      int prio = all.getInt(o + RE_PRIORITY_CLASS);
      Activity a = activity(key, dev);
      out.add(new RegistryEntry(
          i,
          key,
          name(all, o),
          all.getInt(o + RE_WEIGHT),
          all.getInt(o + RE_CAP_PCT),
          prio == REG_PRIO_HIGH ? Priority.HIGH : Priority.NORMAL,
          true,
          a.live,
          a.ds.getLong(RegionLayout.DS_LAST_LAUNCH_NS),
          a.ds.getLong(RegionLayout.DS_LAUNCHES),
          a.ds.getLong(RegionLayout.DS_BUSY_NS),
          a.ds.getLong(RegionLayout.DS_THROTTLED_NS),
          a.ds.getInt(RegionLayout.DS_SHARE_PPM),
          a.ds.getLong(RegionLayout.DS_COST_EMA_NS),
          a.ds.getLong(RegionLayout.DS_SAMPLES),
          a.bySymbol));
    }
    return out;
  }

  private record Activity(boolean live, ByteBuffer ds, Map<String, Long> bySymbol) {}

  /** Reads a container's statistics from its quota region through the activity link. */
  private Activity activity(long key, int dev) throws IOException {
    ByteBuffer empty = ByteBuffer.allocate(RegionLayout.DEVSTATE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    Path link = activityLink(key);
    if (dev < 0 || dev >= RegionLayout.REGION_MAX_DEVICES || !Files.isRegularFile(link, LinkOption.NOFOLLOW_LINKS)) {
      return new Activity(false, empty, Map.of());
    }
    ByteBuffer r = ByteBuffer.allocate(RegionLayout.REGION_FILE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    boolean live = false;
    try (FileChannel ch = FileChannel.open(link, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      while (r.hasRemaining() && ch.read(r, r.position()) > 0) {
        // positional reads until EOF: a shrunk region reads as zeros
      }
      r.clear();
      // a slot owner holds its slot's record lock while it lives (docs/region-layout.md)
      for (int s = 0; s < RegionLayout.REGION_SLOT_COUNT && !live; s++) {
        if (r.getInt(RegionLayout.slotOff(s) + RegionLayout.S_STATE) == RegionLayout.SLOT_FREE) continue;
        live = slotHeld(ch, RegionLayout.lockSlot(s));
      }
    } catch (NoSuchFileException gone) {
      return new Activity(false, empty, Map.of());
    }
    ByteBuffer ds = r.slice(RegionLayout.devStateOff(dev), RegionLayout.DEVSTATE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    Map<String, Long> bySym = new LinkedHashMap<>();
    for (LaunchSymbol s : LaunchSymbol.values()) {
      long n = r.getLong(RegionLayout.H_SYMBOL_LAUNCHES + 8 * s.ordinal());
      if (n != 0) bySym.put(s.name(), n);
    }
    return new Activity(live, ds, bySym);
  }

  /** Whether some process holds this lock byte (shared probe: a read-only descriptor suffices). */
  private static boolean slotHeld(FileChannel ch, long pos) throws IOException {
    try {
      FileLock probe = ch.tryLock(pos, 1, true);
      if (probe == null) return true;
      probe.release();
      return false;
    } catch (OverlappingFileLockException thisJvm) {
      return true; // this JVM holds the region open (e.g. vnpu run's own slot)
    }
  }

  private static String name(ByteBuffer all, int entryOff) {
    byte[] b = new byte[REG_NAME_BYTES];
    all.get(entryOff + RE_NAME, b);
    int n = 0;
    while (n < b.length && b[n] != 0) n++;
    return new String(b, 0, n, StandardCharsets.UTF_8);
  }

  // ---------------------------------------------------------------- node agent writes

  /**
   * Registers (or updates) a container, and when the member names its quota region, hard-links the
   * region as the container's activity link (neighbours read its activity time there; a container
   * without a link counts as busy for its neighbours).
   *
   * @return the entry index
   * @throws RegistryBusyException if the admin lock stays held for more than 2 s
   * @throws IllegalStateException if all 64 entries belong to other containers
   * @throws IOException if the registry cannot be written or the link cannot be made (e.g. the region
   *     lies on another file system than the registry: message names both paths)
   */
  public synchronized int register(RegistryMember m) throws IOException {
    ensureOpen();
    FileLock admin = lockBounded(locks(), REG_LOCK_ADMIN);
    if (admin == null) {
      throw new RegistryBusyException(file, "admin lock (" + lockFile(file) + ") held for more than " + LOCK_WAIT_MS + " ms");
    }
    try {
      ByteBuffer all = read(0, REG_FILE_BYTES);
      int found = -1;
      for (int i = 0; i < REG_ENTRY_COUNT && found < 0; i++) {
        int o = entryOff(i);
        if (all.getInt(o + RE_STATE) == REG_ENTRY_ACTIVE && all.getLong(o + RE_KEY) == m.key()) found = i;
      }
      for (int i = 0; i < REG_ENTRY_COUNT && found < 0; i++) {
        if (all.getInt(entryOff(i) + RE_STATE) == REG_ENTRY_FREE) found = i;
      }
      if (found < 0) throw new IllegalStateException("compute registry " + file + ": all " + REG_ENTRY_COUNT + " entries are in use");
      int o = entryOff(found);
      ByteBuffer e = ByteBuffer.allocate(REG_ENTRY_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      e.putInt(RE_STATE, REG_ENTRY_ACTIVE);
      e.putLong(RE_KEY, m.key());
      e.putInt(RE_WEIGHT, m.weight());
      e.putInt(RE_CAP_PCT, m.capPct());
      e.putInt(RE_PRIORITY_CLASS, m.priority() == Priority.HIGH ? REG_PRIO_HIGH : REG_PRIO_NORMAL);
      e.putInt(RE_GENERATION, all.getInt(o + RE_GENERATION) + 1);
      byte[] name = m.name().getBytes(StandardCharsets.UTF_8);
      e.put(RE_NAME, name, 0, Math.min(name.length, REG_NAME_BYTES - 1));
      e.putInt(RE_DEVICE_INDEX, m.deviceIndex());
      e.position(REG_ENTRY_BYTES);
      int seq = beginWrite();
      write(o, e);
      endWrite(seq);
      Path link = activityLink(m.key());
      Files.deleteIfExists(link);
      if (m.region().isPresent()) {
        try {
          Files.createLink(link, m.region().get());
        } catch (IOException | UnsupportedOperationException ex) {
          // an entry without its link counts as busy for every neighbour: it must not outlive the failure
          int undo = beginWrite();
          putInt(o + RE_STATE, REG_ENTRY_FREE);
          endWrite(undo);
          throw new IOException("compute registry " + file + ": cannot hard-link quota region " + m.region().get()
              + " as " + link + " (it must be on the registry's file system): " + ex.getMessage(), ex);
        }
      }
      return found;
    } finally {
      admin.release();
    }
  }

  /**
   * Removes a container's registration and its activity link.
   *
   * @return true if an entry with this key existed
   * @throws RegistryBusyException if the admin lock stays held for more than 2 s
   */
  public synchronized boolean unregister(long key) throws IOException {
    ensureOpen();
    FileLock admin = lockBounded(locks(), REG_LOCK_ADMIN);
    if (admin == null) {
      throw new RegistryBusyException(file, "admin lock (" + lockFile(file) + ") held for more than " + LOCK_WAIT_MS + " ms");
    }
    try {
      ByteBuffer all = read(0, REG_FILE_BYTES);
      boolean found = false;
      for (int i = 0; i < REG_ENTRY_COUNT; i++) {
        int o = entryOff(i);
        if (all.getInt(o + RE_STATE) != REG_ENTRY_ACTIVE || all.getLong(o + RE_KEY) != key) continue;
        int seq = beginWrite();
        putInt(o + RE_STATE, REG_ENTRY_FREE);
        endWrite(seq);
        found = true;
      }
      Files.deleteIfExists(activityLink(key));
      return found;
    } finally {
      admin.release();
    }
  }

  /**
   * Removes the activity links next to this registry that belong to no ACTIVE entry of it: left by
   * an agent killed between freeing an entry and removing its link (each would keep a quota region
   * file alive on disk for ever). Holds the admin lock, so no registration is half-made meanwhile.
   *
   * @return the names of the links removed
   * @throws RegistryBusyException if the admin lock stays held for more than 2 s
   * @throws IOException if the registry or its directory cannot be read
   */
  public synchronized List<String> removeOrphanLinks() throws IOException {
    ensureOpen();
    FileLock admin = lockBounded(locks(), REG_LOCK_ADMIN);
    if (admin == null) {
      throw new RegistryBusyException(file, "admin lock (" + lockFile(file) + ") held for more than " + LOCK_WAIT_MS + " ms");
    }
    try {
      java.util.Set<Long> active = new java.util.HashSet<>(keys());
      java.util.regex.Pattern mine = java.util.regex.Pattern.compile("npu" + physId() + "-([0-9a-f]{16})\\.act");
      List<String> removed = new ArrayList<>();
      try (java.nio.file.DirectoryStream<Path> ds = Files.newDirectoryStream(file.toAbsolutePath().getParent())) {
        for (Path p : ds) {
          java.util.regex.Matcher m = mine.matcher(p.getFileName().toString());
          if (!m.matches() || active.contains(Long.parseUnsignedLong(m.group(1), 16))) continue;
          if (Files.deleteIfExists(p)) removed.add(p.getFileName().toString());
        }
      }
      return removed;
    } finally {
      admin.release();
    }
  }

  /**
   * Marks a write in progress: {@code write_seq} odd. An agent killed inside a write left it odd; the
   * next write steps past that value (to the next odd one), so the seqlock's parity holds again:
   * odd only while a write is in progress, which is when readers retry.
   *
   * @return the odd value written; pass it to {@link #endWrite}
   */
  private int beginWrite() throws IOException {
    int seq = read(RH_WRITE_SEQ, 4).getInt(0);
    int begin = (seq & 1) == 0 ? seq + 1 : seq + 2;
    putInt(RH_WRITE_SEQ, begin);
    return begin;
  }

  private void endWrite(int begin) throws IOException {
    putInt(RH_WRITE_SEQ, begin + 1);
  }

  private void ensureOpen() {
    if (closed) throw new IllegalStateException("compute registry " + file + " is closed");
  }

  @Override
  @SuppressWarnings("try") // the lock channel is closed by the try, after the data channel
  public synchronized void close() throws IOException {
    if (closed) return;
    closed = true;
    try (FileChannel l = locks) {
      channel.close();
    } finally {
      owner.unregister(ownerKey);
    }
  }
}
