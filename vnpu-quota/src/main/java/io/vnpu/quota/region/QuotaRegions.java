package io.vnpu.quota.region;

import io.vnpu.quota.model.RegionConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
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
   * Creates and initialises a region file (mode 0666, set through a descriptor) from
   * {@code config}. The creation is exclusive and never follows links ({@code O_EXCL|O_NOFOLLOW},
   * see {@link io.vnpu.quota.files.HostFiles}): nothing that already has the name, a file or a
   * planted link, is ever opened, truncated or chmod-ed. On failure the new file is removed.
   *
   * @throws java.nio.file.FileAlreadyExistsException if anything (a region, another file, a
   *     symbolic link) already has that name; it is left untouched
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
    Map<String, Object> a = Files.readAttributes(file, "unix:ino,dev", LinkOption.NOFOLLOW_LINKS);
    Object key = a.get("ino") + ":" + a.get("dev");
    if (!open.add(key)) {
      throw new IllegalStateException("quota region " + file + " is already open in this JVM");
    }
    return key;
  }

  void unregister(Object key) {
    open.remove(key);
  }
}
