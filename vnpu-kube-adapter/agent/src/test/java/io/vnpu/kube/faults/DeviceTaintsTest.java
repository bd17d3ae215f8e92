package io.vnpu.kube.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.FaultLevel;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceTaintsTest {
  @Test
  void unhealthyChipAndNetworkAreTaintedNoScheduleAndAHealthyChipIsNot() {
    assertThat(DeviceTaints.of(ChipHealth.normal(0))).isEmpty();
    ChipHealth sick =
        new ChipHealth(
            1,
            false,
            FaultLevel.SEPARATE_NPU,
            "80E3A201 SeparateNPU (poll)",
            false,
            FaultLevel.PRE_SEPARATE_NPU,
            "81078603 raised to PreSeparateNPU by FaultDuration",
            List.of(),
            List.of(),
            false);
    assertThat(DeviceTaints.of(sick))
        .containsExactly(
            new DeviceTaints.Taint("npu.huawei.com/unhealthy", "SeparateNPU", "NoSchedule"),
            new DeviceTaints.Taint(
                "npu.huawei.com/network-unhealthy", "PreSeparateNPU", "NoSchedule"));
    ChipHealth resetting =
        new ChipHealth(
            2,
            false,
            FaultLevel.RESTART_NPU,
            "",
            true,
            FaultLevel.NORMAL_NPU,
            "",
            List.of(),
            List.of(),
            true);
    assertThat(DeviceTaints.of(resetting))
        .containsExactly(
            new DeviceTaints.Taint("npu.huawei.com/unhealthy", "Recovering", "NoSchedule"));
  }
}
