package io.vnpu.kube.limiter;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * Checks that a file is an ELF shared object the dynamic loader of this machine can preload: ELF
 * magic, 64-bit class, this machine's byte order, {@code e_type == ET_DYN} and {@code e_machine} of
 * this machine (System V ABI, ELF header fields {@code e_ident}, {@code e_type}, {@code
 * e_machine}). A file that fails would make the loader print a warning and start the workload
 * without a limit.
 *
 * @param machine expected {@code e_machine} (62 for x86-64, 183 for AArch64)
 * @param order expected byte order
 */
public record ElfSharedObject(int machine, ByteOrder order) {
  static final int EM_X86_64 = 62;
  static final int EM_AARCH64 = 183;
  private static final int ET_DYN = 3;
  private static final int HEADER_BYTES = 20;

  public ElfSharedObject {
    Objects.requireNonNull(order, "order");
  }

  /**
   * The check for the machine this JVM runs on.
   *
   * @throws IllegalStateException when the JVM's {@code os.arch} is neither x86-64 nor AArch64 (the
   *     two architectures Ascend hosts use)
   */
  public static ElfSharedObject thisMachine() {
    return forArch(System.getProperty("os.arch", ""));
  }

  static ElfSharedObject forArch(String osArch) {
    return switch (osArch.toLowerCase(Locale.ROOT)) {
      case "amd64", "x86_64" -> new ElfSharedObject(EM_X86_64, ByteOrder.LITTLE_ENDIAN);
      case "aarch64", "arm64" -> new ElfSharedObject(EM_AARCH64, ByteOrder.LITTLE_ENDIAN);
      default ->
          throw new IllegalStateException(
              "os.arch = "
                  + osArch
                  + ": no limiter build exists for this architecture (x86_64 and aarch64 only)");
    };
  }

  /**
   * @throws LimiterUnavailableException naming {@code file} when it is missing, unreadable, a
   *     directory, or not an ELF shared object for this machine
   */
  public void check(Path file) throws LimiterUnavailableException {
    if (Files.isDirectory(file))
      throw new LimiterUnavailableException(file, "is a directory, not a library");
    byte[] h = new byte[HEADER_BYTES];
    int n;
    try (InputStream in = Files.newInputStream(file)) {
      n = in.readNBytes(h, 0, h.length);
    } catch (NoSuchFileException e) {
      throw new LimiterUnavailableException(file, "does not exist");
    } catch (AccessDeniedException e) {
      throw new LimiterUnavailableException(file, "is not readable");
    } catch (IOException e) {
      throw new LimiterUnavailableException(file, "cannot be read: " + e.getMessage());
    }
    if (n < HEADER_BYTES || h[0] != 0x7f || h[1] != 'E' || h[2] != 'L' || h[3] != 'F') {
      throw new LimiterUnavailableException(
          file, "is not an ELF file (" + n + " header bytes read)");
    }
    if (h[4] != 2)
      throw new LimiterUnavailableException(file, "ELF class = " + h[4] + ": not a 64-bit object");
    ByteOrder fileOrder =
        h[5] == 1 ? ByteOrder.LITTLE_ENDIAN : h[5] == 2 ? ByteOrder.BIG_ENDIAN : null;
    if (fileOrder != order) {
      throw new LimiterUnavailableException(file, "ELF data encoding = " + h[5] + ": not " + order);
    }
    ByteBuffer b = ByteBuffer.wrap(h).order(order);
    int type = Short.toUnsignedInt(b.getShort(16));
    if (type != ET_DYN) {
      throw new LimiterUnavailableException(
          file, "ELF e_type = " + type + ": not a shared object (3)");
    }
    int m = Short.toUnsignedInt(b.getShort(18));
    if (m != machine) {
      throw new LimiterUnavailableException(
          file,
          "ELF e_machine = " + m + ": built for another machine than this one (" + machine + ")");
    }
  }
}
