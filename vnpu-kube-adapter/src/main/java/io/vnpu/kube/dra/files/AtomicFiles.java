package io.vnpu.kube.dra.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * Whole-file writes that a reader never sees half done: the bytes go to a temporary file in the
 * same directory (created exclusively, never following a link; its name ends in {@code .tmp} so
 * neither a CDI runtime nor our own readers pick it up), which is fsynced, renamed over the target
 * and the directory fsynced, so the rename survives a power cut.
 *
 * <p>Deletes never follow links: a link at the target is removed, not what it points to.
 */
public final class AtomicFiles {

  private static final SecureRandom RANDOM = new SecureRandom();

  private AtomicFiles() {}

  /**
   * Replaces {@code target} with {@code content} atomically.
   *
   * @param mode POSIX permissions of the new file, e.g. {@code rw-r--r--}
   * @throws IOException when a step fails; the temporary file is removed and the old content of
   *     {@code target} is kept
   */
  public static void write(Path target, byte[] content, String mode) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    byte[] r = new byte[6];
    RANDOM.nextBytes(r);
    Path tmp = dir.resolve("." + target.getFileName() + "." + HexFormat.of().formatHex(r) + ".tmp");
    Set<PosixFilePermission> perms = PosixFilePermissions.fromString(mode);
    try {
      try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
          PosixFilePermissions.asFileAttribute(perms))) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      // the umask may have narrowed the mode given at creation
      Files.setPosixFilePermissions(tmp, perms);
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException(target + ": the file system cannot rename atomically", e);
      }
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    syncDirectory(dir);
  }

  /**
   * Removes {@code target} (a link itself, never its target) and fsyncs the directory.
   *
   * @return whether something was removed; a missing file is not an error
   * @throws IOException when the removal fails
   */
  public static boolean delete(Path target) throws IOException {
    // Files.deleteIfExists does not follow a symbolic link at the path: it removes the link.
    boolean removed = Files.deleteIfExists(target);
    if (removed) {
      syncDirectory(target.toAbsolutePath().getParent());
    }
    return removed;
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
