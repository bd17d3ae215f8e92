package io.vnpu.kube.dra.checkpoint;

import io.vnpu.quota.files.HostFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;

/**
 * The checkpoint file {@code <plugin-dir>/checkpoint.json}: loaded once at start, replaced
 * atomically on every change ({@link HostFiles#writeAtomically}: exclusive temp file, one fsync,
 * rename; the directory is synced only when the rename creates the file, see {@link
 * HostFiles.DirectorySync#WHEN_CREATED}: after a power cut the file holds the last or an earlier
 * complete checkpoint, which start-up treats like a crash before the later calls).
 *
 * <p>Thread-safe, with group commit: each {@link #save} supersedes the ones before it, so
 * concurrent savers share one write. The first becomes the writer; those that arrive while it
 * writes wait, and the next writer writes only the newest of them: one fsync for all. A save
 * returns once a write that holds its checkpoint (or a later one) is on disk, or throws if that
 * write failed.
 *
 * <p>Shared by two plugin instances during a rolling update: callers serialize across them (the
 * claim state's lock, {@code serialize.lock}) and read the file again when its {@link #version}
 * changed.
 */
public final class CheckpointStore {
  /** The durable write of one encoded checkpoint (a seam for tests that count writes). */
  @FunctionalInterface
  interface DurableWrite {
    void write(Path file, byte[] content) throws IOException;
  }

  /** File name inside the plugin data directory. */
  public static final String FILE_NAME = "checkpoint.json";

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final Path file;
  private final Clock clock;
  private final CheckpointCodec codec = new CheckpointCodec();
  private final DurableWrite durableWrite;

  private final Object commit = new Object();
  private Checkpoint newest; // guarded by commit: the newest checkpoint handed to save
  private long saved; // guarded by commit: sequence number of newest
  private long durable; // guarded by commit: sequence number on disk
  private long failedThrough; // guarded by commit: last sequence number of a failed write
  private IOException failure; // guarded by commit: why that write failed
  private boolean writing; // guarded by commit

  /**
   * @param file the checkpoint file; its directory must exist when saving
   */
  public CheckpointStore(Path file, Clock clock) {
    this(
        file,
        clock,
        (f, content) ->
            HostFiles.writeAtomically(
                f, content, HostFiles.OWNER_ONLY_FILE, HostFiles.DirectorySync.WHEN_CREATED));
  }

  CheckpointStore(Path file, Clock clock, DurableWrite durableWrite) {
    this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.durableWrite = Objects.requireNonNull(durableWrite, "durableWrite");
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
   * @param fileKey the inode ({@link java.nio.file.attribute.BasicFileAttributes#fileKey})
   * @param modified last modification time
   * @param size size in bytes
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
      throw new IOException(
          file + ": reading the checkpoint's attributes failed: " + e.getMessage(), e);
    }
  }

  /**
   * Replaces the file with {@code checkpoint}, sharing the write with concurrent saves (group
   * commit: the newest checkpoint handed to any of them is written, once).
   *
   * @throws IOException naming the file when it cannot be written (the old file stays)
   */
  public void save(Checkpoint checkpoint) throws IOException {
    Objects.requireNonNull(checkpoint, "checkpoint");
    Checkpoint batch;
    long through;
    synchronized (commit) {
      long mine = ++saved;
      newest = checkpoint;
      for (; ; ) {
        if (durable >= mine) return; // a later writer wrote ours, or one that supersedes it
        if (failedThrough >= mine) throw failed(failure);
        if (!writing) break;
        waitForWriter();
      }
      writing = true;
      batch = newest;
      through = saved;
    }
    IOException error = null;
    try {
      durableWrite.write(file, codec.encode(batch));
    } catch (IOException e) {
      error = e;
    } catch (RuntimeException e) {
      error = new IOException(e.toString(), e);
    }
    synchronized (commit) {
      writing = false;
      if (error == null) {
        durable = through;
      } else {
        failedThrough = through;
        failure = error;
      }
      commit.notifyAll();
    }
    if (error != null) throw failed(error);
  }

  /** Saves handed in and not yet on disk nor failed (for tests of the group commit). */
  long pendingSaves() {
    synchronized (commit) {
      return saved - Math.max(durable, failedThrough);
    }
  }

  private void waitForWriter() throws IOException {
    try {
      commit.wait();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException(
          file + ": interrupted while waiting for the checkpoint write");
    }
  }

  private IOException failed(IOException e) {
    return new IOException(file + ": writing the checkpoint failed: " + e.getMessage(), e);
  }

  /**
   * Moves an untrusted checkpoint aside, to {@code checkpoint.json.corrupt-<UTC time>}, so that it
   * is kept for inspection and never read again.
   *
   * @return where it went
   * @throws IOException when it cannot be moved
   */
  public Path quarantine() throws IOException {
    Path aside =
        file.resolveSibling(file.getFileName() + ".corrupt-" + STAMP.format(clock.instant()));
    for (int i = 1; Files.exists(aside); i++) {
      aside =
          file.resolveSibling(
              file.getFileName() + ".corrupt-" + STAMP.format(clock.instant()) + "-" + i);
    }
    Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
    return aside;
  }
}
