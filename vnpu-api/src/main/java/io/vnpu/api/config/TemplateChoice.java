package io.vnpu.api.config;

import io.vnpu.api.model.VnpuTemplate;
import java.util.Objects;

/**
 * Outcome of template selection ("trim") for a memory request on one chip model; the same rule the
 * HAMi scheduler and webhook apply, so plugin and scheduler agree on the template.
 */
public sealed interface TemplateChoice
    permits TemplateChoice.Template, TemplateChoice.WholeCard, TemplateChoice.Rejected {

  /** Memory the container is charged, in MiB; 0 when rejected. */
  long memoryMib();

  /**
   * The template name as it appears in HAMi's {@code huawei.com/<commonWord>} {@code temp} field
   * and in {@code ASCEND_VNPU_SPECS}; empty for a whole card or a rejection.
   */
  String templateName();

  /** The smallest template whose memory covers the request: a hard vNPU. */
  record Template(VnpuTemplate template) implements TemplateChoice {
    public Template {
      Objects.requireNonNull(template, "template");
    }

    @Override
    public long memoryMib() {
      return template.memoryMib();
    }

    @Override
    public String templateName() {
      return template.name();
    }
  }

  /**
   * No template is large enough but the request fits the chip: the whole physical NPU, charged at
   * {@code memoryAllocatable}.
   *
   * @param memoryMib the chip's {@code memoryAllocatable} in MiB
   */
  record WholeCard(long memoryMib) implements TemplateChoice {
    @Override
    public String templateName() {
      return "";
    }
  }

  /**
   * The request exceeds the chip's {@code memoryCapacity}.
   *
   * @param requestMib the request in MiB
   * @param memoryCapacityMib the chip's {@code memoryCapacity} in MiB
   */
  record Rejected(long requestMib, long memoryCapacityMib) implements TemplateChoice {
    @Override
    public long memoryMib() {
      return 0;
    }

    @Override
    public String templateName() {
      return "";
    }
  }
}
