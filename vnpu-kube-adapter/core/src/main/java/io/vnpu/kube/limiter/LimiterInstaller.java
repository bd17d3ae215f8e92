package io.vnpu.kube.limiter;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;

/**
 * Installs the limiter into the host directory soft-sliced containers mount: {@code libvnpu.so}
 * copied from the image and an {@code ld.so.preload} naming the library's container path. Each file
 * is compared first (SHA-256 of the library, bytes of the preload list) and left alone when
 * identical; otherwise it is written to a temporary file in the same directory, flushed and renamed
 * over the old one. The rename replaces the directory entry, so running containers keep the library
 * they mapped and a container starting during the update sees the old or the new file, never a
 * half-written one.
 */
public final class LimiterInstaller {
  private static final Set<PosixFilePermission> LIBRARY_MODE =
      PosixFilePermissions.fromString("rwxr-xr-x");
  private static final Set<PosixFilePermission> PRELOAD_MODE =
      PosixFilePermissions.fromString("rw-r--r--");

  /** What happened to one file. */
  public enum Outcome {
    /** The file did not exist and was written. */
    INSTALLED,
    /** The file existed with other content (another limiter version) and was replaced. */
    REPLACED,
    /** The file already had the wanted content; nothing was written. */
    UNCHANGED
  }

  /**
   * @param library outcome for {@code libvnpu.so}
   * @param preload outcome for {@code ld.so.preload}
   * @param librarySha256 hex SHA-256 of the installed library (the version the log names)
   */
  public record Report(Outcome library, Outcome preload, String librarySha256) {}

  private final LimiterFiles files;
  private final ElfSharedObject elf;

  public LimiterInstaller(LimiterFiles files, ElfSharedObject elf) {
    this.files = Objects.requireNonNull(files, "files");
    this.elf = Objects.requireNonNull(elf, "elf");
  }

  /**
   * Installs {@code source} as {@code <hostDir>/libvnpu.so} and writes the preload list; creates
   * the host directory (0755) when missing.
   *
   * @throws LimiterUnavailableException naming {@code source} when it is missing or not an ELF
   *     shared object for this machine (nothing is written then)
   * @throws IOException naming the host file that could not be written
   */
  public Report install(Path source) throws LimiterUnavailableException, IOException {
    elf.check(source);
    byte[] library = Files.readAllBytes(source);
    Files.createDirectories(files.hostDir());
    String sha = sha256(library);
    Outcome lib =
        place(files.library(), library, LIBRARY_MODE, existing -> sha.equals(sha256(existing)));
    Outcome pre =
        place(
            files.preload(),
            files.preloadContent(),
            PRELOAD_MODE,
            existing -> Arrays.equals(existing, files.preloadContent()));
    return new Report(lib, pre, sha);
  }

  private interface Same {
    boolean test(byte[] existing);
  }

  private static Outcome place(
      Path target, byte[] content, Set<PosixFilePermission> mode, Same same) throws IOException {
    boolean exists;
    try {
      byte[] existing = readIfSmall(target, content.length);
      if (existing != null && same.test(existing)) return Outcome.UNCHANGED;
      exists = true;
    } catch (NoSuchFileException e) {
      exists = false;
    }
    Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName() + ".", ".tmp");
    try {
      try (FileChannel ch =
          FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer b = ByteBuffer.wrap(content);
        while (b.hasRemaining()) ch.write(b);
        ch.force(true);
      }
      Files.setPosixFilePermissions(tmp, mode);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw new IOException("install " + target + ": " + e.getMessage(), e);
    }
    return exists ? Outcome.REPLACED : Outcome.INSTALLED;
  }

  /**
   * The file's bytes, or null when its size is not {@code expected} (then its content differs
   * anyway).
   */
  private static byte[] readIfSmall(Path file, int expected) throws IOException {
    if (Files.isDirectory(file)) throw new IOException(file + " is a directory");
    long size = Files.size(file);
    if (size != expected) return null;
    try (InputStream in = Files.newInputStream(file)) {
      return in.readAllBytes();
    }
  }

  static String sha256(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
