package io.vnpu.api.model;

/**
 * How much AI-core time a slice gets: a percentage of one NPU, or a number of AI Cores (hard split).
 */
public sealed interface ComputeShare permits ComputeShare.Percent, ComputeShare.Cores {

  /** A share of one NPU's AI-core time, 1..100 percent. */
  record Percent(int percent) implements ComputeShare {
    public Percent {
      if (percent < 1 || percent > 100) {
        throw new IllegalArgumentException("AI-core percent must be in 1..100: " + percent);
      }
    }
  }

  /** A number of AI Cores, as a vNPU template grants. */
  record Cores(int count) implements ComputeShare {
    public Cores {
      if (count < 1) throw new IllegalArgumentException("AI-core count must be >= 1: " + count);
    }
  }
}
