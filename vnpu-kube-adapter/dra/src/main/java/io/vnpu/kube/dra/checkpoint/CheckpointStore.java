package io.vnpu.kube.dra.checkpoint;

import io.vnpu.quota.files.HostFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;

/**
 * The checkpoint file {@code <plugin-dir>/checkpoint.json}: loaded once at start, replaced
 * atomically ({@link HostFiles#writeAtomically}: exclusive temp file + fsync + rename; then the
 * directory is fsynced) on every change. Not thread-safe;
 * callers serialize (the claim state holds one lock for prepare and unprepare, across the plugin
 * instances that share the file, and reads the file again when its {@link #version} changed).
 */
public final class CheckpointStore {
  /** File name inside the plugin data directory. */
  public static final String FILE_NAME = "checkpoint.json";
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final Path file;
  private final Clock clock;
  private final CheckpointCodec codec = new CheckpointCodec();

  /** @param file the checkpoint file; its directory must exist when saving */
  public CheckpointStore(Path file, Clock clock) {
    this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  public Path file() {
    return file;
  }

  /**
   * Reads the checkpoint; a missing file is an empty checkpoint with {@code bootId}.
   *
   * @throws CheckpointCorruptException when the file exists but fails verification
   * @throws IOException when it cannot be read
   */
  public Checkpoint load(String bootId) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Checkpoint.empty(bootId);
    }
    return codec.decode(bytes, file);
  }

  /**
   * One version of the file. Every {@link #save} renames a new file into place, so a new version
   * has a new inode: two instances sharing the file (a rolling update) tell by this whether the
   * other has written since they last read.
   *
   * @param fileKey  the inode ({@link java.nio.file.attribute.BasicFileAttributes#fileKey})
   * @param modified last modification time
   * @param size     size in bytes
   */
  public record Version(Object fileKey, java.nio.file.attribute.FileTime modified, long size) {}

  /**
   * The file's version now, empty when there is no file.
   *
   * @throws IOException naming the file when it cannot be read
   */
  public java.util.Optional<Version> version() throws IOException {
    try {
      var a = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
      return java.util.Optional.of(new Version(a.fileKey(), a.lastModifiedTime(), a.size()));
    } catch (NoSuchFileException e) {
      return java.util.Optional.empty();
    } catch (IOException e) {
      throw new IOException(file + ": reading the checkpoint's attributes failed: "
          + e.getMessage(), e);
    }
  }

  /**
   * Replaces the file with {@code checkpoint}.
   *
   * @throws IOException naming the file when it cannot be written (the old file stays)
   */
  public void save(Checkpoint checkpoint) throws IOException {
    try {
      HostFiles.writeAtomically(file, codec.encode(checkpoint), HostFiles.OWNER_ONLY_FILE);
      // the rename itself must survive a power cut, or a reboot brings back the old state
      try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
        dir.force(true);
      }
    } catch (IOException e) {
      throw new IOException(file + ": writing the checkpoint failed: " + e.getMessage(), e);
    }
  }

  /**
   * Moves an untrusted checkpoint aside, to {@code checkpoint.json.corrupt-<UTC time>}, so that it
   * is kept for inspection and never read again.
   *
   * @return where it went
   * @throws IOException when it cannot be moved
   */
  public Path quarantine() throws IOException {
    Path aside = file.resolveSibling(file.getFileName() + ".corrupt-" + STAMP.format(clock.instant()));
    for (int i = 1; Files.exists(aside); i++) {
      aside = file.resolveSibling(file.getFileName() + ".corrupt-" + STAMP.format(clock.instant())
          + "-" + i);
    }
    Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
    return aside;
  }
}
