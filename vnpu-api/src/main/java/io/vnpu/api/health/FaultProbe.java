package io.vnpu.api.health;

import java.util.List;
import java.util.function.Consumer;

/**
 * Port to the driver's raw fault sources (vnpu DCMI spec section 3.4): polling of the active fault
 * codes, card drop, parameter-plane link status and, where the chip supports it, pushed fault
 * events. {@code vnpu-dcmi} implements it over {@code libdcmi.so}. Thread-safe.
 */
public interface FaultProbe extends AutoCloseable {

  /** Logic IDs of the chips to watch, ascending. */
  List<Integer> chips();

  /**
   * Reads one chip now; never throws: a driver error is reported in {@link ChipReading#error()}.
   */
  ChipReading read(int logicId);

  /**
   * Starts delivering pushed fault events to {@code sink} (on a driver thread: the sink must be
   * quick and must not throw).
   *
   * @return false when the driver or chip does not support subscription (polling alone is used)
   */
  boolean subscribe(Consumer<FaultEvent> sink);

  @Override
  void close();
}
