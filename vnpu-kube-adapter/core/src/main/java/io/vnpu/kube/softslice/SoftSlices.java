package io.vnpu.kube.softslice;

import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterGate;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.kube.observe.ChargedRegion;
import io.vnpu.kube.observe.SliceRef;
import io.vnpu.kube.resource.ComputeRegistrations;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.model.RegionConfig;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one soft-slice mechanism of the node agents: HAMi soft split, MindCluster soft share and DRA
 * soft shares create, mount, measure and remove their slices here; each backend adds only its
 * protocol's extras (HAMi's driver mounts and {@code NPU_GLOBAL_SHM_PATH}, MindCluster's runtime
 * env, DRA's CDI wrapping and checkpoint).
 *
 * <p>A slice is a directory {@link SoftSliceLayout#dirOf} holding its quota region. {@link
 * #prepare} makes the directory afresh (HostFiles rules: the root is ours alone, 0700; the
 * directory is never reused and stays 0700 until its region is complete, then 0755), writes the
 * region from {@link RegionConfig#forSlice} computed once, and registers the slice in the compute
 * registry of each of its NPUs from that same configuration ({@link #register}, the one call that
 * does; never from anything read back from the region, which the container can rewrite). {@link
 * #edits} is what the container gets: its directory read-write, the limiter's directory, the
 * preload list and the registries read-only, and {@code LimiterEnv}. {@link #remove}, {@link
 * #removeFinished}, {@link #sweep} and {@link #reconcile} take slices away again, the region first
 * (a directory the container made impossible to remove must not keep its registration).
 * Thread-safe.
 */
public final class SoftSlices implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SoftSlices.class);

  /** A slice's directory once its region is complete: {@code rwxr-xr-x}. */
  public static final Set<PosixFilePermission> REGION_DIR_MODE =
      PosixFilePermissions.fromString("rwxr-xr-x");

  /**
   * A prepared slice.
   *
   * @param dir host directory of the slice
   * @param region host path of its quota region
   * @param key the region's epoch: its key in the compute registries
   * @param devices the devices of the region, in its entry order
   */
  public record Prepared(Path dir, Path region, long key, List<SliceDevice> devices) {
    public Prepared {
      Objects.requireNonNull(dir, "dir");
      Objects.requireNonNull(region, "region");
      devices = List.copyOf(devices);
    }

    /** Memory limit of entry 0, bytes (what {@code NPU_MEM_QUOTA} says). */
    public long firstMemoryBytes() {
      return devices.isEmpty() || !(devices.get(0).share() instanceof SliceShare.SoftQuota q)
          ? 0
          : q.memoryLimitBytes();
    }
  }

  /** Whose a slice directory is, for the metrics. */
  @FunctionalInterface
  public interface Owners {
    /**
     * @param dirName the directory's name ({@code <ownerUid>_<name>})
     * @return namespace, owner and slice name to label the slice with; empty when the owner is gone
     */
    Optional<Owner> of(String dirName);
  }

  /**
   * @param namespace namespace of the pod or claim
   * @param name pod or claim name
   * @param slice container or request name
   */
  public record Owner(String namespace, String name, String slice) {}

  private final SoftSliceLayout layout;
  private final QuotaRegionFactory regions;
  private final LimiterGate limiter;
  private final ComputeRegistrations registrations;
  private final ChargeRecords records;

  /** Slice directories whose record could not be read: said once, not every scrape. */
  private final Set<String> unreadableRecords = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * @param regions writes a region file ({@link QuotaRegionFactory#writing})
   * @param limiter asked before every slice is prepared: a container is never told it is limited
   *     while the limiter files are missing or broken
   */
  public SoftSlices(SoftSliceLayout layout, QuotaRegionFactory regions, LimiterGate limiter) {
    this.layout = Objects.requireNonNull(layout, "layout");
    this.regions = Objects.requireNonNull(regions, "regions");
    this.limiter = Objects.requireNonNull(limiter, "limiter");
    this.registrations =
        new ComputeRegistrations(
            layout.registryHostDir(), layout.regionRoot(), LimiterFiles.REGION_FILE);
    this.records = new ChargeRecords(layout.regionRoot());
  }

  public SoftSliceLayout layout() {
    return layout;
  }

  /** The limiter check of {@link #verifyLimiter()}. */
  public LimiterGate limiter() {
    return limiter;
  }

  /**
   * Checks the limiter before a slice is handed out.
   *
   * @throws LimiterUnavailableException naming the limiter file
   */
  public void verifyLimiter() throws LimiterUnavailableException {
    limiter.verify();
  }

  /**
   * Makes {@code dir} afresh, its region from {@code devices} and its registry entries.
   *
   * @param dir the slice's directory ({@link SoftSliceLayout#dirOf})
   * @param devices one entry per device, in the container's {@code ASCEND_VISIBLE_DEVICES} order
   * @param displayName name of the registry entries, e.g. {@code namespace/pod/container}
   * @throws IOException naming the path when the directory, region or a registration cannot be
   *     made; nothing stays registered and the directory is removed again
   */
  public Prepared prepare(Path dir, List<SliceDevice> devices, String displayName)
      throws IOException {
    requireUnderRoot(dir);
    RegionToCreate region =
        new RegionToCreate(
            dir.resolve(LimiterFiles.REGION_FILE), devices, layout.containerRegistryDir());
    RegionConfig config;
    try {
      config = RegionConfig.forSlice(region);
    } catch (IllegalArgumentException e) {
      throw new IOException("quota region " + region.file() + ": " + e.getMessage(), e);
    }
    long key = 0;
    try {
      registrations.ensureDirectory();
      makeDirectory(dir);
      key = regions.create(region, config);
      // what the scheduler charged, where the container cannot rewrite it: what the agent reports
      records.write(dir.getFileName().toString(), ChargedRegion.agentMade(key, config));
      // the region file is 0666 for any container user; the directory needs no writer
      HostFiles.setMode(dir, REGION_DIR_MODE);
      register(region.file(), key, displayName, config);
      return new Prepared(dir, region.file(), key, devices);
    } catch (IOException | RuntimeException e) {
      if (key != 0) unregisterQuietly(key);
      HostFiles.deleteQuietly(dir);
      records.deleteQuietly(dir.getFileName().toString());
      throw e;
    }
  }

  /**
   * Makes {@code dir} afresh and open to the container's user ({@code rwxrwxrwx}), for a limiter
   * that creates its own region (upstream hami-vnpu-core without agent-made regions), and records
   * what the scheduler charged the slice ({@link ChargedRegion#limiterMade}: the configuration of
   * {@link RegionConfig#forSlice} from {@code charged}, the same rule as {@link #prepare}) so that
   * its limits are reported from the agent's record, never from the region the container writes.
   *
   * @param charged the region the agent would create: the slice's devices and their charge
   * @throws IOException naming the directory or record; both are removed again
   */
  public void prepareForLimiter(Path dir, RegionToCreate charged) throws IOException {
    requireUnderRoot(dir);
    RegionConfig config;
    try {
      config = RegionConfig.forSlice(charged);
    } catch (IllegalArgumentException e) {
      throw new IOException("charge record of " + dir + ": " + e.getMessage(), e);
    }
    String name = dir.getFileName().toString();
    try {
      makeDirectory(dir);
      records.write(name, ChargedRegion.limiterMade(config));
      HostFiles.setMode(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    } catch (IOException | RuntimeException e) {
      discardForLimiter(dir);
      throw e;
    }
  }

  /**
   * Undoes {@link #prepareForLimiter} (a failed Allocate): the directory and the record, quietly;
   * what is left the sweep removes.
   *
   * @return whether both are gone
   */
  public boolean discardForLimiter(Path dir) {
    boolean dirGone = HostFiles.deleteQuietly(dir) || !Files.exists(dir, LinkOption.NOFOLLOW_LINKS);
    return records.deleteQuietly(dir.getFileName().toString()) && dirGone;
  }

  /**
   * The one call that enters a slice into the compute registries (so a new registry design lands
   * here).
   */
  private void register(Path region, long key, String displayName, RegionConfig config)
      throws IOException {
    registrations.register(region, key, displayName, config);
  }

  /**
   * What the container of a prepared slice gets: {@link SoftSliceLayout#mounts} and {@link
   * SoftSliceLayout#env} with entry 0's memory limit.
   */
  public ContainerEdits edits(Prepared slice) {
    return new ContainerEdits(
        layout.env(slice.firstMemoryBytes()), layout.mounts(slice.dir()), List.of());
  }

  /**
   * Undoes a prepared slice (a failed claim or Allocate); problems are logged, the sweep retries.
   */
  public void discard(Prepared slice) {
    try {
      remove(slice.dir(), slice.key());
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "rollback: soft slice {} not removed ({}); the sweep retries",
          slice.dir(),
          e.getMessage());
    }
  }

  /**
   * Unregisters {@code key} (0: none) and removes the slice's directory, the region first, never
   * following links; what is already gone is fine. The directory and the region file are writable
   * by the container: what cannot be removed there (a tree too deep to walk, say) is logged and
   * retried by the next sweep, never an error (the slice is gone once it is unregistered).
   *
   * @throws IOException naming the registry that cannot be changed
   */
  public void remove(Path dir, long key) throws IOException {
    if (key != 0)
      registrations.unregister(key); // the registry is ours alone: a failure here is real
    if (removeTree(dir.resolve(LimiterFiles.REGION_FILE)) && removeTree(dir))
      records.delete(dir.getFileName().toString()); // ours alone too
  }

  /**
   * Whether {@code dir} holds a region (a regular file, links not followed): a slice whose record
   * was lost is adopted then, not created again under its running container.
   */
  public boolean holdsRegion(Path dir) {
    return Files.isRegularFile(dir.resolve(LimiterFiles.REGION_FILE), LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * The key the registrations of the region in {@code dir} have, found through the registries
   * (never read from the region, which the container may rewrite).
   *
   * @return empty when no registry holds the region (memory only, or not registered)
   * @throws IOException when a registry cannot be read
   */
  public Optional<Long> registeredKey(Path dir) throws IOException {
    return registrations.keyOf(dir.resolve(LimiterFiles.REGION_FILE));
  }

  /**
   * Names of the slice directories under the region root now (not the agent's own {@value
   * ChargeRecords#DIR}); empty when it does not exist yet.
   */
  public List<String> entries() throws IOException {
    Path root = layout.regionRoot();
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) return List.of();
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
      for (Path p : ds) {
        String n = p.getFileName().toString();
        if (!n.startsWith(".")) names.add(n); // a slice directory never does (dirOf)
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return names;
  }

  /**
   * Removes each of {@code entries} whose owner (pod) is not in {@code phaseByOwner} (deleted) or
   * whose phase is {@code Succeeded} or {@code Failed}, then reconciles the registries. The caller
   * lists the entries ({@link #entries()}) before it lists the pods: a directory is made only after
   * its pod was bound to the node, so a pod missing from the later list is really gone. Entries
   * that are not {@code <uid>_<name>} are left alone; a failure to remove one is logged.
   *
   * @return the directories removed
   */
  public List<Path> removeFinished(List<String> entries, Map<String, String> phaseByOwner) {
    List<Path> removed = new ArrayList<>();
    for (String name : entries) {
      Optional<String> uid = SoftSliceLayout.ownerOf(name);
      if (uid.isEmpty()) continue;
      String phase = phaseByOwner.get(uid.get());
      if (phase != null && !phase.equals("Succeeded") && !phase.equals("Failed")) continue;
      Path dir = layout.regionRoot().resolve(name);
      // the region first: a directory the container made impossible to remove must not keep the
      // registration (reconcile keeps the entry of any region still there)
      if (removeTree(dir.resolve(LimiterFiles.REGION_FILE)) && removeTree(dir)) {
        removed.add(dir);
        LOG.info("removed {} (pod {} {})", dir, uid.get(), phase == null ? "deleted" : phase);
      }
    }
    removeOrphanRecordsQuietly();
    reconcileQuietly();
    return removed;
  }

  /**
   * Start-up clean-up: removes the directories under the region root that {@code keep} does not
   * hold (left by a crash or a lost checkpoint), then every registry entry whose region is gone.
   *
   * @return what was removed, for the log
   * @throws IOException when the region root or a registry cannot be read
   */
  public List<String> sweep(Predicate<Path> keep) throws IOException {
    List<String> removed = new ArrayList<>();
    for (String name : entries()) {
      Path d = layout.regionRoot().resolve(name);
      if (keep.test(d)) continue;
      if (removeTree(d.resolve(LimiterFiles.REGION_FILE)) && removeTree(d))
        removed.add(d.toString());
    }
    removed.addAll(removeOrphanRecords());
    removed.addAll(reconcile());
    return removed;
  }

  /**
   * Removes every registry entry whose slice is gone ({@link ComputeRegistrations#reconcile()}).
   *
   * @return the removed registrations as {@code npu<phyId>:<key in hex>}
   * @throws IOException when the registry directory or the region root cannot be read
   */
  public List<String> reconcile() throws IOException {
    return registrations.reconcile();
  }

  /**
   * The slices that exist now and whose owner is known, for per-slice metrics: every directory
   * holding a regular region file that {@code owners} names, with the agent's record of the region
   * it created there ({@link ChargeRecords}; empty for a region the limiter made, or a record that
   * cannot be read, which is logged once).
   */
  public List<SliceRef> slices(Owners owners) {
    List<SliceRef> out = new ArrayList<>();
    try {
      for (String name : entries().stream().sorted().toList()) {
        Path region = layout.regionRoot().resolve(name).resolve(LimiterFiles.REGION_FILE);
        if (!Files.isRegularFile(region, LinkOption.NOFOLLOW_LINKS)) continue;
        Optional<Owner> o = owners.of(name);
        if (o.isEmpty()) continue;
        out.add(
            new SliceRef(
                o.get().namespace(), o.get().name(), o.get().slice(), region, charged(name)));
      }
    } catch (IOException e) {
      LOG.debug("metrics: list {} failed: {}", layout.regionRoot(), e.getMessage());
    }
    return out;
  }

  /**
   * The agent's record of the region it created in slice directory {@code name}; empty when there
   * is none or it cannot be read (logged once per directory).
   */
  public Optional<ChargedRegion> charged(String name) {
    try {
      Optional<ChargedRegion> r = records.read(name);
      unreadableRecords.remove(name);
      return r;
    } catch (IOException | RuntimeException e) {
      if (unreadableRecords.add(name))
        LOG.warn(
            "soft slice {}: its charge record is unreadable ({}); its limits are not reported",
            name,
            e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * Removes the records whose slice directory is gone.
   *
   * @return the removed records' files
   */
  private List<String> removeOrphanRecords() throws IOException {
    List<String> removed = new ArrayList<>();
    for (String name : records.names()) {
      if (Files.exists(layout.regionRoot().resolve(name), LinkOption.NOFOLLOW_LINKS)) continue;
      records.delete(name);
      removed.add(records.file(name).toString());
    }
    return removed;
  }

  private void removeOrphanRecordsQuietly() {
    try {
      removeOrphanRecords();
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "charge records in {}: clean-up failed: {}; the next round retries",
          layout.regionRoot(),
          e.getMessage());
    }
  }

  /**
   * The host directory of the registries a region names by its container path; empty for any other
   * path.
   */
  public Optional<Path> registryHostDir(String containerPath) {
    return containerPath.equals(layout.containerRegistryDir())
        ? Optional.of(layout.registryHostDir())
        : Optional.empty();
  }

  /** Closes the registries this instance opened; the files and their entries stay. */
  @Override
  public void close() throws IOException {
    registrations.close();
  }

  private void requireUnderRoot(Path dir) {
    if (!dir.getParent().equals(layout.regionRoot())) {
      throw new IllegalArgumentException(
          dir + " is not a slice directory of " + layout.regionRoot());
    }
  }

  private void makeDirectory(Path dir) throws IOException {
    HostFiles.ensureTrustedDirectory(layout.regionRoot(), HostFiles.OWNER_ONLY_DIR);
    try {
      HostFiles.createPrivateDirectory(dir);
    } catch (FileAlreadyExistsException left) {
      // never reused (a container may still hold files in it): removed, then made afresh; the
      // usual case, a new name, costs one mkdir instead of a directory walk before it
      HostFiles.deleteTree(dir);
      HostFiles.createPrivateDirectory(dir);
    }
  }

  private void reconcileQuietly() {
    try {
      registrations.reconcile();
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "compute registry clean-up in {} failed: {}; the next round retries",
          layout.registryHostDir(),
          e.getMessage());
    }
  }

  private void unregisterQuietly(long key) {
    try {
      registrations.unregister(key);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "rollback: compute registry entry {} not removed ({}); the sweep removes it",
          Long.toHexString(key),
          e.getMessage());
    }
  }

  /**
   * Removes what the container can write, best-effort: a slice's directory or the region file in
   * it. Once the registration is gone, what is left is the container's own files, no share: logged
   * and retried by the next sweep, never an error that would keep a claim prepared or stop the
   * sweep of the other directories.
   */
  private static boolean removeTree(Path path) {
    try {
      HostFiles.deleteTree(path);
      return true;
    } catch (IOException e) {
      LOG.warn(
          "soft slice leftovers {} (the container could write them) are not removed: {}; the slice and"
              + " its registration are gone, the next sweep retries",
          path,
          e.getMessage());
      return false;
    }
  }
}
