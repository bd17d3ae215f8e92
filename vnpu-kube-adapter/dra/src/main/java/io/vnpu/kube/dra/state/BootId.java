package io.vnpu.kube.dra.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The kernel's boot ID, different after every reboot of the node. */
public final class BootId {
  /** Where Linux exposes it. */
  public static final Path PROC_FILE = Path.of("/proc/sys/kernel/random/boot_id");

  private BootId() {}

  /** The boot ID read from {@code file}, or empty when it cannot be read (not Linux). */
  public static String read(Path file) {
    try {
      return Files.readString(file).trim();
    } catch (IOException e) {
      return "";
    }
  }
}
