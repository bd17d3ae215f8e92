package io.vnpu.kube.dra.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.vnpu.api.health.ActiveFault;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultOrigin;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class NpuDeviceTaintsTest {
  final NpuDeviceTaints taints = new NpuDeviceTaints("npu.huawei.com");

  static ActiveFault fault(long code, FaultLevel level) {
    return new ActiveFault(new FaultCode(code), level, Instant.EPOCH, FaultOrigin.POLL);
  }

  static String render(DeviceTaint t) {
    return t.getKey() + "=" + t.getValue() + ":" + t.getEffect();
  }

  @Test
  void aHealthyChipHasNoTaint() {
    assertThat(taints.of(ChipHealth.normal(0))).isEmpty();
  }

  @Test
  void theMostSevereFaultCodeIsTheValue() {
    ChipHealth h =
        new ChipHealth(
            3,
            false,
            FaultLevel.SEPARATE_NPU,
            "x",
            true,
            FaultLevel.NORMAL_NPU,
            "",
            List.of(
                fault(0x80CB8009L, FaultLevel.SUB_HEALTH_FAULT),
                fault(0x8C084E00L, FaultLevel.SEPARATE_NPU)),
            List.of(),
            false);
    assertThat(taints.of(h))
        .extracting(NpuDeviceTaintsTest::render)
        .containsExactly("npu.huawei.com/unhealthy=8C084E00:NoSchedule");
  }

  @Test
  void separationWithoutAFaultAndResetUseTheLevelTerm() {
    ChipHealth manual =
        new ChipHealth(
            1,
            false,
            FaultLevel.MANUALLY_SEPARATE_NPU,
            "manual",
            true,
            FaultLevel.NORMAL_NPU,
            "",
            List.of(),
            List.of(),
            false);
    ChipHealth resetting =
        new ChipHealth(
            1,
            true,
            FaultLevel.NORMAL_NPU,
            "",
            true,
            FaultLevel.NORMAL_NPU,
            "",
            List.of(),
            List.of(),
            true);
    assertThat(taints.of(manual))
        .extracting(NpuDeviceTaintsTest::render)
        .containsExactly("npu.huawei.com/unhealthy=ManuallySeparateNPU:NoSchedule");
    assertThat(taints.of(resetting))
        .extracting(NpuDeviceTaintsTest::render)
        .containsExactly("npu.huawei.com/unhealthy=Recovering:NoSchedule");
  }

  @Test
  void aNetworkFaultHasItsOwnKey() {
    ChipHealth h =
        new ChipHealth(
            0,
            true,
            FaultLevel.NORMAL_NPU,
            "",
            false,
            FaultLevel.SEPARATE_NPU,
            "link down",
            List.of(fault(0x81078603L, FaultLevel.SEPARATE_NPU)),
            List.of(),
            false);
    assertThat(taints.of(h))
        .extracting(NpuDeviceTaintsTest::render)
        .containsExactly("npu.huawei.com/network-unhealthy=81078603:NoSchedule");
  }
}
