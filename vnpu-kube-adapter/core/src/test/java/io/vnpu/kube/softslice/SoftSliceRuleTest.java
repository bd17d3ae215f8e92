package io.vnpu.kube.softslice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.api.slice.SliceShare.SoftQuota;
import org.junit.jupiter.api.Test;

/** The one rule: a slice's own settings may lower what the scheduler charged, never raise it. */
class SoftSliceRuleTest {
  private static final long GIB = 1L << 30;

  private static SoftCharge charge(long bytes, int cores) throws SoftSliceRefusedException {
    return SoftCharge.of("consumedCapacity", bytes, cores, Priority.NORMAL, 64 * GIB);
  }

  @Test
  void nothingAskedIsExactlyTheCharge() throws Exception {
    assertThat(SoftSliceRule.grant(charge(8 * GIB, 25), SoftAsk.none("cfg")))
        .isEqualTo(new SoftQuota(8 * GIB, 25, 25, Priority.NORMAL));
    // 0 % charged: the scheduler accounts no AI Core, memory only (HAMi's upstream meaning)
    assertThat(SoftSliceRule.grant(charge(GIB, 0), SoftAsk.none("cfg")))
        .isEqualTo(new SoftQuota(GIB, 0, 0, Priority.NORMAL));
  }

  @Test
  void loweringIsGranted() throws Exception {
    SoftAsk ask =
        SoftAsk.none("cfg")
            .memory("memory", GIB)
            .weight("computeWeight", 5)
            .cap("computeCap", 20)
            .priority("priority", Priority.NORMAL);
    assertThat(SoftSliceRule.grant(charge(8 * GIB, 25), ask))
        .isEqualTo(new SoftQuota(GIB, 5, 20, Priority.NORMAL));
    // a whole chip's AI Core may go without ceiling, or be memory only
    assertThat(SoftSliceRule.grant(charge(8 * GIB, 100), SoftAsk.none("cfg").cap("computeCap", 0)))
        .isEqualTo(new SoftQuota(8 * GIB, 100, 0, Priority.NORMAL));
    assertThat(
            SoftSliceRule.grant(
                charge(8 * GIB, 100), SoftAsk.none("cfg").memoryOnly("memoryOnly", true)))
        .isEqualTo(new SoftQuota(8 * GIB, 0, 0, Priority.NORMAL));
    // an administrator's high priority is kept, and may be lowered
    SoftCharge admin = SoftCharge.of("class", GIB, 10, Priority.HIGH, 0);
    assertThat(SoftSliceRule.grant(admin, SoftAsk.none("cfg")).priority()).isEqualTo(Priority.HIGH);
    assertThat(
            SoftSliceRule.grant(admin, SoftAsk.none("cfg").priority("priority", Priority.NORMAL))
                .priority())
        .isEqualTo(Priority.NORMAL);
  }

  @Test
  void raisingAnythingIsRefusedNamingTheFieldAndTheCharge() throws Exception {
    SoftCharge one = charge(GIB, 1);
    String tail = "; a slice's own settings may lower what was charged, never raise it";
    assertThatThrownBy(
            () ->
                SoftSliceRule.grant(
                    one,
                    SoftAsk.none("NpuConfig").weight("computeWeight", 10000).cap("computeCap", 0)))
        .hasMessage(
            "NpuConfig computeWeight = 10000: more than the 1 % AI Core the"
                + " scheduler charged (consumedCapacity)"
                + tail);
    assertThatThrownBy(
            () -> SoftSliceRule.grant(one, SoftAsk.none("NpuConfig").cap("computeCap", 0)))
        .hasMessage(
            "NpuConfig computeCap = 0: no ceiling on a slice charged 1 % AI Core (the scheduler charged"
                + " (consumedCapacity))"
                + tail);
    assertThatThrownBy(
            () -> SoftSliceRule.grant(one, SoftAsk.none("NpuConfig").cap("computeCap", 2)))
        .hasMessageStartingWith("NpuConfig computeCap = 2: more than the 1 % AI Core");
    assertThatThrownBy(
            () ->
                SoftSliceRule.grant(
                    one, SoftAsk.none("NpuConfig").priority("priority", Priority.HIGH)))
        .hasMessageStartingWith("NpuConfig priority = high: above the normal priority");
    assertThatThrownBy(
            () ->
                SoftSliceRule.grant(one, SoftAsk.none("NpuConfig").memoryOnly("memoryOnly", true)))
        .hasMessageStartingWith(
            "NpuConfig memoryOnly = true: no compute limit on a slice charged 1 % AI Core");
    assertThatThrownBy(
            () -> SoftSliceRule.grant(one, SoftAsk.none("annotation a").memory("memory", 2 * GIB)))
        .hasMessageStartingWith(
            "annotation a memory = 2048 MiB: more than the 1024 MiB the scheduler charged");
    assertThatThrownBy(
            () ->
                SoftSliceRule.grant(
                    charge(GIB, 0), SoftAsk.none("annotation a").weight("core", 40)))
        .hasMessageStartingWith("annotation a core = 40: more than the 0 % AI Core");
  }

  @Test
  void aKubernetesSoftSliceRefusesZeroMibAndMoreThanTheChip() {
    assertThatThrownBy(() -> SoftCharge.of("devices-to-allocate", 0, 10, Priority.NORMAL, 0))
        .hasMessage(
            "devices-to-allocate memory = 0 MiB: a Kubernetes soft slice must be > 0 MiB (0 would be an"
                + " unlimited region); refused");
    assertThatThrownBy(() -> SoftCharge.of("d", 65 * GIB, 10, Priority.NORMAL, 64 * GIB))
        .hasMessage("d memory = 66560 MiB: more than the chip's 65536 MiB HBM; refused");
    assertThatThrownBy(
            () -> SoftSliceRule.grant(charge(GIB, 10), SoftAsk.none("a").memory("memory", 0)))
        .hasMessageStartingWith("a memory = 0 MiB: a Kubernetes soft slice must be > 0 MiB");
  }

  @Test
  void aPolicyMayBeKeptOrLoweredNeverRaised() throws Exception {
    String tail = "; a slice's own settings may lower what was charged, never raise it";
    // none charged = fixed-share: the percent is the ceiling; best-effort keeps that ceiling
    SoftCharge fixed = charge(8 * GIB, 25);
    assertThat(
            SoftSliceRule.grant(
                fixed, SoftAsk.none("a").policy("policy", SharingPolicy.FIXED_SHARE)))
        .isEqualTo(
            new SoftQuota(8 * GIB, 25, 25, Priority.NORMAL).withPolicy(SharingPolicy.FIXED_SHARE));
    assertThat(
            SoftSliceRule.grant(
                fixed, SoftAsk.none("a").policy("policy", SharingPolicy.BEST_EFFORT)))
        .isEqualTo(
            new SoftQuota(8 * GIB, 25, 25, Priority.NORMAL).withPolicy(SharingPolicy.BEST_EFFORT));
    assertThatThrownBy(
            () ->
                SoftSliceRule.grant(
                    fixed,
                    SoftAsk.none("annotation vnpu.io/sharing-policy")
                        .policy("value", SharingPolicy.ELASTIC)))
        .hasMessage(
            "annotation vnpu.io/sharing-policy value = elastic: borrowing idle AI-core time beyond the 25 %"
                + " the scheduler charged (consumedCapacity) as fixed-share"
                + tail);
    // charged elastic: no ceiling (or a lower one asked); may become fixed-share (ceiling = the
    // share) or
    // best-effort (no guarantee, no ceiling)
    SoftCharge elastic = charge(8 * GIB, 25).withPolicy(SharingPolicy.ELASTIC);
    assertThat(SoftSliceRule.grant(elastic, SoftAsk.none("a")))
        .isEqualTo(
            new SoftQuota(8 * GIB, 25, 0, Priority.NORMAL).withPolicy(SharingPolicy.ELASTIC));
    assertThat(
            SoftSliceRule.grant(elastic, SoftAsk.none("a").cap("computeCap", 60)).computeCapPct())
        .isEqualTo(60);
    assertThat(
            SoftSliceRule.grant(
                elastic, SoftAsk.none("a").policy("policy", SharingPolicy.FIXED_SHARE)))
        .isEqualTo(
            new SoftQuota(8 * GIB, 25, 25, Priority.NORMAL).withPolicy(SharingPolicy.FIXED_SHARE));
    assertThat(
            SoftSliceRule.grant(
                elastic, SoftAsk.none("a").policy("policy", SharingPolicy.BEST_EFFORT)))
        .isEqualTo(
            new SoftQuota(8 * GIB, 25, 0, Priority.NORMAL).withPolicy(SharingPolicy.BEST_EFFORT));
    // charged best-effort: stays best-effort, no ceiling; asking a guarantee is refused
    SoftCharge best = charge(8 * GIB, 25).withPolicy(SharingPolicy.BEST_EFFORT);
    assertThat(SoftSliceRule.grant(best, SoftAsk.none("a")).policy())
        .contains(SharingPolicy.BEST_EFFORT);
    assertThatThrownBy(
            () ->
                SoftSliceRule.grant(
                    best, SoftAsk.none("NpuConfig").policy("policy", SharingPolicy.FIXED_SHARE)))
        .hasMessageStartingWith("NpuConfig policy = fixed-share: borrowing idle");
    // the weight stays within the charge whatever the policy
    assertThatThrownBy(
            () ->
                SoftSliceRule.grant(elastic, SoftAsk.none("NpuConfig").weight("computeWeight", 26)))
        .hasMessageStartingWith("NpuConfig computeWeight = 26: more than the 25 % AI Core");
    // a memory-only charge has no share to share
    assertThatThrownBy(
            () ->
                SoftSliceRule.grant(
                    charge(GIB, 0),
                    SoftAsk.none("NpuConfig").policy("policy", SharingPolicy.ELASTIC)))
        .hasMessageStartingWith(
            "NpuConfig policy = elastic: a sharing policy needs an AI-core share");
    assertThat(
            SoftSliceRule.grant(
                charge(GIB, 0).withPolicy(SharingPolicy.ELASTIC), SoftAsk.none("a")))
        .isEqualTo(new SoftQuota(GIB, 0, 0, Priority.NORMAL));
  }
}
