package io.vnpu.kube.kubelet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/**
 * Identity of a file at a moment: device and inode ({@code fileKey}) plus modification time, so
 * that a socket deleted and re-created at the same path (kubelet restart) compares unequal even
 * when the file system reuses the inode number. Used to notice that the kubelet (or anyone) removed
 * or replaced a socket.
 */
public record FileIdentity(Object fileKey, FileTime modified) {

  /** The identity of the file at {@code path}, or empty when nothing is there. */
  public static Optional<FileIdentity> of(Path path) {
    try {
      BasicFileAttributes a =
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return Optional.of(new FileIdentity(a.fileKey(), a.lastModifiedTime()));
    } catch (IOException e) {
      // Absent (or vanished between the directory listing and the stat): both mean "not there".
      return Optional.empty();
    }
  }
}
