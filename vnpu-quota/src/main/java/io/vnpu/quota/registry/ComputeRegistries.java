package io.vnpu.quota.registry;

import io.vnpu.quota.files.TenantFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Creates and opens per-NPU compute registries, at most once per file in this instance.
 *
 * <p>Every open of a registry is non-blocking ({@link TenantFiles}): the registry lies in a
 * directory containers mount, so a tenant's lease must not hold the agent.
 *
 * <p>POSIX record locks belong to the process and closing any descriptor of a file drops all of the
 * process's locks on it, so one JVM must not have a registry open twice: use one instance per JVM
 * (inject it where registries are opened, e.g. in the node agent and the CLI).
 */
public final class ComputeRegistries {
  private final Set<Object> open = ConcurrentHashMap.newKeySet();
  private final TenantFiles tenantFiles;
  private final java.util.concurrent.atomic.AtomicLong unreadable =
      new java.util.concurrent.atomic.AtomicLong();

  public ComputeRegistries() {
    this(new TenantFiles());
  }

  /**
   * @param tenantFiles how files a tenant can reach are opened (non-blocking)
   */
  public ComputeRegistries(TenantFiles tenantFiles) {
    this.tenantFiles = java.util.Objects.requireNonNull(tenantFiles, "tenantFiles");
  }

  /**
   * Quota regions the publishers of this instance's registries could not open (a lease, a link, a
   * FIFO, replaced, wrong size), each counted once: what a node agent exports as an error count.
   */
  public long unreadableRegions() {
    return unreadable.get();
  }

  void countUnreadable() {
    unreadable.incrementAndGet();
  }

  /**
   * Creates (mode 0644: only the node agent writes it) and initialises the registry of one NPU, or
   * opens it when a valid one is already there (the node agent calls this for every NPU at
   * start-up, idempotently). A file that exists but is not a valid registry of this major is
   * re-initialised: registries hold no state that outlives the processes using them.
   *
   * @param file registry file, by convention {@code <registryDir>/npu<physId>.reg}
   * @param physId phy ID of the NPU, >= 0
   * @throws RegistryBusyException if another initialiser holds the init lock for more than 2 s
   * @throws IllegalStateException if this instance already has the file open
   */
  public ComputeRegistry createOrOpen(Path file, int physId) throws IOException {
    if (physId < 0) throw new IllegalArgumentException("physId must be >= 0: " + physId);
    return ComputeRegistry.createOrOpen(file, physId, this, tenantFiles);
  }

  /**
   * File name of the registry of the NPU with phy ID {@code physId} inside the registry directory a
   * quota region names ({@code npu<physId>.reg}, {@code VNPU_REG_FILE_FMT} of {@code
   * vnpu_registry.h}).
   */
  public static String fileName(int physId) {
    return io.vnpu.quota.layout.RegistryLayout.fileName(physId);
  }

  /**
   * Opens and validates an initialised registry.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   * @throws RegistryFormatException on bad magic, unknown major, wrong size or geometry, not
   *     initialised
   * @throws IllegalStateException if this instance already has the file open
   */
  public ComputeRegistry open(Path file) throws IOException {
    return ComputeRegistry.open(file, this, tenantFiles);
  }

  Object register(Path file) throws IOException {
    Object key =
        Files.readAttributes(file, "unix:ino").get("ino")
            + ":"
            + Files.readAttributes(file, "unix:dev").get("dev");
    if (!open.add(key))
      throw new IllegalStateException("compute registry " + file + " is already open in this JVM");
    return key;
  }

  void unregister(Object key) {
    open.remove(key);
  }
}
