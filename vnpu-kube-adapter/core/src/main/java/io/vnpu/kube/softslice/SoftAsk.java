package io.vnpu.kube.softslice;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.SharingPolicy;
import java.util.Objects;
import java.util.Optional;

/**
 * What a soft slice's own settings ask within its charge: opaque configuration (DRA {@code
 * NpuConfig}) or pod annotations (HAMi RuntimeInfo). Untrusted: a tenant writes them. Each asked
 * value keeps the name of the field it came from, for the refusal message. Unset = take the charge.
 *
 * @param source where the settings were read, e.g. {@code NpuConfig} or {@code annotation
 *     huawei.com/Ascend910}
 * @param memory memory limit asked, bytes
 * @param weight compute weight asked, 1..10000
 * @param cap AI-core ceiling asked, percent 0..100 (0 = none)
 * @param priority launch priority asked
 * @param memoryOnly when present: only memory is to be enforced (no compute limiting)
 * @param policy sharing policy asked ({@link SharingPolicy})
 */
public record SoftAsk(
    String source,
    Optional<Asked<Long>> memory,
    Optional<Asked<Integer>> weight,
    Optional<Asked<Integer>> cap,
    Optional<Asked<Priority>> priority,
    Optional<Asked<Boolean>> memoryOnly,
    Optional<Asked<SharingPolicy>> policy) {

  /** One asked value and the name of its field. */
  public record Asked<T>(String field, T value) {
    public Asked {
      Objects.requireNonNull(field, "field");
      Objects.requireNonNull(value, "value");
    }
  }

  public SoftAsk {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(weight, "weight");
    Objects.requireNonNull(cap, "cap");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(memoryOnly, "memoryOnly");
    Objects.requireNonNull(policy, "policy");
  }

  /** Nothing asked: the slice gets what was charged. */
  public static SoftAsk none(String source) {
    return new SoftAsk(
        source,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  public SoftAsk memory(String field, long bytes) {
    return new SoftAsk(
        source, Optional.of(new Asked<>(field, bytes)), weight, cap, priority, memoryOnly, policy);
  }

  public SoftAsk weight(String field, int value) {
    return new SoftAsk(
        source, memory, Optional.of(new Asked<>(field, value)), cap, priority, memoryOnly, policy);
  }

  public SoftAsk cap(String field, int pct) {
    return new SoftAsk(
        source, memory, weight, Optional.of(new Asked<>(field, pct)), priority, memoryOnly, policy);
  }

  public SoftAsk priority(String field, Priority value) {
    return new SoftAsk(
        source, memory, weight, cap, Optional.of(new Asked<>(field, value)), memoryOnly, policy);
  }

  public SoftAsk memoryOnly(String field, boolean value) {
    return new SoftAsk(
        source, memory, weight, cap, priority, Optional.of(new Asked<>(field, value)), policy);
  }

  public SoftAsk policy(String field, SharingPolicy value) {
    return new SoftAsk(
        source, memory, weight, cap, priority, memoryOnly, Optional.of(new Asked<>(field, value)));
  }
}
