package io.vnpu.quota.region;

import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.model.RegionConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens quota regions, at most once per file in this registry.
 *
 * <p>POSIX record locks belong to the process, and closing any descriptor of a file drops all of
 * the process's locks on it; a second open of the same region inside one JVM would therefore
 * silently release the first one's slot lock. Use one registry per JVM (inject it where regions are
 * opened).
 */
public final class QuotaRegions {
  private final Set<Object> open = ConcurrentHashMap.newKeySet();
  private final io.vnpu.quota.files.TenantFiles tenantFiles;

  public QuotaRegions() {
    this(new io.vnpu.quota.files.TenantFiles());
  }

  /**
   * @param tenantFiles how existing regions are opened: a region lies in a directory its container
   *     can write, so every open is non-blocking ({@link io.vnpu.quota.files.TenantFiles})
   */
  public QuotaRegions(io.vnpu.quota.files.TenantFiles tenantFiles) {
    this.tenantFiles = java.util.Objects.requireNonNull(tenantFiles, "tenantFiles");
  }

  io.vnpu.quota.files.TenantFiles tenantFiles() {
    return tenantFiles;
  }

  /**
   * Creates and initialises a region file (mode 0666, set through a descriptor) from {@code
   * config}. The creation is exclusive and never follows links ({@code O_EXCL|O_NOFOLLOW}, see
   * {@link io.vnpu.quota.files.HostFiles}): nothing that already has the name, a file or a planted
   * link, is ever opened, truncated or chmod-ed. Every byte is written before the file is mapped,
   * so the region is never sparse: a tenant that fills the file system later cannot make a store to
   * it fault (SIGBUS in the limiter, {@link InternalError} here). On failure the new file is
   * removed.
   *
   * @throws RegionSpaceException if the file system cannot hold the region (full, quota)
   * @throws java.nio.file.FileAlreadyExistsException if anything (a region, another file, a
   *     symbolic link) already has that name; it is left untouched
   * @throws RegionBusyException if another initialiser holds the init lock for more than 2 s
   * @throws IllegalStateException if this registry already has the file open
   */
  public QuotaRegion create(Path file, RegionConfig config) throws IOException {
    return create(file, config, io.vnpu.quota.model.SizedBy.SCHEDULER);
  }

  /**
   * As {@link #create(Path, RegionConfig)}, saying who decided the sizes: {@link
   * io.vnpu.quota.model.SizedBy#HOST} for a host slice its owner may resize live ({@code
   * HostSlices}); every slice a scheduler charged for is {@link
   * io.vnpu.quota.model.SizedBy#SCHEDULER}.
   */
  public QuotaRegion create(Path file, RegionConfig config, io.vnpu.quota.model.SizedBy sizedBy)
      throws IOException {
    return QuotaRegion.create(
        file, config, java.util.Objects.requireNonNull(sizedBy, "sizedBy"), this);
  }

  /**
   * Opens and validates an initialised region, without ever waiting on it: a lease, a link, a FIFO,
   * a directory or a file far larger than a region in its place is an error at once.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   * @throws io.vnpu.quota.files.TenantFileException if it is leased, a link, not a regular file or
   *     huge
   * @throws java.nio.file.AccessDeniedException if it cannot be opened read-write
   * @throws RegionFormatException on bad magic, unknown major, wrong size or geometry, not
   *     initialised
   * @throws IllegalStateException if this registry already has the file open
   */
  public QuotaRegion open(Path file) throws IOException {
    return QuotaRegion.open(file, this);
  }

  /**
   * Deletes the quota region file {@code file}, for example when the slice it belongs to is gone.
   * Only a regular file that starts with the region magic is deleted; a symbolic link, a directory
   * or any other file with that name is left untouched. Processes that still have the region mapped
   * keep their mapping until they exit; a process started afterwards finds no region and runs with
   * the limiter's missing-region policy (memory limits not enforced, one log line).
   *
   * @return {@code true} if the region was deleted, {@code false} if nothing had that name
   * @throws IllegalStateException if this registry has the region open (close it first)
   * @throws RegionFormatException if the file is not a quota region (it is left untouched)
   * @throws java.nio.file.FileSystemException if the name is a link or not a regular file (left
   *     untouched), or the file cannot be read or removed
   */
  public boolean delete(Path file) throws IOException {
    BasicFileAttributes attrs;
    try {
      attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return false;
    }
    if (!attrs.isRegularFile()) {
      throw new FileSystemException(
          file.toString(),
          null,
          (attrs.isSymbolicLink() ? "a symbolic link" : "not a regular file")
              + ", not a quota region; left untouched");
    }
    Map<String, Object> a = Files.readAttributes(file, "unix:ino,dev", LinkOption.NOFOLLOW_LINKS);
    if (open.contains(a.get("ino") + ":" + a.get("dev"))) {
      throw new IllegalStateException(
          "quota region " + file + " is open in this JVM; close it before deleting it");
    }
    ByteBuffer magic = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = tenantFiles.open(file, false, 0, QuotaRegion.MAX_OPEN_BYTES, false)) {
      while (magic.hasRemaining() && ch.read(magic, RegionLayout.H_MAGIC + magic.position()) > 0) {
        // pread until the magic is in or EOF
      }
    }
    long m = magic.position() == Long.BYTES ? magic.getLong(0) : 0;
    if (m != RegionLayout.REGION_MAGIC) {
      throw new RegionFormatException(
          file,
          "magic",
          String.format("0x%016x", m),
          String.format("0x%016x", RegionLayout.REGION_MAGIC));
    }
    try {
      Files.delete(file);
      return true;
    } catch (NoSuchFileException e) {
      return false; // someone else deleted it meanwhile
    }
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
