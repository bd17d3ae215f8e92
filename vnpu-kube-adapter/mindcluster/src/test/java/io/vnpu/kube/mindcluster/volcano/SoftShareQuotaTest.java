package io.vnpu.kube.mindcluster.volcano;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.vnpu.kube.resource.AllocationException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The softShareDev quotas read as Volcano reads them: a value it could not have charged is refused.
 */
class SoftShareQuotaTest {
  static Pod pod(String core, String hbm) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .withNamespace("ns")
        .withAnnotations(Map.of(SoftShareQuota.AICORE_QUOTA, core, SoftShareQuota.HBM_QUOTA, hbm))
        .endMetadata()
        .build();
  }

  @Test
  void asciiWholeNumbersAreRead() throws Exception {
    SoftShareQuota q = SoftShareQuota.of(pod("30", " 4096 "), 65536);
    assertThat(q.aicorePercent()).isEqualTo(30);
    assertThat(q.hbmMib()).isEqualTo(4096);
  }

  @Test
  void otherScriptsDigitsAreNotANumber() {
    // Arabic-Indic 100 and full-width 100: Long.parseLong reads both as 100, Go's strconv.Atoi
    // neither
    for (String v :
        new String[] {"\u0661\u0660\u0660", "\uff11\uff10\uff10", "1e2", "NaN", "", "0x64"}) {
      assertThatThrownBy(() -> SoftShareQuota.of(pod(v, "4096"), 65536))
          .as(v)
          .isInstanceOf(AllocationException.class)
          .hasMessageContaining(SoftShareQuota.AICORE_QUOTA)
          .hasMessageContaining("not a whole number");
    }
    assertThatThrownBy(() -> SoftShareQuota.of(pod("10", "\u0664\u0660\u0669\u0666"), 65536))
        .isInstanceOf(AllocationException.class)
        .hasMessageContaining("not a whole number");
  }
}
