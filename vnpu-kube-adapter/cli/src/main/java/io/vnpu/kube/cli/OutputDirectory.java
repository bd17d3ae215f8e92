package io.vnpu.kube.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/** Checks, before any work starts, that a command can write its output files into a directory. */
final class OutputDirectory {
  private OutputDirectory() {}

  /**
   * Creates {@code dir} if needed; what stops writing into it, in words, or empty when nothing
   * does.
   */
  static Optional<String> problem(Path dir) {
    try {
      Files.createDirectories(dir);
      Path probe = Files.createTempFile(dir, ".vnpu-write-check", "");
      Files.delete(probe);
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("cannot write there: " + reason(e));
    }
  }

  /** The reason of an I/O failure without Java type names. */
  static String reason(IOException e) {
    if (e instanceof AccessDeniedException a) return "permission denied (" + a.getFile() + ")";
    if (e instanceof NoSuchFileException n)
      return "no such file or directory (" + n.getFile() + ")";
    if (e instanceof FileAlreadyExistsException f)
      return "a file, not a directory, is in the way (" + f.getFile() + ")";
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason() + (f.getFile() == null ? "" : " (" + f.getFile() + ")");
    }
    return e.getMessage() == null ? "I/O error" : e.getMessage();
  }
}
