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
    return new HamiOptions(
        nodeName,
        Duration.ofSeconds(1),
        Duration.ofSeconds(30),
        Duration.ofSeconds(5),
        Duration.ofSeconds(60),
        Duration.ofMinutes(10),
        HardSplitStrategy.RUNTIME_CREATES_VNPU,
        SoftSplitLayout.upstream(Path.of(SoftSplitLayout.DEFAULT_HOOK_PATH)),
        Optional.empty(),
        DecodeVariant.PRESERVE_EMPTY,
        true,
        Optional.empty());
  }

  public HamiOptions withHardSplit(HardSplitStrategy s) {
    return new HamiOptions(
        nodeName,
        reportTimeOffset,
        registerPeriod,
        retryDelay,
        checkIdleVnpuInterval,
        idleVnpuGrace,
        s,
        softLayout,
        regions,
        decodeVariant,
        emitDevicePairScore,
        limiterGate);
  }

  public HamiOptions withSoftSplit(SoftSplitLayout layout, Optional<QuotaRegionFactory> factory) {
    return new HamiOptions(
        nodeName,
        reportTimeOffset,
        registerPeriod,
        retryDelay,
        checkIdleVnpuInterval,
        idleVnpuGrace,
        hardSplit,
        layout,
        factory,
        decodeVariant,
        emitDevicePairScore,
        limiterGate);
  }

  public HamiOptions withIdleVnpu(Duration checkInterval, Duration grace) {
    return new HamiOptions(
        nodeName,
        reportTimeOffset,
        registerPeriod,
        retryDelay,
        checkInterval,
        grace,
        hardSplit,
        softLayout,
        regions,
        decodeVariant,
        emitDevicePairScore,
        limiterGate);
  }

  public HamiOptions withReportTimeOffset(Duration offset) {
    return new HamiOptions(
        nodeName,
        offset,
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

  /** Replaces the check run before soft-split Allocate answers (see {@link #limiterGate()}). */
  public HamiOptions withLimiterGate(LimiterGate gate) {
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
        Optional.of(gate));
  }
}
