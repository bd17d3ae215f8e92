package io.vnpu.kube.hami.codec;

import java.util.Objects;

/**
 * One device of one container in {@code hami.io/<cw>-devices-to-allocate} (HAMi {@code
 * ContainerDevice}, protocol spec section 3.2).
 *
 * @param uuid die-ID UUID of the physical NPU
 * @param type commonWord
 * @param usedMemMib memory the scheduler charged, MiB
 * @param usedCores AI-core percent the scheduler charged (0 for hard split)
 */
public record ContainerDevice(String uuid, String type, int usedMemMib, int usedCores) {
  public ContainerDevice {
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(type, "type");
  }
}
