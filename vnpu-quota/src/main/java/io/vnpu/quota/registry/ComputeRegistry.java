package io.vnpu.quota.registry;

import static io.vnpu.quota.layout.RegistryLayout.*;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.files.RandomIds;
import io.vnpu.quota.files.TenantFileException;
import io.vnpu.quota.files.TenantFiles;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An open per-NPU compute registry (layout {@code VNPUREG1} v3, {@code docs/compute-registry.md}),
 * from the node agent's side: it is the registry's only writer. It registers containers (key,
 * weight, cap, priority class, which logical device of the container's quota region is this NPU),
 * records each container's region in the agents' own file beside the registry directory (member
 * table; no container can open it), and {@linkplain #publish publishes} every container's usage,
 * read from its region, into the registry; the limiters only read the registry.
 *
 * <p>The registry is written in place through the descriptor this object holds from opening (while
 * an agent holds it open for writing, nobody can take a lease on it), full-size from creation (a
 * full file system cannot fail a write), with positional reads and writes, never mapped (a file
 * shrunk under it cannot fault the JVM). Opening is non-blocking ({@link TenantFiles}); when a
 * tenant's lease makes that fail, the registry is rebuilt from the member table and atomically
 * replaced. Thread-safe. Obtain it from {@link ComputeRegistries}.
 */
public final class ComputeRegistry implements AutoCloseable {
  static final long LOCK_WAIT_MS = 2000;

  /** {@code rw-r--r--}: only the node agent writes a registry; containers read it. */
  static final java.util.Set<java.nio.file.attribute.PosixFilePermission> REGISTRY_FILE_MODE =
      PosixFilePermissions.fromString("rw-r--r--");

  /** {@code rw-------}: the lock file is the agent's alone. */
  static final java.util.Set<java.nio.file.attribute.PosixFilePermission> LOCK_FILE_MODE =
      HostFiles.OWNER_ONLY_FILE;

  /** Largest registry file opened (a huge file in its place is refused, not read). */
  static final long MAX_REGISTRY_BYTES = 1L << 20;

  private final Path file;
  private FileChannel channel;

  /** Identity (device and inode) of the file {@link #channel} is open on. */
  private Object channelKey;

  private final ComputeRegistries owner;
  private final Object ownerKey;
  private final TenantFiles tenantFiles;

  /**
   * The agents' file ({@link #lockFile}: record locks and member table); opened at the first write.
   */
  private FileChannel locks;

  /** Held while this process is the registry's publisher. */
  private FileLock publishing;

  private final Map<Integer, Member> members = new java.util.HashMap<>();
  private boolean closed;

  private ComputeRegistry(
      Path file, FileChannel channel, ComputeRegistries owner, Object key, TenantFiles tenantFiles)
      throws IOException {
    this.file = file;
    this.channel = channel;
    this.channelKey = fileKey(file);
    this.owner = owner;
    this.ownerKey = key;
    this.tenantFiles = tenantFiles;
  }

  private static Object fileKey(Path p) throws IOException {
    return Files.readAttributes(
            p, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
  }

  // ---------------------------------------------------------------- open / create

  static ComputeRegistry createOrOpen(
      Path file, int physId, ComputeRegistries owner, TenantFiles tenantFiles) throws IOException {
    FileChannel locks = openLockFile(file);
    FileChannel ch = null;
    Object key = null;
    try {
      FileLock init = lockBounded(locks, REG_LOCK_INIT);
      if (init == null) {
        throw new RegistryBusyException(
            file, "init lock (" + lockFile(file) + ") held for more than " + LOCK_WAIT_MS + " ms");
      }
      try {
        // the registry directory is shared with the containers: create exclusively and never follow
        // a
        // link a tenant planted under the registry's name (HostFiles rules); the descriptor of the
        // creation is the one kept
        try {
          ch = HostFiles.createExclusive(file, REGISTRY_FILE_MODE);
        } catch (FileAlreadyExistsException exists) {
          ch = openExisting(file, locks, tenantFiles);
        }
        // only the node agent writes a registry; the limiter refuses one writable by group or
        // others
        if (!Files.isSymbolicLink(file)) HostFiles.setMode(file, REGISTRY_FILE_MODE);
        key = owner.register(file);
        ComputeRegistry r = new ComputeRegistry(file, ch, owner, key, tenantFiles);
        r.locks = locks;
        if (r.problem().isPresent()) r.initialise(physId);
        r.loadMembers();
        return r;
      } finally {
        init.release();
      }
    } catch (IOException | RuntimeException e) {
      locks.close();
      if (ch != null) ch.close();
      if (key != null) owner.unregister(key);
      throw e;
    }
  }

  /**
   * Opens an existing registry without blocking. When a tenant's lease (taken while no agent had
   * the file open) makes that fail, the registry is rebuilt from the member table into a new file
   * that atomically replaces it: the lease holder keeps the old inode, which nobody reads any more.
   */
  private static FileChannel openExisting(Path file, FileChannel locks, TenantFiles tenantFiles)
      throws IOException {
    try {
      return tenantFiles.open(file, true, 0, MAX_REGISTRY_BYTES, false);
    } catch (TenantFileException leasedOrWorse) {
      if (Files.isSymbolicLink(file)) throw leasedOrWorse;
      return replace(file, locks, leasedOrWorse);
    }
  }

  private static FileChannel replace(Path file, FileChannel locks, TenantFileException why)
      throws IOException {
    // the old file may not be readable either (a write lease blocks every open): rebuild the
    // entries
    // from the member table; the header is initialised afresh (createOrOpen: its magic is missing)
    byte[] content = new byte[REG_FILE_BYTES];
    ByteBuffer agf = ByteBuffer.allocate(AGF_FILE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    while (agf.hasRemaining() && locks.read(agf, agf.position()) > 0) {
      // positional reads of the member table
    }
    for (int i = 0; i < REG_ENTRY_COUNT; i++) {
      int m = memberOff(i);
      if (agf.getLong(m + AGF_KEY) == 0) continue;
      System.arraycopy(agf.array(), m + AGF_ENTRY, content, entryOff(i), REG_ENTRY_BYTES);
    }
    Path tmp = HostFiles.temporarySibling(file);
    FileChannel ch = HostFiles.createExclusive(tmp, REGISTRY_FILE_MODE);
    try {
      ByteBuffer w = ByteBuffer.wrap(content);
      while (w.hasRemaining()) ch.write(w, w.position());
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      ch.close();
      HostFiles.deleteQuietly(tmp);
      e.addSuppressed(why);
      throw e;
    }
    org.slf4j.LoggerFactory.getLogger(ComputeRegistry.class)
        .warn(
            "{}; replaced it by a copy rebuilt from the agents' member table (the header is initialised afresh)",
            why.getMessage());
    return ch;
  }

  /**
   * The file whose record locks serialise the node agents' writes to {@code registry}: {@code
   * <registry dir>.locks/<registry file name>.lock}, beside the registry directory and never in it.
   * The registry directory is mounted read-only into containers, and a read-only descriptor is
   * enough for a shared record lock ({@code F_RDLCK}), which would block the agent's exclusive
   * lock: a tenant could then stop every registration on its NPU. No container sees this file.
   */
  public static Path lockFile(Path registry) {
    Path dir = registry.toAbsolutePath().normalize().getParent();
    if (dir == null || dir.getParent() == null) {
      throw new IllegalArgumentException(
          "compute registry " + registry + ": its directory must not be the root directory");
    }
    return dir.resolveSibling(dir.getFileName() + ".locks")
        .resolve(registry.getFileName() + ".lock");
  }

  /**
   * Opens (creating it 0600 in a trusted 0700 directory, never through a link) the agents' file of
   * {@code registry}, full-size: its member table is written in place, so a full file system never
   * fails a registration's write to it.
   */
  private static FileChannel openLockFile(Path registry) throws IOException {
    Path lock = lockFile(registry);
    HostFiles.ensureTrustedDirectory(lock.getParent(), HostFiles.OWNER_ONLY_DIR);
    FileChannel ch;
    try {
      ch = HostFiles.createExclusive(lock, LOCK_FILE_MODE);
    } catch (FileAlreadyExistsException exists) {
      ch =
          FileChannel.open(
              lock, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    }
    try {
      long size = ch.size();
      if (size < AGF_FILE_BYTES) {
        ByteBuffer zero = ByteBuffer.allocate((int) (AGF_FILE_BYTES - size));
        while (zero.hasRemaining()) ch.write(zero, size + zero.position());
      }
      return ch;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  private FileChannel locks() throws IOException {
    if (locks == null) locks = openLockFile(file);
    return locks;
  }

  static ComputeRegistry open(Path file, ComputeRegistries owner, TenantFiles tenantFiles)
      throws IOException {
    Object key = owner.register(file);
    FileChannel ch = null;
    try {
      ch = tenantFiles.open(file, true, 0, MAX_REGISTRY_BYTES, false);
      ComputeRegistry r = new ComputeRegistry(file, ch, owner, key, tenantFiles);
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
      return bad(
          "VNPU_RH_MAGIC", "0x" + Long.toHexString(magic), "0x" + Long.toHexString(REG_MAGIC));
    }
    int major = Short.toUnsignedInt(h.getShort(RH_MAJOR));
    if (major != REG_MAJOR)
      return bad("VNPU_RH_MAJOR", Integer.toString(major), Integer.toString(REG_MAJOR));
    long fileBytes = h.getLong(RH_FILE_BYTES);
    if (fileBytes < REG_FILE_BYTES || size < REG_FILE_BYTES) {
      return bad(
          "VNPU_RH_FILE_BYTES", fileBytes + " (file size " + size + ")", ">= " + REG_FILE_BYTES);
    }
    if (h.getInt(RH_ENTRY_COUNT) != REG_ENTRY_COUNT) {
      return bad(
          "VNPU_RH_ENTRY_COUNT",
          Integer.toString(h.getInt(RH_ENTRY_COUNT)),
          Integer.toString(REG_ENTRY_COUNT));
    }
    if (h.getInt(RH_ENTRY_BYTES) != REG_ENTRY_BYTES) {
      return bad(
          "VNPU_RH_ENTRY_BYTES",
          Integer.toString(h.getInt(RH_ENTRY_BYTES)),
          Integer.toString(REG_ENTRY_BYTES));
    }
    if (h.getInt(RH_HEADER_BYTES) != REG_HDR_BYTES) {
      return bad(
          "VNPU_RH_HEADER_BYTES",
          Integer.toString(h.getInt(RH_HEADER_BYTES)),
          Integer.toString(REG_HDR_BYTES));
    }
    int state = h.getInt(RH_INIT_STATE);
    if (state != REG_INIT_READY)
      return bad("VNPU_RH_INIT_STATE", Integer.toString(state), "2 (READY)");
    return Optional.empty();
  }

  private Optional<RegistryFormatException> bad(String field, String actual, String expected) {
    return Optional.of(new RegistryFormatException(file, field, actual, expected));
  }

  /**
   * Same order as the C side: hide the file from readers (header zero), fill the header, publish.
   * Entries whose member slot names them (a registry rebuilt from the member table) are kept; every
   * other entry and member slot is cleared.
   */
  private void initialise(int physId) throws IOException {
    ByteBuffer agf = readAgents();
    ByteBuffer entries = read(REG_ENTRIES_OFF, REG_FILE_BYTES - REG_ENTRIES_OFF);
    ByteBuffer fresh = ByteBuffer.allocate(REG_FILE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < REG_ENTRY_COUNT; i++) {
      int e = entryOff(i) - REG_ENTRIES_OFF;
      long key = agf.getLong(memberOff(i) + AGF_KEY);
      if (key != 0
          && entries.getInt(e + RE_STATE) == REG_ENTRY_ACTIVE
          && entries.getLong(e + RE_KEY) == key) {
        fresh.put(entryOff(i), entries.array(), e, REG_ENTRY_BYTES);
      } else {
        putAgents(memberOff(i), ByteBuffer.allocate(AGF_MEMBER_BYTES));
      }
    }
    write(0, fresh.position(REG_FILE_BYTES));
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
    h.putLong(RH_EPOCH, RandomIds.nonZeroLong());
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

  private FileLock admin() throws IOException {
    FileLock admin = lockBounded(locks(), REG_LOCK_ADMIN);
    if (admin == null) {
      throw new RegistryBusyException(
          file, "admin lock (" + lockFile(file) + ") held for more than " + LOCK_WAIT_MS + " ms");
    }
    ensureCurrent();
    return admin;
  }

  /**
   * Another agent process may have replaced the registry file ({@link #openExisting}): under the
   * admin lock, write to the file now at the path, which that agent holds open (so it opens at
   * once).
   */
  private void ensureCurrent() throws IOException {
    Object now;
    try {
      now = fileKey(file);
    } catch (NoSuchFileException gone) {
      return; // removed under us: keep writing our descriptor; the next createOrOpen makes a new
      // one
    }
    if (now == null || now.equals(channelKey)) return;
    FileChannel fresh = tenantFiles.open(file, true, 0, MAX_REGISTRY_BYTES, false);
    channel.close();
    channel = fresh;
    channelKey = now;
  }

  private ByteBuffer readAgents() throws IOException {
    ByteBuffer b = ByteBuffer.allocate(AGF_FILE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    FileChannel l = locks();
    while (b.hasRemaining()) {
      if (l.read(b, b.position()) < 0) break;
    }
    return b.clear();
  }

  private void putAgents(long off, ByteBuffer b) throws IOException {
    b.clear();
    FileChannel l = locks();
    while (b.hasRemaining()) l.write(b, off + b.position());
  }

  /** A member slot: which region file is registry entry i's container, and its identity then. */
  record Member(long key, Optional<Path> region, long dev, long ino) {}

  private void loadMembers() throws IOException {
    members.clear();
    ByteBuffer agf = readAgents();
    for (int i = 0; i < REG_ENTRY_COUNT; i++) {
      int m = memberOff(i);
      long key = agf.getLong(m + AGF_KEY);
      if (key == 0) continue;
      byte[] p = new byte[AGF_PATH_BYTES];
      agf.get(m + AGF_PATH, p);
      int n = 0;
      while (n < p.length && p[n] != 0) n++;
      Optional<Path> region =
          n == 0
              ? Optional.empty()
              : Optional.of(Path.of(new String(p, 0, n, StandardCharsets.UTF_8)));
      members.put(i, new Member(key, region, agf.getLong(m + AGF_DEV), agf.getLong(m + AGF_INO)));
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
  public synchronized int physId() {
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
  public synchronized long epoch() {
    try {
      return read(RH_EPOCH, 8).getLong(0);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The quota region file and its identity (device, inode) as registered for {@code key}, from the
   * agents' member table; empty when the key has no entry or was registered without a region. What
   * the clean-up compares with the regions of live containers (nothing a container wrote decides
   * it).
   *
   * @throws IOException if the agents' file cannot be read
   */
  public synchronized Optional<RegisteredRegion> registeredRegion(long key) throws IOException {
    ensureOpen();
    loadMembers();
    for (Member m : members.values()) {
      if (m.key() == key && m.region().isPresent()) {
        return Optional.of(new RegisteredRegion(m.region().get(), m.dev(), m.ino()));
      }
    }
    return Optional.empty();
  }

  /**
   * A registered container's quota region as the agent recorded it at registration.
   *
   * @param file host path of the region file
   * @param dev its {@code st_dev} then
   * @param ino its {@code st_ino} then
   */
  public record RegisteredRegion(Path file, long dev, long ino) {}

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
   * Snapshot of every ACTIVE entry. On the agent's own instance (one that registered or created: it
   * holds the agents' file) the statistics are read from the container's quota region named in the
   * member table, non-blocking ({@link TenantFiles}); where that is not possible (another instance,
   * which never opens the agents' file since closing a descriptor of it would drop this JVM's
   * record locks on it; an unreadable region) launches, device time, throttled time and share are
   * the publisher's last publication and the rest (activity time, per-kernel estimate, samples,
   * launches per symbol, {@code live}) is zero.
   *
   * @throws IOException if the registry cannot be read
   */
  public synchronized List<RegistryEntry> entries() throws IOException {
    ensureOpen();
    if (locks != null) loadMembers();
    List<RegistryEntry> out = new ArrayList<>();
    ByteBuffer all = read(0, REG_FILE_BYTES);
    for (int i = 0; i < REG_ENTRY_COUNT; i++) {
      int o = entryOff(i);
      if (all.getInt(o + RE_STATE) != REG_ENTRY_ACTIVE) continue;
      long key = all.getLong(o + RE_KEY);
      int dev = all.getInt(o + RE_DEVICE_INDEX);
      int prio = all.getInt(o + RE_PRIORITY_CLASS);
      Member m = members.get(i);
      Activity a = locks != null && m != null && m.key() == key ? activity(m, dev) : Activity.NONE;
      out.add(
          new RegistryEntry(
              i,
              key,
              name(all, o),
              all.getInt(o + RE_WEIGHT),
              all.getInt(o + RE_CAP_PCT),
              prio == REG_PRIO_HIGH ? Priority.HIGH : Priority.NORMAL,
              true,
              a.live,
              a.ds.getLong(RegionLayout.DS_LAST_LAUNCH_NS),
              a.read ? a.ds.getLong(RegionLayout.DS_LAUNCHES) : all.getLong(o + RE_LAUNCHES),
              a.read ? a.ds.getLong(RegionLayout.DS_BUSY_NS) : all.getLong(o + RE_BUSY_NS),
              a.read
                  ? a.ds.getLong(RegionLayout.DS_THROTTLED_NS)
                  : all.getLong(o + RE_THROTTLED_NS),
              a.read ? a.ds.getInt(RegionLayout.DS_SHARE_PPM) : all.getInt(o + RE_SHARE_PPM),
              a.ds.getLong(RegionLayout.DS_COST_EMA_NS),
              a.ds.getLong(RegionLayout.DS_SAMPLES),
              a.bySymbol,
              all.getInt(o + RE_PUB_FLAGS),
              all.getInt(o + RE_USED_PPM),
              all.getInt(o + RE_BLOCKED_PPM)));
    }
    return out;
  }

  private record Activity(boolean read, boolean live, ByteBuffer ds, Map<String, Long> bySymbol) {
    static final Activity NONE =
        new Activity(
            false,
            false,
            ByteBuffer.allocate(RegionLayout.DEVSTATE_BYTES).order(ByteOrder.LITTLE_ENDIAN),
            Map.of());
  }

  /** Reads a container's statistics from its quota region (named in the member table). */
  private Activity activity(Member m, int dev) {
    if (dev < 0 || dev >= RegionLayout.REGION_MAX_DEVICES || m.region().isEmpty())
      return Activity.NONE;
    ByteBuffer r =
        ByteBuffer.allocate(RegionLayout.REGION_FILE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    boolean live = false;
    try (FileChannel ch =
        tenantFiles.open(
            m.region().get(),
            false,
            RegionLayout.REGION_FILE_BYTES,
            RegionLayout.REGION_FILE_BYTES,
            false)) {
      if (!sameInode(m)) return Activity.NONE;
      while (r.hasRemaining() && ch.read(r, r.position()) > 0) {
        // positional reads until EOF: a shrunk region reads as zeros
      }
      r.clear();
      // a slot owner holds its slot's record lock while it lives (docs/region-layout.md); a probe
      // never waits
      for (int s = 0; s < RegionLayout.REGION_SLOT_COUNT && !live; s++) {
        if (r.getInt(RegionLayout.slotOff(s) + RegionLayout.S_STATE) == RegionLayout.SLOT_FREE)
          continue;
        live = slotHeld(ch, RegionLayout.lockSlot(s));
      }
    } catch (IOException e) {
      return Activity.NONE; // gone, leased, replaced by something else: no statistics for it
    }
    ByteBuffer ds =
        r.slice(RegionLayout.devStateOff(dev), RegionLayout.DEVSTATE_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
    Map<String, Long> bySym = new LinkedHashMap<>();
    for (LaunchSymbol s : LaunchSymbol.values()) {
      long n = r.getLong(RegionLayout.H_SYMBOL_LAUNCHES + 8 * s.ordinal());
      if (n != 0) bySym.put(s.name(), n);
    }
    return new Activity(true, live, ds, bySym);
  }

  private static boolean sameInode(Member m) throws IOException {
    Map<String, Object> a =
        Files.readAttributes(m.region().get(), "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
    return ((Number) a.get("dev")).longValue() == m.dev()
        && ((Number) a.get("ino")).longValue() == m.ino();
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

  /**
   * Whether the entry at {@code entryOff} of the file image {@code all} is active with {@code key}.
   */
  private static boolean activeWithKey(ByteBuffer all, int entryOff, long key) {
    return all.getInt(entryOff + RE_STATE) == REG_ENTRY_ACTIVE
        && all.getLong(entryOff + RE_KEY) == key;
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
   * Registers (or updates) a container, and records its quota region (when the member names one) in
   * the agents' member table, from which the publisher reads its usage. A container registered
   * without a region is never published: it counts at its weighted share for its neighbours.
   *
   * @return the entry index
   * @throws RegistryBusyException if the admin lock stays held for more than 2 s
   * @throws IllegalStateException if all 64 entries belong to other containers
   * @throws IOException if the registry or the agents' file cannot be written, or the region is not
   *     a regular file (message names it) or its path is longer than 359 bytes
   */
  public synchronized int register(RegistryMember m) throws IOException {
    ensureOpen();
    ByteBuffer slot = ByteBuffer.allocate(AGF_MEMBER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    slot.putLong(AGF_KEY, m.key());
    if (m.region().isPresent()) {
      Path region = m.region().get().toAbsolutePath();
      java.nio.file.attribute.BasicFileAttributes ba;
      Map<String, Object> id;
      try {
        ba =
            Files.readAttributes(
                region,
                java.nio.file.attribute.BasicFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        id = Files.readAttributes(region, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
      } catch (IOException e) {
        throw new IOException(
            "compute registry " + file + ": quota region " + region + " cannot be registered: " + e,
            e);
      }
      if (!ba.isRegularFile()) {
        throw new IOException(
            "compute registry " + file + ": quota region " + region + " is not a regular file");
      }
      byte[] p = region.toString().getBytes(StandardCharsets.UTF_8);
      if (p.length >= AGF_PATH_BYTES) {
        throw new IOException(
            "compute registry "
                + file
                + ": quota region path "
                + region
                + " is longer than "
                + (AGF_PATH_BYTES - 1)
                + " bytes");
      }
      slot.putLong(AGF_DEV, ((Number) id.get("dev")).longValue());
      slot.putLong(AGF_INO, ((Number) id.get("ino")).longValue());
      slot.put(AGF_PATH, p);
    }
    FileLock admin = admin();
    try {
      ByteBuffer all = read(0, REG_FILE_BYTES);
      int found = -1;
      for (int i = 0; i < REG_ENTRY_COUNT && found < 0; i++) {
        int o = entryOff(i);
        if (all.getInt(o + RE_STATE) == REG_ENTRY_ACTIVE && all.getLong(o + RE_KEY) == m.key())
          found = i;
      }
      for (int i = 0; i < REG_ENTRY_COUNT && found < 0; i++) {
        if (all.getInt(entryOff(i) + RE_STATE) == REG_ENTRY_FREE) found = i;
      }
      if (found < 0)
        throw new IllegalStateException(
            "compute registry " + file + ": all " + REG_ENTRY_COUNT + " entries are in use");
      int o = entryOff(found);
      ByteBuffer e = ByteBuffer.allocate(REG_ENTRY_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      e.putInt(RE_STATE, REG_ENTRY_ACTIVE);
      e.putInt(RE_FLAGS, m.entryFlags());
      e.putLong(RE_KEY, m.key());
      e.putInt(RE_WEIGHT, m.weight());
      e.putInt(RE_CAP_PCT, m.capPct());
      e.putInt(RE_PRIORITY_CLASS, m.priority() == Priority.HIGH ? REG_PRIO_HIGH : REG_PRIO_NORMAL);
      e.putInt(RE_GENERATION, all.getInt(o + RE_GENERATION) + 1);
      byte[] name = m.name().getBytes(StandardCharsets.UTF_8);
      e.put(RE_NAME, name, 0, Math.min(name.length, REG_NAME_BYTES - 1));
      e.putInt(RE_DEVICE_INDEX, m.deviceIndex());
      slot.put(AGF_ENTRY, e.array(), 0, REG_ENTRY_BYTES);
      if (m.region().isPresent()) keepInode(m.key(), m.region().get());
      // the member slot first: the publisher never reads a region for an entry it does not describe
      putAgents(memberOff(found), slot);
      e.position(REG_ENTRY_BYTES);
      int seq = beginWrite();
      write(o, e);
      endWrite(seq);
      return found;
    } finally {
      admin.release();
    }
  }

  /**
   * Changes a registered container's share in place (a live resize): its weight and cap, in the
   * entry the limiters read and in the member table's copy (from which a replaced registry is
   * rebuilt). The publisher's window of the container is kept: the entry's identity does not
   * change.
   *
   * @param weight share weight 1..10000
   * @param capPct hard cap 0..100, 0 = none
   * @return false if no entry has this key
   * @throws IllegalArgumentException for a weight or cap out of range
   * @throws RegistryBusyException if the admin lock stays held for more than 2 s
   */
  public synchronized boolean updateShare(long key, int weight, int capPct) throws IOException {
    if (weight < 1 || weight > 10000)
      throw new IllegalArgumentException("weight must be in 1..10000: " + weight);
    if (capPct < 0 || capPct > 100)
      throw new IllegalArgumentException("capPct must be in 0..100: " + capPct);
    ensureOpen();
    FileLock admin = admin();
    try {
      ByteBuffer all = read(0, REG_FILE_BYTES);
      boolean found = false;
      for (int i = 0; i < REG_ENTRY_COUNT; i++) {
        int o = entryOff(i);
        if (!activeWithKey(all, o, key)) continue;
        ByteBuffer share =
            ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(weight).putInt(capPct);
        putAgents(memberOff(i) + AGF_ENTRY + RE_WEIGHT, share);
        int seq = beginWrite();
        write(o + RE_WEIGHT, share);
        endWrite(seq);
        found = true;
      }
      return found;
    } finally {
      admin.release();
    }
  }

  /**
   * Removes a container's registration and its member slot.
   *
   * @return true if an entry with this key existed
   * @throws RegistryBusyException if the admin lock stays held for more than 2 s
   */
  public synchronized boolean unregister(long key) throws IOException {
    ensureOpen();
    FileLock admin = admin();
    try {
      ByteBuffer all = read(0, REG_FILE_BYTES);
      boolean found = false;
      for (int i = 0; i < REG_ENTRY_COUNT; i++) {
        int o = entryOff(i);
        if (!activeWithKey(all, o, key)) continue;
        int seq = beginWrite();
        putInt(o + RE_STATE, REG_ENTRY_FREE);
        endWrite(seq);
        putAgents(memberOff(i), ByteBuffer.allocate(AGF_MEMBER_BYTES));
        found = true;
      }
      Files.deleteIfExists(keptInode(key));
      return found;
    } finally {
      admin.release();
    }
  }

  /**
   * The agents' hard link to a registered region, {@code <registry
   * dir>.locks/npu<phyId>-<key>.region}: it keeps the region's inode from being reused by a later
   * file (a new Allocate of the same container at the same path), so that the identity recorded in
   * the member table names one file only. In the agents' directory, which no container sees.
   */
  private Path keptInode(long key) {
    return lockFile(file).resolveSibling(String.format("npu%d-%016x.region", physId(), key));
  }

  private void keepInode(long key, Path region) throws IOException {
    Path keep = keptInode(key);
    Files.deleteIfExists(keep);
    try {
      Files.createLink(keep, region);
    } catch (IOException | UnsupportedOperationException e) {
      // another file system: the identity may then be reused once the region is deleted; the
      // clean-up
      // may keep a replaced container's old entry until the agent restarts (logged, not fatal)
      org.slf4j.LoggerFactory.getLogger(ComputeRegistry.class)
          .warn(
              "compute registry {}: cannot keep a link to quota region {} in {} ({}); a replaced region may keep its old"
                  + " registration",
              file,
              region,
              keep.getParent(),
              e.toString());
    }
  }

  /**
   * Removes the agents' links to regions whose key has no entry (an agent killed between freeing an
   * entry and removing its link kept the gone container's region on disk).
   *
   * @return the names removed
   * @throws IOException if the registry or the agents' directory cannot be read
   */
  public synchronized List<String> removeOrphanLinks() throws IOException {
    ensureOpen();
    FileLock admin = admin();
    try {
      java.util.Set<Long> active = new java.util.HashSet<>(keys());
      java.util.regex.Pattern mine =
          java.util.regex.Pattern.compile("npu" + physId() + "-([0-9a-f]{16})\\.region");
      List<String> removed = new ArrayList<>();
      try (java.nio.file.DirectoryStream<Path> ds =
          Files.newDirectoryStream(lockFile(file).getParent())) {
        for (Path p : ds) {
          java.util.regex.Matcher mt = mine.matcher(p.getFileName().toString());
          if (!mt.matches() || active.contains(Long.parseUnsignedLong(mt.group(1), 16))) continue;
          if (Files.deleteIfExists(p)) removed.add(p.getFileName().toString());
        }
      }
      return removed;
    } finally {
      admin.release();
    }
  }

  // ---------------------------------------------------------------- the publisher

  /**
   * Per entry index: the usage window of the member it describes, and the descriptor of its region.
   * Guarded by {@link #publishRound}, not by this registry's monitor.
   */
  private final Map<Integer, Sampled> sampled = new java.util.HashMap<>();

  /**
   * Held for a whole {@link #publish} (one round at a time) and by {@link #close}; taken before
   * this registry's monitor, never after it. The round holds the monitor only to read the registry
   * and the member table and to write its figures, not while it reads the regions: a registration
   * (a Prepare's) waited for the whole round before.
   */
  private final Object publishRound = new Object();

  /**
   * The member table as a round last read it, with the entries' identities ({@link
   * #entryIdentities}) and the registry file it was read against: a round reads the 32 KiB table
   * again only when one of them changed. Every registration writes its member slot before its entry
   * and changes the entry's generation or key, every removal its state, so an unchanged entry has
   * an unchanged slot. Guarded by {@link #publishRound}.
   */
  private Map<Integer, Member> roundMembers = Map.of();

  private long[] roundEntries;
  private Object roundFile;

  /** Per entry: its state and generation, and its key. */
  private static long[] entryIdentities(ByteBuffer reg) {
    long[] out = new long[2 * REG_ENTRY_COUNT];
    for (int i = 0; i < REG_ENTRY_COUNT; i++) {
      int o = entryOff(i);
      out[2 * i] =
          (long) reg.getInt(o + RE_STATE) << 32 | (reg.getInt(o + RE_GENERATION) & 0xffffffffL);
      out[2 * i + 1] = reg.getLong(o + RE_KEY);
    }
    return out;
  }

  /**
   * Run by {@link #publish} after its first phase, outside this registry's monitor: a test parks a
   * round there to show that a registration does not wait for it.
   */
  volatile Runnable betweenReadAndSample = () -> {};

  private static final class Sampled {
    final Member member;
    final UsageWindow window;
    FileChannel region;
    long failedAtNs;
    boolean logged;
    long launches;
    long busy;
    long throttled;
    int share;

    Sampled(Member member, long windowNs) {
      this.member = member;
      this.window = new UsageWindow(windowNs);
    }
  }

  /**
   * One publication ({@code docs/compute-registry.md}, "publisher"): reads every registered
   * container's counters from its quota region (a descriptor kept per region, opened non-blocking;
   * a region that cannot be opened — a lease, a link, a FIFO, not the file registered, a wrong size
   * — is an error for that one container, logged once, retried every second, and it is published as
   * unknown so that it counts at its weighted share), then writes the figures into the registry in
   * place under the admin lock and the seqlock. Only one agent process publishes a registry: the
   * one holding its publish lock; the others return {@code false} until it goes.
   *
   * @param nowNs monotonic time of this round, ns ({@code System.nanoTime()})
   * @param periodMs the publisher's period, written into the header (readers derive staleness from
   *     it)
   * @param windowMs the window usage is measured over
   * @return true if this process published
   * @throws IOException if the registry or the agents' file cannot be read or written
   */
  public boolean publish(long nowNs, int periodMs, int windowMs) throws IOException {
    synchronized (publishRound) {
      ByteBuffer reg;
      Map<Integer, Member> now;
      synchronized (this) {
        ensureOpen();
        if (publishing == null) {
          publishing = tryLock(locks(), REG_LOCK_PUBLISH, false);
          if (publishing == null) return false;
        }
        reg = read(0, REG_FILE_BYTES);
        long[] entries = entryIdentities(reg);
        if (!Arrays.equals(entries, roundEntries)
            || !java.util.Objects.equals(channelKey, roundFile)) {
          loadMembers();
          roundMembers = Map.copyOf(members);
          roundEntries = entries;
          roundFile = channelKey;
        }
        now = roundMembers;
      }
      betweenReadAndSample.run();
      sample(reg, now, nowNs, windowMs);
      synchronized (this) {
        return !closed && writeFigures(nowNs, periodMs, windowMs);
      }
    }
  }

  /**
   * The middle phase of {@link #publish}, without this registry's monitor: the counters of every
   * entry of {@code reg} whose member is in {@code snapshot} (both as read under the monitor), from
   * the regions' descriptors the publisher keeps in {@link #sampled}. A registration waits for none
   * of this.
   */
  private void sample(ByteBuffer reg, Map<Integer, Member> snapshot, long nowNs, int windowMs) {
    int win = reg.getInt(RH_ACTIVE_WINDOW_MS);
    long activeWindowNs =
        (win >= 10 && win <= 10_000 ? win : REG_DEFAULT_ACTIVE_WINDOW_MS) * 1_000_000L;
    ByteBuffer ds = ByteBuffer.allocate(RegionLayout.DEVSTATE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < REG_ENTRY_COUNT; i++) {
      int o = entryOff(i);
      Member m = snapshot.get(i);
      Sampled s = sampled.get(i);
      boolean active =
          reg.getInt(o + RE_STATE) == REG_ENTRY_ACTIVE
              && m != null
              && m.key() == reg.getLong(o + RE_KEY);
      if (!active || (s != null && !s.member.equals(m))) {
        if (s != null) closeQuietly(s.region);
        sampled.remove(i);
        s = null;
        if (!active) continue;
      }
      if (s == null) {
        s = new Sampled(m, windowMs * 1_000_000L);
        sampled.put(i, s);
      }
      if (s.region == null
          && m.region().isPresent()
          && (!s.logged || nowNs - s.failedAtNs >= 1_000_000_000L)) {
        try {
          s.region =
              tenantFiles.open(
                  m.region().get(),
                  false,
                  RegionLayout.REGION_FILE_BYTES,
                  RegionLayout.REGION_FILE_BYTES,
                  false);
          if (!sameInode(m)) {
            closeQuietly(s.region);
            s.region = null;
            throw new IOException(m.region().get() + ": not the file registered (replaced)");
          }
        } catch (IOException e) {
          if (!s.logged) {
            org.slf4j.LoggerFactory.getLogger(ComputeRegistry.class)
                .warn(
                    "compute registry {}: {}; its usage is not published (it counts at its weighted share)",
                    file,
                    e.getMessage());
            owner.countUnreadable();
          }
          s.logged = true;
          s.failedAtNs = nowNs;
        }
      }
      int dev = reg.getInt(o + RE_DEVICE_INDEX);
      if (s.region == null || dev < 0 || dev >= RegionLayout.REGION_MAX_DEVICES) {
        s.window.unknown();
        continue;
      }
      ds.clear();
      try {
        long off = RegionLayout.devStateOff(dev);
        while (ds.hasRemaining() && s.region.read(ds, off + ds.position()) > 0) {
          // positional reads of the device state
        }
      } catch (IOException e) {
        ds.position(0);
      }
      if (ds.position() < RegionLayout.DEVSTATE_BYTES) {
        s.window.unknown(); // shrunk: nothing known
        continue;
      }
      s.launches = ds.getLong(RegionLayout.DS_LAUNCHES);
      s.busy = ds.getLong(RegionLayout.DS_BUSY_NS);
      s.throttled = ds.getLong(RegionLayout.DS_THROTTLED_NS);
      s.share = ds.getInt(RegionLayout.DS_SHARE_PPM);
      s.window.add(
          nowNs,
          s.busy,
          ds.getLong(RegionLayout.DS_BLOCKED_NS),
          ds.getLong(RegionLayout.DS_LAST_LAUNCH_NS),
          activeWindowNs);
    }
  }

  /**
   * The last phase of {@link #publish}, under this registry's monitor: the figures of {@link
   * #sampled} into the registry as it is now, under the admin lock and the seqlock. An entry
   * registered or removed since {@link #sample} read it gets no figures (its key or state differs).
   */
  private boolean writeFigures(long nowNs, int periodMs, int windowMs) throws IOException {
    FileLock admin = tryLock(locks(), REG_LOCK_ADMIN, false);
    if (admin == null) return false; // a registration is under way: the next period publishes
    try {
      ensureCurrent();
      ByteBuffer reg = read(0, REG_FILE_BYTES);
      for (int i = 0; i < REG_ENTRY_COUNT; i++) {
        int o = entryOff(i);
        Sampled s = sampled.get(i);
        boolean mine =
            s != null
                && reg.getInt(o + RE_STATE) == REG_ENTRY_ACTIVE
                && reg.getLong(o + RE_KEY) == s.member.key();
        reg.putInt(o + RE_PUB_FLAGS, mine ? s.window.flags() : 0);
        reg.putInt(o + RE_USED_PPM, mine ? s.window.usedPpm() : 0);
        reg.putInt(o + RE_BLOCKED_PPM, mine ? s.window.blockedPpm() : 0);
        reg.putLong(o + RE_BUSY_NS, mine ? s.busy : 0);
        reg.putLong(o + RE_LAUNCHES, mine ? s.launches : 0);
        reg.putLong(o + RE_THROTTLED_NS, mine ? s.throttled : 0);
        reg.putInt(o + RE_SHARE_PPM, mine ? s.share : 0);
      }
      ByteBuffer h = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
      h.putInt(RH_PUB_PERIOD_MS - RH_PUB_PERIOD_MS, periodMs);
      h.putLong(RH_PUB_COUNT - RH_PUB_PERIOD_MS, reg.getLong(RH_PUB_COUNT) + 1);
      h.putLong(RH_PUB_NS - RH_PUB_PERIOD_MS, nowNs);
      h.putInt(RH_PUB_WINDOW_MS - RH_PUB_PERIOD_MS, windowMs);
      h.putInt(RH_PUB_PID - RH_PUB_PERIOD_MS, (int) ProcessHandle.current().pid());
      int seq = beginWrite();
      reg.limit(REG_FILE_BYTES).position(REG_ENTRIES_OFF);
      ByteBuffer body = reg.slice().order(ByteOrder.LITTLE_ENDIAN);
      body.position(body.limit());
      write(REG_ENTRIES_OFF, body);
      h.position(28);
      write(RH_PUB_PERIOD_MS, h);
      endWrite(seq);
      return true;
    } finally {
      admin.release();
    }
  }

  private static void closeQuietly(FileChannel ch) {
    if (ch == null) return;
    try {
      ch.close();
    } catch (IOException ignored) {
      // a read-only descriptor: nothing is lost
    }
  }

  /**
   * Marks a write in progress: {@code write_seq} odd. An agent killed inside a write left it odd;
   * the next write steps past that value (to the next odd one), so the seqlock's parity holds
   * again: odd only while a write is in progress, which is when readers retry.
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
  public void close() throws IOException {
    synchronized (publishRound) {
      synchronized (this) {
        if (closed) return;
        closed = true;
        for (Sampled x : sampled.values()) closeQuietly(x.region);
        sampled.clear();
        try (FileChannel l = locks) {
          channel.close(); // the publish lock goes with the agents' file
        } finally {
          owner.unregister(ownerKey);
        }
      }
    }
  }
}
