package io.vnpu.api.slice;

import io.vnpu.api.model.Priority;
import java.util.Objects;
import java.util.Optional;

/** What part of one physical NPU a slice gets: all of it, a hard vNPU template, or a soft quota. */
public sealed interface SliceShare
    permits SliceShare.Whole, SliceShare.HardTemplate, SliceShare.SoftQuota {

  /** The kind of slice this share makes. */
  SliceKind kind();

  /** The whole NPU. */
  record Whole() implements SliceShare {
    @Override
    public SliceKind kind() {
      return SliceKind.WHOLE;
    }
  }

  /**
   * A vNPU created from a DCMI template (hard slicing).
   *
   * @param template template name as {@code dcmi_create_vdevice} and HAMi {@code
   *     device-config.yaml} name it, e.g. {@code vir05_1c_16g}
   */
  record HardTemplate(String template) implements SliceShare {
    public HardTemplate {
      Objects.requireNonNull(template, "template");
      if (template.isBlank()) throw new IllegalArgumentException("template must not be blank");
    }

    @Override
    public SliceKind kind() {
      return SliceKind.HARD;
    }
  }

  /**
   * A memory quota and AI-core share enforced by the limiter (soft slicing).
   *
   * @param memoryLimitBytes device memory the slice may hold, bytes; 0 = unlimited
   * @param computeWeight AI-core share weight 1..10000 among busy slices of the NPU (HAMi {@code
   *     NPU_PRIORITY}: the percent the scheduler charged); 0 = no compute share (memory only)
   * @param computeCapPct hard ceiling of AI-core time in percent 1..100; 0 = no ceiling
   * @param priority launch priority class
   * @param policy how the share is shared ({@link SharingPolicy}; a fixed share's ceiling is its
   *     weight when {@code computeCapPct} is 0); empty = the weight, ceiling and priority exactly
   *     as given (no sharing policy)
   */
  record SoftQuota(
      long memoryLimitBytes,
      int computeWeight,
      int computeCapPct,
      Priority priority,
      Optional<SharingPolicy> policy)
      implements SliceShare {
    public SoftQuota {
      Objects.requireNonNull(priority, "priority");
      Objects.requireNonNull(policy, "policy");
      if (policy.isPresent() && computeWeight == 0) {
        throw new IllegalArgumentException(
            "a sharing policy (" + policy.get() + ") needs a compute share: computeWeight is 0");
      }
      if (memoryLimitBytes < 0) {
        throw new IllegalArgumentException(
            "memoryLimitBytes must be >= 0 bytes: " + memoryLimitBytes);
      }
      if (computeWeight < 0 || computeWeight > 10000) {
        throw new IllegalArgumentException("computeWeight must be in 0..10000: " + computeWeight);
      }
      if (computeCapPct < 0 || computeCapPct > 100) {
        throw new IllegalArgumentException("computeCapPct must be in 0..100: " + computeCapPct);
      }
    }

    /** A quota without a sharing policy: the weight, ceiling and priority exactly as given. */
    public SoftQuota(
        long memoryLimitBytes, int computeWeight, int computeCapPct, Priority priority) {
      this(memoryLimitBytes, computeWeight, computeCapPct, priority, Optional.empty());
    }

    /** A memory-only quota: no compute share, no ceiling, normal priority. */
    public static SoftQuota memoryOnly(long memoryLimitBytes) {
      return new SoftQuota(memoryLimitBytes, 0, 0, Priority.NORMAL);
    }

    /** This quota under {@code p}. */
    public SoftQuota withPolicy(SharingPolicy p) {
      return new SoftQuota(
          memoryLimitBytes, computeWeight, computeCapPct, priority, Optional.of(p));
    }

    @Override
    public SliceKind kind() {
      return SliceKind.SOFT;
    }
  }
}
