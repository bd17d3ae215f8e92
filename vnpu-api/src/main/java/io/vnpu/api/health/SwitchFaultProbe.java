package io.vnpu.api.health;

import java.util.List;

/** Port to the node's switch fault source ({@code liblingqu-dcmi.so} on A3 servers). */
@FunctionalInterface
public interface SwitchFaultProbe {
  /** A node without LingQu switches. */
  SwitchFaultProbe NONE = List::of;

  /**
   * The faults the driver lists now.
   *
   * @throws RuntimeException when they cannot be read (the caller keeps the previous report)
   */
  List<SwitchFault> read();
}
