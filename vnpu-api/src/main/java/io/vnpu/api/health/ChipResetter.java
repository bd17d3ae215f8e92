package io.vnpu.api.health;

import java.util.Set;

/**
 * Port to the driver's reset functions (vnpu DCMI spec section 3.12; {@code dcmi_set_device_reset},
 * {@code dcmi_get_device_boot_status}, {@code dcmi_get_device_resource_info}). Thread-safe.
 */
public interface ChipResetter {
  /** Boot status of a chip that is fully up ({@code DCMI_SYSTEM_START_FINISH}). */
  int BOOT_FINISHED = 16;

  /**
   * The chips that reset together with {@code logicId}, itself included: both chips of an Atlas
   * 300I Duo card, the whole HCCS ring of a 910B training server, else the chip alone.
   */
  Set<Integer> resetGroup(int logicId);

  /**
   * The chips a training job's recovery ({@code -hotReset=2}) resets together with {@code logicId},
   * itself included: the HCCS ring of 4 chips on 910A, of 8 on a 910B training server, all 16 chips
   * of an A3 server; else {@link #resetGroup}.
   */
  Set<Integer> trainingRing(int logicId);

  /**
   * The chip's parameter-plane network is usable ({@code dcmi_get_device_network_health} answers
   * 0); also true for a chip without a RoCE port (nothing to check).
   *
   * @throws io.vnpu.api.spi.DeviceException when it cannot be read
   */
  boolean networkHealthy(int logicId);

  /**
   * Host processes holding memory on the chip ({@code dcmi_get_device_resource_info}), or -1 when
   * the driver cannot tell (then the chip counts as in use).
   */
  int processCount(int logicId);

  /**
   * Starts an in-band reset of a whole group (one driver call per card or per chip as the product
   * needs); returns without waiting for the chips to boot.
   *
   * @throws io.vnpu.api.spi.DeviceException when the driver refuses or fails the reset
   */
  void reset(Set<Integer> group);

  /**
   * Boot status now: {@link #BOOT_FINISHED} when up.
   *
   * @throws io.vnpu.api.spi.DeviceException when it cannot be read
   */
  int bootStatus(int logicId);
}
