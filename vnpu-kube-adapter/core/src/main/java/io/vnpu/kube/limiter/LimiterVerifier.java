package io.vnpu.kube.limiter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link LimiterGate} over the installed files: {@code libvnpu.so} exists, is readable and is
 * an ELF shared object for this machine; {@code ld.so.preload} exists, is readable and names
 * exactly the container path of the library. Each call reads the files again (20 header bytes and a
 * short text file), so a library removed or replaced on the host after start is noticed at the next
 * request. The last outcome is kept for the readiness endpoint and the metrics.
 */
public final class LimiterVerifier implements LimiterGate {
  private static final int PRELOAD_MAX_BYTES = 4096;

  private final LimiterFiles files;
  private final ElfSharedObject elf;
  private volatile Optional<String> lastProblem = Optional.of("not verified yet");

  public LimiterVerifier(LimiterFiles files, ElfSharedObject elf) {
    this.files = Objects.requireNonNull(files, "files");
    this.elf = Objects.requireNonNull(elf, "elf");
  }

  /** A verifier for this machine's architecture. */
  public static LimiterVerifier forThisMachine(LimiterFiles files) {
    return new LimiterVerifier(files, ElfSharedObject.thisMachine());
  }

  public LimiterFiles files() {
    return files;
  }

  @Override
  public void verify() throws LimiterUnavailableException {
    try {
      elf.check(files.library());
      checkPreload();
      lastProblem = Optional.empty();
    } catch (LimiterUnavailableException e) {
      lastProblem = Optional.of(e.getMessage());
      throw e;
    }
  }

  /** Verifies and says whether the limiter is usable, without throwing. */
  public boolean usable() {
    try {
      verify();
      return true;
    } catch (LimiterUnavailableException e) {
      return false;
    }
  }

  /**
   * The problem the last {@link #verify()} found, empty when it passed. Before the first call: "not
   * verified yet".
   */
  public Optional<String> lastProblem() {
    return lastProblem;
  }

  private void checkPreload() throws LimiterUnavailableException {
    byte[] content;
    try {
      if (Files.isDirectory(files.preload())) {
        throw new LimiterUnavailableException(
            files.preload(), "is a directory, not a preload list");
      }
      if (Files.size(files.preload()) > PRELOAD_MAX_BYTES) {
        throw new LimiterUnavailableException(
            files.preload(), "is larger than " + PRELOAD_MAX_BYTES + " bytes");
      }
      content = Files.readAllBytes(files.preload());
    } catch (NoSuchFileException e) {
      throw new LimiterUnavailableException(files.preload(), "does not exist");
    } catch (AccessDeniedException e) {
      throw new LimiterUnavailableException(files.preload(), "is not readable");
    } catch (IOException e) {
      throw new LimiterUnavailableException(files.preload(), "cannot be read: " + e.getMessage());
    }
    if (!Arrays.equals(content, files.preloadContent())) {
      String shown = new String(content, StandardCharsets.UTF_8).strip();
      throw new LimiterUnavailableException(
          files.preload(),
          "content = \"" + shown + "\": expected \"" + files.containerLibraryPath() + "\"");
    }
  }
}
