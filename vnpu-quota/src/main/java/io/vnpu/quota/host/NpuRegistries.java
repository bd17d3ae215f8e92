package io.vnpu.quota.host;

import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryPublisher;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The per-NPU compute registries of one state directory, each opened once by this process (the
 * registry's record locks forbid a second open in one JVM): {@code <dir>/npu<phyId>.reg}, the name
 * the limiter derives from the quota region's registry directory. From the first registry opened
 * until {@link #close}, a {@link RegistryPublisher} publishes the usage of every container
 * registered in them (the limiters' only source of their neighbours' usage).
 */
public final class NpuRegistries implements AutoCloseable {

  private final Path dir;
  private final ComputeRegistries registries = new ComputeRegistries();
  private final Map<Integer, ComputeRegistry> open = new HashMap<>();
  private RegistryPublisher publisher;

  /**
   * @param dir the registry directory (written into every quota region)
   */
  public NpuRegistries(Path dir) {
    this.dir = dir;
  }

  /** The registry file of NPU {@code phyId}. */
  public static Path file(Path dir, int phyId) {
    return dir.resolve("npu" + phyId + ".reg");
  }

  /** The registry of NPU {@code phyId}, created when missing. */
  public synchronized ComputeRegistry forNpu(int phyId) throws IOException {
    ComputeRegistry r = open.get(phyId);
    if (r == null) {
      HostFiles.ensureTrustedDirectory(
          dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
      r = registries.createOrOpen(file(dir, phyId), phyId);
      open.put(phyId, r);
      if (publisher == null) publisher = new RegistryPublisher(this::opened);
    }
    return r;
  }

  private synchronized java.util.List<ComputeRegistry> opened() {
    return java.util.List.copyOf(open.values());
  }

  /** Quota regions the publisher could not open (each counted once), for an error metric. */
  public long unreadableRegions() {
    return registries.unreadableRegions();
  }

  @Override
  public void close() throws IOException {
    RegistryPublisher p;
    synchronized (this) {
      p = publisher;
      publisher = null;
    }
    if (p != null) p.close(); // outside the lock: its round takes it (opened())
    closeRegistries();
  }

  private synchronized void closeRegistries() throws IOException {
    IOException first = null;
    for (ComputeRegistry r : open.values()) {
      try {
        r.close();
      } catch (IOException e) {
        if (first == null) first = e;
        else first.addSuppressed(e);
      }
    }
    open.clear();
    if (first != null) throw first;
  }
}
