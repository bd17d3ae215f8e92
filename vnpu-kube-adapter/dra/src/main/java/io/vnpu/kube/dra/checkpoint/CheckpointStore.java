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
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * The checkpoint file {@code <plugin-dir>/checkpoint.json}: loaded once at start, replaced
 * atomically on every change ({@link HostFiles#writeAtomically}: exclusive temp file, one fsync,
 * rename; the directory is synced only when the rename creates the file, see {@link
 * HostFiles.DirectorySync#WHEN_CREATED}: after a power cut the file holds the last or an earlier
 * complete checkpoint, which start-up treats like a crash before the later calls).
 *
 * <p>Thread-safe, with group commit: {@link #submit} hands in a checkpoint that supersedes the ones
 * before it, {@link #await} returns once a write that holds it (or a later one) is on disk. The
 * first waiter becomes the writer; checkpoints submitted while it writes share the next write,
 * which writes only the newest of them: one fsync for all. A caller may submit under its own lock
 * and wait after releasing it, so that claims prepared at the same time share one fsync.
 *
 * <p>A failed write fails every commit submitted until then, not only those it held: a later
 * checkpoint was computed from the earlier ones, so it would record what the caller is about to
 * undo. Each failure counts ({@link #failures}); a checkpoint computed before a failure ({@code
 * basedOn} of {@link #submit}) fails at once, and the caller reads the file again ({@link #load})
 * before it computes the next one.
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

  /**
   * One checkpoint handed to {@link #submit}: pending until a write holding it (or a later one)
   * ends, then durable or failed.
   */
  public static final class Commit {
    private final long seq;
    private boolean done; // guarded by the store's commit monitor
    private IOException failure; // guarded by the store's commit monitor

    private Commit(long seq) {
      this.seq = seq;
    }
  }

  private final Object commit = new Object();
  private final ArrayDeque<Commit> pending = new ArrayDeque<>(); // guarded by commit: seq order
  private Checkpoint newest; // guarded by commit: the newest checkpoint submitted
  private long submitted; // guarded by commit: sequence number of newest
  private long failures; // guarded by commit: failed writes so far
  private IOException lastFailure; // guarded by commit
  private boolean writing; // guarded by commit
  private Version written; // guarded by commit: the file as the last successful write left it

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
   * Replaces the file with {@code checkpoint}, sharing the write with concurrent saves: {@link
   * #submit} and {@link #await} in one.
   *
   * @throws IOException naming the file when it cannot be written (the old file stays)
   */
  public void save(Checkpoint checkpoint) throws IOException {
    long basedOn;
    synchronized (commit) {
      basedOn = failures;
    }
    await(submit(checkpoint, basedOn));
  }

  /**
   * Hands in {@code checkpoint} to be written, superseding every checkpoint submitted before it;
   * returns at once. Callers submit in the order their checkpoints were computed (under their own
   * lock).
   *
   * @param basedOn {@link #failures} when the caller last read the file or started from it: when a
   *     write failed since, {@code checkpoint} may hold what that write lost and the commit fails
   *     at once
   */
  public Commit submit(Checkpoint checkpoint, long basedOn) {
    Objects.requireNonNull(checkpoint, "checkpoint");
    synchronized (commit) {
      Commit c = new Commit(++submitted);
      if (basedOn != failures) {
        c.done = true;
        c.failure =
            new IOException(
                "computed before a failed write ("
                    + (lastFailure == null ? "unknown" : lastFailure.getMessage())
                    + ")");
        return c;
      }
      newest = checkpoint;
      pending.add(c);
      return c;
    }
  }

  /**
   * Waits until {@code c} is on disk, writing it (and whatever was submitted with it) when no other
   * waiter is writing. Not interruptible: its caller must know whether its record was written (an
   * interrupt is kept for it).
   *
   * @throws IOException naming the file when the write that held it, or one before it, failed
   */
  public void await(Commit c) throws IOException {
    Objects.requireNonNull(c, "commit");
    boolean interrupted = false;
    try {
      for (; ; ) {
        Checkpoint batch;
        long through;
        synchronized (commit) {
          while (!c.done && writing) {
            try {
              commit.wait();
            } catch (InterruptedException e) {
              interrupted = true;
            }
          }
          if (c.done) {
            if (c.failure != null) throw failed(c.failure);
            return;
          }
          writing = true;
          batch = newest;
          through = submitted;
        }
        write(batch, through);
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }

  private void write(Checkpoint batch, long through) {
    IOException error = null;
    Version after = null;
    try {
      durableWrite.write(file, codec.encode(batch));
    } catch (IOException e) {
      error = e;
    } catch (RuntimeException e) {
      error = new IOException(e.toString(), e);
    }
    if (error == null) {
      try {
        after = version().orElse(null);
      } catch (IOException e) {
        after = null; // unknown: the caller reads the file again before its next change
      }
    }
    synchronized (commit) {
      writing = false;
      if (error == null) {
        written = after;
        while (!pending.isEmpty() && pending.peek().seq <= through) {
          pending.poll().done = true;
        }
      } else {
        // every commit submitted so far: the later ones were computed from the failed one
        failures++;
        lastFailure = error;
        for (Commit p : pending) {
          p.done = true;
          p.failure = error;
        }
        pending.clear();
      }
      commit.notifyAll();
    }
  }

  /** Failed writes so far (see {@link #submit}). */
  public long failures() {
    synchronized (commit) {
      return failures;
    }
  }

  /**
   * The file's version as this store's last successful write left it (empty before the first): when
   * {@link #version} differs, another instance wrote since.
   */
  public java.util.Optional<Version> writtenVersion() {
    synchronized (commit) {
      return java.util.Optional.ofNullable(written);
    }
  }

  /** Commits handed in and not yet on disk nor failed (for tests of the group commit). */
  long pendingSaves() {
    synchronized (commit) {
      return pending.size();
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
