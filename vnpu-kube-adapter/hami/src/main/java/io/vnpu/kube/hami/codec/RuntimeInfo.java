package io.vnpu.kube.hami.codec;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * One element of the {@code huawei.com/<cw>} pod annotation (protocol spec section 3.3).
 *
 * @param uuid die-ID UUID of the physical NPU
 * @param temp vNPU template name for hard split, empty for whole card and soft split
 * @param memory memory in MiB ({@code NPU_MEM_QUOTA} for soft split), absent in older HAMi
 * @param core AI-core percent ({@code NPU_PRIORITY} for soft split), absent when 0
 */
public record RuntimeInfo(String uuid, String temp, OptionalInt memory, OptionalInt core) {
  public RuntimeInfo {
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(temp, "temp");
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(core, "core");
  }
}
