package io.vnpu.kube.hami;

import io.vnpu.kube.hami.alloc.HardSplitStrategy;
import io.vnpu.kube.hami.alloc.SoftSplitLayout;
import io.vnpu.kube.hami.codec.DecodeVariant;
import io.vnpu.kube.limiter.LimiterGate;
import io.vnpu.kube.resource.QuotaRegionFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of the HAMi side of a node agent.
 *
 * @param nodeName {@code --node_name} / {@code NODE_NAME}
 * @param reportTimeOffset {@code --report_time_offset} (upstream 1 s)
 * @param registerPeriod delay between registration rounds (upstream 30 s)
 * @param retryDelay delay after a failed round (upstream 5 s)
 * @param checkIdleVnpuInterval {@code --check_idle_vnpu_interval} (upstream 60 s)
 * @param idleVnpuGrace how long a vNPU must stay unused before the cleanup destroys it
 * @param hardSplit who creates hard-split vNPUs
 * @param softLayout host paths of soft slicing
 * @param regions creates per-container quota regions; empty leaves it to the limiter
 * @param decodeVariant devices-to-allocate decoding
 * @param emitDevicePairScore register annotation {@code "devicepairscore":{}} (pinned HAMi: true)
 * @param limiterGate checked before every soft-split Allocate answers; empty means a {@link
 *     io.vnpu.kube.limiter.LimiterVerifier} of {@code libvnpu.so} and {@code ld.so.preload} in
 *     {@code softLayout.limiterDir()}
 */
public record HamiOptions(
    String nodeName,
    Duration reportTimeOffset,
    Duration registerPeriod,
    Duration retryDelay,
    Duration checkIdleVnpuInterval,
    Duration idleVnpuGrace,
    HardSplitStrategy hardSplit,
    SoftSplitLayout softLayout,
    Optional<QuotaRegionFactory> regions,
    DecodeVariant decodeVariant,
    boolean emitDevicePairScore,
    Optional<LimiterGate> limiterGate) {
  public HamiOptions {
    Objects.requireNonNull(nodeName, "nodeName");
    if (nodeName.isBlank())
      throw new IllegalArgumentException("node name must not be blank (--node_name or NODE_NAME)");
    Objects.requireNonNull(reportTimeOffset, "reportTimeOffset");
    Objects.requireNonNull(registerPeriod, "registerPeriod");
    Objects.requireNonNull(retryDelay, "retryDelay");
    Objects.requireNonNull(checkIdleVnpuInterval, "checkIdleVnpuInterval");
    Objects.requireNonNull(idleVnpuGrace, "idleVnpuGrace");
    Objects.requireNonNull(hardSplit, "hardSplit");
    Objects.requireNonNull(softLayout, "softLayout");
    Objects.requireNonNull(regions, "regions");
    Objects.requireNonNull(decodeVariant, "decodeVariant");
    Objects.requireNonNull(limiterGate, "limiterGate");
  }

  /**
   * Upstream defaults: 1 s report offset, 30 s / 5 s rounds, 60 s idle check, 10 min idle grace,
   * the Ascend Docker Runtime creates vNPUs, {@code HOOK_PATH=/var/lib/vnpu/hami} (not upstream's
   * limiter directory, which every container sees), no region factory, v1.4.0 decoding, {@code
   * devicepairscore} emitted, the limiter verified in the soft-split layout's limiter directory.
   */
  public static HamiOptions defaults(String nodeName) {
    return builder(nodeName).build();
  }

  /** A builder starting from the upstream defaults ({@link #defaults(String)}) for a node. */
  public static Builder builder(String nodeName) {
    return new Builder(nodeName);
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public HamiOptions withHardSplit(HardSplitStrategy s) {
    return toBuilder().hardSplit(s).build();
  }

  public HamiOptions withSoftSplit(SoftSplitLayout layout, Optional<QuotaRegionFactory> factory) {
    return toBuilder().softLayout(layout).regions(factory).build();
  }

  public HamiOptions withIdleVnpu(Duration checkInterval, Duration grace) {
    return toBuilder().checkIdleVnpuInterval(checkInterval).idleVnpuGrace(grace).build();
  }

  public HamiOptions withReportTimeOffset(Duration offset) {
    return toBuilder().reportTimeOffset(offset).build();
  }

  /** Replaces the check run before soft-split Allocate answers (see {@link #limiterGate()}). */
  public HamiOptions withLimiterGate(LimiterGate gate) {
    return toBuilder().limiterGate(Optional.of(gate)).build();
  }

  /** Options field by field, from the upstream defaults or from other options. */
  public static final class Builder {
    private String nodeName;
    private Duration reportTimeOffset = Duration.ofSeconds(1);
    private Duration registerPeriod = Duration.ofSeconds(30);
    private Duration retryDelay = Duration.ofSeconds(5);
    private Duration checkIdleVnpuInterval = Duration.ofSeconds(60);
    private Duration idleVnpuGrace = Duration.ofMinutes(10);
    private HardSplitStrategy hardSplit = HardSplitStrategy.RUNTIME_CREATES_VNPU;
    private SoftSplitLayout softLayout =
        SoftSplitLayout.upstream(Path.of(SoftSplitLayout.DEFAULT_HOOK_PATH));
    private Optional<QuotaRegionFactory> regions = Optional.empty();
    private DecodeVariant decodeVariant = DecodeVariant.PRESERVE_EMPTY;
    private boolean emitDevicePairScore = true;
    private Optional<LimiterGate> limiterGate = Optional.empty();

    private Builder(String nodeName) {
      this.nodeName = nodeName;
    }

    private Builder(HamiOptions o) {
      nodeName = o.nodeName;
      reportTimeOffset = o.reportTimeOffset;
      registerPeriod = o.registerPeriod;
      retryDelay = o.retryDelay;
      checkIdleVnpuInterval = o.checkIdleVnpuInterval;
      idleVnpuGrace = o.idleVnpuGrace;
      hardSplit = o.hardSplit;
      softLayout = o.softLayout;
      regions = o.regions;
      decodeVariant = o.decodeVariant;
      emitDevicePairScore = o.emitDevicePairScore;
      limiterGate = o.limiterGate;
    }

    /** {@code --report_time_offset}. */
    public Builder reportTimeOffset(Duration offset) {
      reportTimeOffset = offset;
      return this;
    }

    /** Delay between registration rounds. */
    public Builder registerPeriod(Duration period) {
      registerPeriod = period;
      return this;
    }

    /** Delay after a failed round. */
    public Builder retryDelay(Duration delay) {
      retryDelay = delay;
      return this;
    }

    /** {@code --check_idle_vnpu_interval}. */
    public Builder checkIdleVnpuInterval(Duration interval) {
      checkIdleVnpuInterval = interval;
      return this;
    }

    /** How long a vNPU must stay unused before the cleanup destroys it. */
    public Builder idleVnpuGrace(Duration grace) {
      idleVnpuGrace = grace;
      return this;
    }

    /** Who creates hard-split vNPUs. */
    public Builder hardSplit(HardSplitStrategy strategy) {
      hardSplit = strategy;
      return this;
    }

    /** Host paths of soft slicing. */
    public Builder softLayout(SoftSplitLayout layout) {
      softLayout = layout;
      return this;
    }

    /** Creates per-container quota regions; empty leaves it to the limiter. */
    public Builder regions(Optional<QuotaRegionFactory> factory) {
      regions = factory;
      return this;
    }

    /** Devices-to-allocate decoding. */
    public Builder decodeVariant(DecodeVariant variant) {
      decodeVariant = variant;
      return this;
    }

    /** Register annotation {@code "devicepairscore":{}}. */
    public Builder emitDevicePairScore(boolean emit) {
      emitDevicePairScore = emit;
      return this;
    }

    /** Checked before every soft-split Allocate answers; empty: the limiter files are verified. */
    public Builder limiterGate(Optional<LimiterGate> gate) {
      limiterGate = gate;
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalArgumentException when the node name is blank
     */
    public HamiOptions build() {
      return new HamiOptions(
          nodeName,
          reportTimeOffset,
          registerPeriod,
          retryDelay,
          checkIdleVnpuInterval,
          idleVnpuGrace,
          hardSplit,
          softLayout,
          regions,
          decodeVariant,
          emitDevicePairScore,
          limiterGate);
    }
  }
}
