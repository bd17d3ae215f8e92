package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.health.SwitchFault;
import io.vnpu.api.model.SuperPodInfo;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LingQu switch faults ({@code liblingqu-dcmi.so}) and super-pod info ({@code dcmi_spod_info}) on
 * the simulated A3.
 */
class SwitchAndSuperPodSimTest {
  @TempDir Path root;

  @Test
  void a3ReportsItsSwitchFaultsAsTheDriverListsThem() {
    SimNode node = new SimNode("A3x8", root);
    LingQuSwitch sw = LingQuSwitch.open(node.library()).orElseThrow();
    assertThat(sw.read()).isEmpty();
    node.ctl("switch-fault", "1", "3", "9", "0", "3", "1"); // port fail towards an NPU, critical
    node.ctl(
        "switch-fault",
        "0",
        "7",
        "17",
        "0",
        "2"); // fatal chip fault (no fault ID in MindCluster's table)
    List<SwitchFault> faults = sw.read();
    assertThat(faults).hasSize(2);
    SwitchFault port = faults.get(0);
    assertThat(port.chipId()).isEqualTo(1);
    assertThat(port.portId()).isEqualTo(3);
    assertThat(port.severity()).isEqualTo(3);
    assertThat(port.occurred()).isTrue();
    assertThat(port.assembledCode()).isEqualTo("[0x00f1ff06,155911,npu,na]");
    assertThat(port.key()).isEqualTo("[0x00f1ff06,155911,npu,na]_1_3");
    assertThat(faults.get(1).assembledCode()).isEqualTo("[,,na,na]");
    node.ctl("switch-recover", "1", "3", "9", "0");
    assertThat(sw.read()).extracting(SwitchFault::eventType).containsExactly(17);
    node.ctl("switch-clear");
    assertThat(sw.read()).isEmpty();
  }

  @Test
  void nodesWithoutLingQuSwitchesHaveNoSwitchProbe() {
    SimNode node = new SimNode("910B3x8", root);
    assertThat(LingQuSwitch.open(node.library())).isEmpty();
  }

  @Test
  void superPodInfoFollowsMindClustersMinusOneAndMinusTwo() {
    SimNode a3 = new SimNode("A3x8", root);
    try (DcmiDeviceManager m = a3.open()) {
      assertThat(m.dcmi().superPodInfo(0, 0))
          .extracting(SuperPodInfo::superPodId, SuperPodInfo::serverIndex)
          .containsExactly(1, 0);
      a3.ctl("spod", "7", "3");
      assertThat(m.dcmi().superPodInfo(0, 1))
          .extracting(SuperPodInfo::superPodId, SuperPodInfo::serverIndex)
          .containsExactly(7, 3);
      a3.ctl("spod", "-1", "-1"); // the driver's 0xFFFFFFFF: not in a super-pod
      assertThat(m.dcmi().superPodInfo(0, 0))
          .extracting(SuperPodInfo::superPodId, SuperPodInfo::serverIndex)
          .containsExactly(-1, -1);
    }
  }

  @Test
  void superPodInfoOfA910BIsUnknown() {
    SimNode b = new SimNode("910B3x8", root.resolve("b"));
    try (DcmiDeviceManager m = b.open()) {
      assertThat(m.dcmi().superPodInfo(0, 0)).isEqualTo(SuperPodInfo.UNKNOWN);
    }
  }
}
