package io.vnpu.quota.registry;

import java.io.IOException;
import java.nio.file.Path;

/** A registry lock stayed held by another process longer than the bound. */
public final class RegistryBusyException extends IOException {
  public RegistryBusyException(Path file, String what) {
    super("compute registry " + file + ": " + what);
  }
}
