package io.vnpu.kube.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultUpgrade;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UpgradeFaultReasonCodecTest {
  @Test
  void escalationsByChipName() {
    FaultUpgrade link = new FaultUpgrade(FaultCode.LINK_DOWN, FaultLevel.PRE_SEPARATE_NPU,
        FaultUpgrade.Type.FaultDuration, Instant.ofEpochMilli(1764554400000L));
    ChipHealth three = new ChipHealth(3, true, FaultLevel.NORMAL_NPU, "", false, FaultLevel.PRE_SEPARATE_NPU,
        "81078603 raised to PreSeparateNPU by FaultDuration", List.of(), List.of(link), false);
    assertThat(UpgradeFaultReasonCodec.encode(Map.of(0, ChipHealth.normal(0), 3, three),
        Map.of(0, "Ascend910-0", 3, "Ascend910-5"))).isEqualTo(
        "{\"Ascend910-5\":[{\"fault_code\":\"81078603\",\"fault_level\":\"PreSeparateNPU\","
            + "\"upgrade_type\":\"FaultDuration\",\"upgrade_time\":1764554400000}]}");
    assertThat(UpgradeFaultReasonCodec.encode(Map.of(0, ChipHealth.normal(0)), Map.of())).isEqualTo("{}");
  }
}
