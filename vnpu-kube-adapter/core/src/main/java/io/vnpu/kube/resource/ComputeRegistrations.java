package io.vnpu.kube.resource;

import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.host.NpuRegistries;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryMember;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node agent's registrations of its soft-shared containers in the per-NPU compute registries
 * ({@code docs/compute-registry.md}), one implementation for every backend that hands out soft
 * slices (HAMi soft split, MindCluster softShareDev).
 *
 * <p>What gets registered is what {@link RegionConfig#forSlice(RegionToCreate)} wrote into the
 * container's own quota region (weight, cap, priority per logical device), never anything read back
 * from the region: the container can rewrite its region, and nothing it writes may reach a registry
 * its neighbours read. The registry directory is this agent's alone (mode 0755, files 0644) and is
 * mounted read-only into containers; it holds nothing of any container: each registration records
 * the region in the agents' member table beside the registry directory (no container sees it; the
 * agents keep a link to the region there, so it should lie on the containers' file system), and the
 * publisher of {@link NpuRegistries} publishes each container's usage into the registry.
 *
 * <p>Which registrations are still wanted is decided without trusting any container either: an
 * entry stays while the region recorded at its registration is the very file (same device and
 * inode) as the region in one of the directories under {@code containersRoot}. {@link #reconcile()}
 * removes every other entry; the agent calls it after removing the directories of gone pods, and at
 * start-up (registrations survive an agent restart in the registry files; re-registering a key
 * updates its entry in place, so nothing is lost or doubled). Thread-safe.
 */
public final class ComputeRegistrations implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ComputeRegistrations.class);
  private static final Pattern REGISTRY_FILE = Pattern.compile("npu(\\d{1,5})\\.reg");

  /** Longest display name a registry entry holds (UTF-8 bytes, without the terminating NUL). */
  static final int NAME_BYTES = 31;

  private final Path registryDir;
  private final Path containersRoot;
  private final String regionFileName;
  private final NpuRegistries registries;

  /**
   * @param registryDir host directory of the {@code npu<phyId>.reg} files (created 0755 when
   *     missing; the quota regions name it by its container path)
   * @param containersRoot host directory of the per-container directories
   * @param regionFileName name of the region file in a container's directory
   */
  public ComputeRegistrations(Path registryDir, Path containersRoot, String regionFileName) {
    this.registryDir = Objects.requireNonNull(registryDir, "registryDir");
    this.containersRoot = Objects.requireNonNull(containersRoot, "containersRoot");
    this.regionFileName = Objects.requireNonNull(regionFileName, "regionFileName");
    this.registries = new NpuRegistries(registryDir);
  }

  /** Name of the region file in a container's directory. */
  public String regionFileName() {
    return regionFileName;
  }

  /** The host directory of the registry files. */
  public Path registryDir() {
    return registryDir;
  }

  /**
   * Registers a container whose region {@code regionFile} was just created from {@code region}: on
   * the registry of each of its NPUs, with key {@code key}, the weight, cap and priority class of
   * that logical device, the slice's sharing policy, and the region (read by the publisher).
   * Nothing is registered when the region does not enforce compute (no device has an AI-core share)
   * or names no phy ID.
   *
   * @param key the region's epoch ({@link QuotaRegionFactory#create})
   * @param name display name, cut to 31 UTF-8 bytes
   * @return the phy IDs registered on
   * @throws IOException when a registry cannot be created or written, all 64 entries of one are in
   *     use, or the region is not a regular file; the registrations made so far are undone
   */
  public synchronized List<Integer> register(
      Path regionFile, long key, String name, RegionToCreate region) throws IOException {
    return register(regionFile, key, name, RegionConfig.forSlice(region));
  }

  /**
   * As {@link #register(Path, long, String, RegionToCreate)} with the configuration the region was
   * written from (computed once by the caller).
   */
  public synchronized List<Integer> register(
      Path regionFile, long key, String name, RegionConfig config) throws IOException {
    if (!config.policy().contains(PolicyFlag.COMPUTE_ENFORCE)) return List.of();
    List<Integer> done = new ArrayList<>();
    try {
      for (int i = 0; i < config.devices().size(); i++) {
        DeviceQuota q = config.devices().get(i);
        if (q.physId() < 0) continue;
        registries
            .forNpu(q.physId())
            .register(
                new RegistryMember(
                    key,
                    displayName(name),
                    q.computeWeight(),
                    q.computeCapPct(),
                    q.priority(),
                    i,
                    Optional.of(regionFile),
                    config.sharingPolicy()));
        done.add(q.physId());
      }
    } catch (IOException | RuntimeException e) {
      for (int phy : done) unregisterQuietly(phy, key);
      if (e instanceof IllegalStateException full) {
        throw new IOException(full.getMessage(), full);
      }
      throw e;
    }
    return List.copyOf(done);
  }

  /**
   * Removes the entries of {@code key} (and their member slots) from every registry in the
   * directory, e.g. when an Allocate is rolled back.
   *
   * @return the phy IDs whose registry had an entry
   * @throws IOException when a registry cannot be read or written
   */
  public synchronized List<Integer> unregister(long key) throws IOException {
    List<Integer> out = new ArrayList<>();
    for (int phy : registryFiles()) {
      if (registries.forNpu(phy).unregister(key)) out.add(phy);
    }
    return out;
  }

  /**
   * Removes every entry whose container is gone: the region recorded at its registration (device
   * and inode, in the agents' member table) is not the region file of a directory under the
   * containers root (that directory was removed, or replaced by a new Allocate of the same
   * container; the agents keep a link to each registered region, so its identity is never reused),
   * or none was recorded. Entries of live containers are untouched; links without an entry (an
   * agent killed between the two steps of an unregistration) are removed.
   *
   * @return the removed registrations as {@code npu<phyId>:<key in hex>}
   * @throws IOException when the registry directory or containers root cannot be read
   */
  public synchronized List<String> reconcile() throws IOException {
    List<Integer> files = registryFiles();
    if (files.isEmpty()) return List.of();
    Set<Object> live = liveRegions();
    List<String> removed = new ArrayList<>();
    for (int phy : files) {
      ComputeRegistry reg;
      try {
        reg = registries.forNpu(phy);
      } catch (IOException e) {
        LOG.warn(
            "compute registry {}: {}; its entries are kept",
            NpuRegistries.file(registryDir, phy),
            e.getMessage());
        continue;
      }
      for (long key : reg.keys()) {
        Optional<ComputeRegistry.RegisteredRegion> region = reg.registeredRegion(key);
        if (region.isPresent() && live.contains(List.of(region.get().dev(), region.get().ino())))
          continue;
        if (reg.unregister(key)) {
          removed.add("npu" + phy + ":" + Long.toHexString(key));
        }
      }
      // the agents' links of entries freed by an agent killed before it removed the link
      List<String> orphans = reg.removeOrphanLinks();
      if (!orphans.isEmpty())
        LOG.info(
            "compute registry {}: removed region links without an entry {}", reg.file(), orphans);
    }
    if (!removed.isEmpty())
      LOG.info(
          "compute registries {}: removed the entries of gone containers {}", registryDir, removed);
    return removed;
  }

  /**
   * The key of the registrations whose registered region is {@code regionFile} itself (same device
   * and inode, from the agents' member table), read from the agents' files only: the region is the
   * container's to rewrite, so its own epoch is never trusted to name a key. Used to adopt a live
   * region whose record was lost.
   *
   * @return empty when the file is not a regular file or no registry holds it
   * @throws IOException when a registry cannot be read
   */
  public synchronized Optional<Long> keyOf(Path regionFile) throws IOException {
    Optional<Object> id = fileKey(regionFile);
    if (id.isEmpty()) return Optional.empty();
    for (int phy : registryFiles()) {
      ComputeRegistry reg = registries.forNpu(phy);
      for (long key : reg.keys()) {
        Optional<ComputeRegistry.RegisteredRegion> r = reg.registeredRegion(key);
        if (r.isPresent() && id.get().equals(List.of(r.get().dev(), r.get().ino())))
          return Optional.of(key);
      }
    }
    return Optional.empty();
  }

  /** Identities (device and inode) of the region files of the container directories now. */
  private Set<Object> liveRegions() throws IOException {
    Set<Object> out = new HashSet<>();
    if (!Files.isDirectory(containersRoot, LinkOption.NOFOLLOW_LINKS)) return out;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(containersRoot)) {
      for (Path d : ds) {
        fileKey(d.resolve(regionFileName)).ifPresent(out::add);
      }
    } catch (NoSuchFileException gone) {
      return out;
    }
    return out;
  }

  /**
   * The identity (device, inode) of a regular file (never through a link), empty when there is
   * none.
   */
  private static Optional<Object> fileKey(Path p) {
    try {
      BasicFileAttributes a =
          Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!a.isRegularFile()) return Optional.empty();
      java.util.Map<String, Object> id =
          Files.readAttributes(p, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
      return Optional.of(
          List.of(((Number) id.get("dev")).longValue(), ((Number) id.get("ino")).longValue()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Phy IDs of the registry files present, ascending. */
  private List<Integer> registryFiles() throws IOException {
    TreeMap<Integer, Path> out = new TreeMap<>();
    if (!Files.isDirectory(registryDir, LinkOption.NOFOLLOW_LINKS)) return List.of();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(registryDir)) {
      for (Path p : ds) {
        Matcher m = REGISTRY_FILE.matcher(p.getFileName().toString());
        if (m.matches() && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          out.put(Integer.parseInt(m.group(1)), p);
      }
    }
    return List.copyOf(out.keySet());
  }

  private void unregisterQuietly(int phy, long key) {
    try {
      registries.forNpu(phy).unregister(key);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "rollback: removing key {} from {} failed ({}); the next clean-up removes it",
          Long.toHexString(key),
          NpuRegistries.file(registryDir, phy),
          e.getMessage());
    }
  }

  /** {@code name} cut to what a registry entry holds, never inside a character. */
  static String displayName(String name) {
    if (name.getBytes(StandardCharsets.UTF_8).length <= NAME_BYTES) return name;
    StringBuilder b = new StringBuilder();
    int bytes = 0;
    for (int i = 0; i < name.length(); ) {
      int cp = name.codePointAt(i);
      int n = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      if (bytes + n > NAME_BYTES) break;
      b.appendCodePoint(cp);
      bytes += n;
      i += Character.charCount(cp);
    }
    return b.toString();
  }

  /**
   * Makes the registry directory now (0755), so a container can mount it before the first
   * registration.
   */
  public void ensureDirectory() throws IOException {
    HostFiles.ensureTrustedDirectory(registryDir, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** Closes the registries this instance opened; the files and their entries stay. */
  @Override
  public synchronized void close() throws IOException {
    registries.close();
  }
}
