package io.vnpu.kube.hami.cleanup;

import java.util.Objects;

/**
 * Identity of one vNPU across scans; the template is part of it so a destroyed vNPU whose ID was
 * reused for a new one is not mistaken for the old.
 */
public record VnpuKey(int logicId, int vnpuId, String templateName) {
  public VnpuKey {
    Objects.requireNonNull(templateName, "templateName");
  }
}
