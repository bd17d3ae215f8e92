package io.vnpu.quota.region;

import io.vnpu.quota.model.RegionConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens quota regions, at most once per file in this registry.
 *
 * <p>POSIX record locks belong to the process, and closing any descriptor of a file drops all of
 * the process's locks on it; a second open of the same region inside one JVM would therefore silently
 * release the first one's slot lock. Use one registry per JVM (inject it where regions are opened).
 */
public final class QuotaRegions {
  private final Set<Object> open = ConcurrentHashMap.newKeySet();

  /**
   * Creates and initialises a region file (mode 0666) from {@code config}.
   *
   * @throws java.nio.file.FileAlreadyExistsException if an initialised region is already there
   * @throws RegionFormatException if the file holds something that is not a region (never overwritten)
   * @throws RegionBusyException if another initialiser holds the init lock for more than 2 s
   * @throws IllegalStateException if this registry already has the file open
   */
  public QuotaRegion create(Path file, RegionConfig config) throws IOException {
    return QuotaRegion.create(file, config, this);
  }

  /**
   * Opens and validates an initialised region.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   * @throws java.nio.file.AccessDeniedException if it cannot be opened read-write
   * @throws RegionFormatException on bad magic, unknown major, wrong size or geometry, not initialised
   * @throws IllegalStateException if this registry already has the file open
   */
  public QuotaRegion open(Path file) throws IOException {
    return QuotaRegion.open(file, this);
  }

  Object register(Path file) throws IOException {
    Object key = Files.readAttributes(file, "unix:ino").get("ino") + ":" + Files.readAttributes(file, "unix:dev").get("dev");
    if (!open.add(key)) {
      throw new IllegalStateException("quota region " + file + " is already open in this JVM");
    }
    return key;
  }

  void unregister(Object key) {
    open.remove(key);
  }
}
