package io.vnpu.kube.cli.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --device} values resolved against a fake device list (as {@code DeviceManager.discover()}
 * returns).
 */
class DeviceRefTest {

  private static final String UUID_A = "0A1B2C3D-00000001-00000002-00000003-00000004";
  private static final String UUID_B = "0A1B2C3D-00000005-00000006-00000007-00000008";

  // logic IDs 0 and 1 on phy IDs 3 and 6: phy 4 and 5 dropped out, so logic and phy IDs differ
  private static final List<Npu> NPUS =
      List.of(
          new Npu(UUID_A, 0, 3, 1, 0, "910B3", 64L << 30, 20, 7, DeviceHealth.HEALTHY, 0),
          new Npu(UUID_B, 1, 6, 2, 0, "910B3", 64L << 30, 20, 7, DeviceHealth.HEALTHY, 1));

  @Test
  void aLogicIdAPhyIdAndAUuidEachFindTheirNpu() {
    assertThat(DeviceRef.parse("1")).isEqualTo(new DeviceRef.Logic(1));
    assertThat(DeviceRef.parse("1").resolve(NPUS).phyId()).isEqualTo(6);
    assertThat(DeviceRef.parse("phy:3")).isEqualTo(new DeviceRef.Phy(3));
    assertThat(DeviceRef.parse("phy:3").resolve(NPUS).logicId()).isZero();
    assertThat(DeviceRef.parse("PHY:6").resolve(NPUS).logicId()).isEqualTo(1);
    assertThat(DeviceRef.parse(UUID_B).resolve(NPUS).logicId()).isEqualTo(1);
    assertThat(DeviceRef.parse(UUID_A.toLowerCase()).resolve(NPUS).phyId()).isEqualTo(3);
  }

  @Test
  void anUnknownIdSaysWhatTheNodeHas() {
    assertThatThrownBy(() -> DeviceRef.parse("2").resolve(NPUS))
        .hasMessage("no NPU with logic ID 2 (this node has logic IDs [0, 1])");
    assertThatThrownBy(() -> DeviceRef.parse("phy:4").resolve(NPUS))
        .hasMessage("no NPU with phy ID 4 (this node has phy IDs [3, 6])");
    assertThatThrownBy(() -> DeviceRef.parse("FFFFFFFF-00000000").resolve(NPUS))
        .hasMessage("no NPU with UUID FFFFFFFF-00000000 (see 'vnpu devices' for the UUIDs)");
  }

  @Test
  void aMalformedValueNamesTheAcceptedForms() {
    for (String bad : List.of("-1", "phy:", "phy:-2", "npu0", "", "0A1B2C3D")) {
      assertThatThrownBy(() -> DeviceRef.parse(bad))
          .as(bad)
          .hasMessage(
              "'"
                  + bad
                  + "': expected a logic ID (0 or more), phy:N or a die UUID as 'vnpu devices' prints it");
    }
  }
}
