package io.vnpu.kube.cli.node;

import java.io.PrintWriter;

/** Port: discovers the node (installed Ascend driver, or the bundled simulated node). */
public interface NodeAccess {

  /**
   * Discovers the node. On the bundled simulated node it says so in one line on {@code err}.
   *
   * @param simProfile simulator profile asked for (forces the simulator), or null
   * @param simRoot simulator state directory to use, or null for the simulator's default
   * @throws IllegalArgumentException for an unknown profile
   * @throws io.vnpu.api.spi.DeviceException when neither a driver nor the simulator can be used
   */
  NodeInfo discover(String simProfile, java.nio.file.Path simRoot, PrintWriter err);
}
