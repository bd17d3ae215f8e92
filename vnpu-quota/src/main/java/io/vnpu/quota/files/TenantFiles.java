package io.vnpu.quota.files;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Opens files a tenant can reach (a container's quota region, its directory, the compute registry a
 * container mounts) without ever blocking on them: the one rule for every such open in the node
 * agent, {@code vnpu run} and the metrics collection.
 *
 * <p>{@code FileChannel.open} blocks: on a file with a lease ({@code fcntl(F_SETLEASE)}, which root
 * in a container can take on a file it can open) for the kernel's lease-break time (45 s by
 * default), and on a FIFO until a writer comes. So the file is first opened by libc {@code open(2)}
 * through JNA with {@code O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC} (a lease makes it fail at once with
 * {@code EWOULDBLOCK}, a symbolic link with {@code ELOOP}, a FIFO opens without waiting), checked
 * through {@code /proc/self/fd} (a regular file, of a size in the caller's range, not sparse), and
 * only then reopened as a {@link FileChannel} through {@code /proc/self/fd/N}: the very inode
 * checked, which nobody can lease any more while the first descriptor is open (a write lease needs
 * no other open, a read lease no open for writing). Linux only.
 */
public final class TenantFiles {
  /** The part of libc this class calls. */
  interface LibC extends Library {
    int open(String path, int flags) throws LastErrorException;

    int close(int fd) throws LastErrorException;

    long lseek(int fd, long offset, int whence) throws LastErrorException;
  }

  private static final int O_RDONLY = 0;
  private static final int O_RDWR = 2;
  private static final int O_NONBLOCK = 04000;
  private static final int O_CLOEXEC = 02000000;

  /** O_NOFOLLOW differs by architecture (asm-generic: aarch64, riscv64; x86: its own). */
  private static final int O_NOFOLLOW = Platform.isIntel() ? 0400000 : 0100000;

  private static final int SEEK_HOLE = 4;
  private static final int EWOULDBLOCK = 11;
  private static final int ELOOP = 40;
  private static final int ENOENT = 2;
  private static final int EPERM = 1;
  private static final int EACCES = 13;
  private static final int EISDIR = 21;

  private final LibC libc;

  public TenantFiles() {
    this(Native.load("c", LibC.class));
  }

  TenantFiles(LibC libc) {
    this.libc = libc;
  }

  /**
   * Opens {@code file} for reading (and writing when {@code write}) without blocking, a regular
   * file of {@code minBytes..maxBytes} bytes, and not sparse when {@code refuseSparse}.
   *
   * @throws java.nio.file.NoSuchFileException if there is no file at the path
   * @throws TenantFileException naming the file and the reason when it is leased, a link, not a
   *     regular file, of another size or sparse
   * @throws IOException when it cannot be opened otherwise
   */
  public FileChannel open(
      Path file, boolean write, long minBytes, long maxBytes, boolean refuseSparse)
      throws IOException {
    OpenOption[] opts =
        write
            ? new OpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE}
            : new OpenOption[] {StandardOpenOption.READ};
    return openChecked(
        file, write, minBytes, maxBytes, refuseSparse, self -> FileChannel.open(self, opts));
  }

  /**
   * The same checked, non-blocking open as {@link #open}, as a {@link RandomAccessFile}: its {@link
   * RandomAccessFile#length()} is one {@code fstat} without a channel's interruptible-I/O
   * bookkeeping (a reader that checks the size before every read of a mapping), and its {@link
   * RandomAccessFile#getChannel()} shares the descriptor (closing either closes both).
   *
   * @throws java.nio.file.NoSuchFileException if there is no file at the path
   * @throws TenantFileException as {@link #open}
   * @throws IOException when it cannot be opened otherwise
   */
  public RandomAccessFile openRandomAccess(
      Path file, boolean write, long minBytes, long maxBytes, boolean refuseSparse)
      throws IOException {
    // "rw" adds O_CREAT, harmless here: the path is the open descriptor's own inode
    return openChecked(
        file,
        write,
        minBytes,
        maxBytes,
        refuseSparse,
        self -> new RandomAccessFile(self.toFile(), write ? "rw" : "r"));
  }

  /** Reopens the checked descriptor's inode ({@code /proc/self/fd/N}) as the caller's type. */
  private interface Reopen<T> {
    T reopen(Path self) throws IOException;
  }

  private <T> T openChecked(
      Path file,
      boolean write,
      long minBytes,
      long maxBytes,
      boolean refuseSparse,
      Reopen<T> reopen)
      throws IOException {
    int fd;
    try {
      fd =
          libc.open(
              file.toString(), (write ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    } catch (LastErrorException e) {
      switch (e.getErrorCode()) {
        case ENOENT -> throw new java.nio.file.NoSuchFileException(file.toString());
        case EWOULDBLOCK ->
            throw new TenantFileException(file, "held by a file lease (opened without waiting)");
        case ELOOP -> throw new TenantFileException(file, "a symbolic link");
        case EACCES, EPERM -> throw new java.nio.file.AccessDeniedException(file.toString());
        case EISDIR -> throw new TenantFileException(file, "not a regular file (a directory)");
        default -> throw new IOException(file + ": open failed: errno " + e.getErrorCode(), e);
      }
    }
    try {
      Path self = Path.of("/proc/self/fd/" + fd);
      Map<String, Object> a = Files.readAttributes(self, "unix:mode,size");
      int mode = (Integer) a.get("mode");
      long size = (Long) a.get("size");
      if ((mode & 0170000) != 0100000) {
        throw new TenantFileException(
            file, "not a regular file (mode " + Integer.toOctalString(mode) + ")");
      }
      if (size < minBytes || size > maxBytes) {
        throw new TenantFileException(
            file, "size " + size + " bytes, expected " + minBytes + ".." + maxBytes);
      }
      if (refuseSparse && size > 0 && firstHole(fd) < size) {
        throw new TenantFileException(
            file, "sparse (a hole before its end): a full file system could not back it");
      }
      return reopen.reopen(self);
    } finally {
      try {
        libc.close(fd);
      } catch (LastErrorException ignored) {
        // the checked descriptor served its purpose; the channel has its own
      }
    }
  }

  private long firstHole(int fd) {
    try {
      return libc.lseek(fd, 0, SEEK_HOLE);
    } catch (LastErrorException e) {
      return Long.MAX_VALUE; // the file system cannot tell: treated as not sparse
    }
  }
}
