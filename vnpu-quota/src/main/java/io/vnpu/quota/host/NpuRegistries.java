package io.vnpu.quota.host;

import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The per-NPU compute registries of one state directory, each opened once by this process (the
 * registry's record locks forbid a second open in one JVM): {@code <dir>/npu<phyId>.reg}, the name
 * the limiter derives from the quota region's registry directory.
 */
public final class NpuRegistries implements AutoCloseable {

  private final Path dir;
  private final ComputeRegistries registries = new ComputeRegistries();
  private final Map<Integer, ComputeRegistry> open = new HashMap<>();

  /** @param dir the registry directory (written into every quota region) */
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
      HostFiles.ensureTrustedDirectory(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
      r = registries.createOrOpen(file(dir, phyId), phyId);
      open.put(phyId, r);
    }
    return r;
  }

  @Override
  public synchronized void close() throws IOException {
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
