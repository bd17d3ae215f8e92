package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DcmiHealthTest {
  @TempDir Path root;

  @Test
  void injectedFaultMakesTheNpuUnhealthyAndClearingHealsIt() {
    SimNode node = new SimNode("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      assertThat(manager.health(5)).isEqualTo(DeviceHealth.HEALTHY);

      node.ctl("fault", "5", "0x80E01801");
      DeviceHealth sick = manager.health(5);
      assertThat(sick.healthy()).isFalse();
      assertThat(sick.faultCode()).isEqualTo(0x80E01801L);
      assertThat(sick.reason()).isEqualTo("fault code 0x80E01801, health 2 (major alarm)");
      assertThat(manager.health(4)).isEqualTo(DeviceHealth.HEALTHY);
      assertThat(manager.discover().get(5).health()).isEqualTo(sick);

      node.ctl("clear", "5");
      assertThat(manager.health(5)).isEqualTo(DeviceHealth.HEALTHY);
    }
  }

  @Test
  void healthLevelWithoutFaultCodeIsUnhealthy() {
    SimNode node = new SimNode("310P3x4", root);
    try (DcmiDeviceManager manager = node.open()) {
      node.ctl("health", "2", "1");
      assertThat(manager.health(2))
          .isEqualTo(DeviceHealth.unhealthy("health 1 (minor alarm), no fault code reported"));
    }
  }

  @Test
  void droppedCardReportsMinus8012ForBothDiesAndComesBack() {
    SimNode node = new SimNode("A3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      node.ctl("drop", "6");
      for (int logic : new int[] {6, 7}) {
        DeviceHealth h = manager.health(logic);
        assertThat(h.healthy()).isFalse();
        assertThat(h.faultCode()).isEqualTo(DcmiDeviceManager.CARD_DROP_FAULT);
        assertThat(h.reason()).isEqualTo("card dropped (dcmi_get_device_health returned -8012)");
      }
      assertThat(manager.health(5).healthy()).isTrue();
      assertThatThrownBy(() -> manager.dcmi().health(3, 0))
          .isInstanceOfSatisfying(
              DcmiException.class,
              e -> {
                assertThat(e.code()).isEqualTo(-8012);
                assertThat(e.function()).isEqualTo("dcmi_get_device_health");
                assertThat(e.errorCode()).isEqualTo(DcmiErrorCode.NOT_READY);
                assertThat(e.getMessage())
                    .isEqualTo(
                        "dcmi_get_device_health failed: -8012 NOT_READY "
                            + "(not ready (card dropped)): card 3 device 0");
              });
      assertThat(manager.discover())
          .extracting(Npu::health)
          .filteredOn(h -> !h.healthy())
          .hasSize(2);

      node.ctl("restore", "6");
      assertThat(manager.health(6)).isEqualTo(DeviceHealth.HEALTHY);
    }
  }

  @Test
  void unknownLogicIdIsUnhealthyWithTheCallError() {
    SimNode node = new SimNode("310P3x4", root);
    try (DcmiDeviceManager manager = node.open()) {
      DeviceHealth h = manager.health(9);
      assertThat(h.healthy()).isFalse();
      assertThat(h.reason()).startsWith("dcmi_get_card_id_device_id_from_logicid failed: -8007");
    }
  }

  @Test
  void initFailureIsADcmiException() {
    SimNode node = new SimNode("910B3x8", root);
    node.ctl("init-fail", "-8005");
    assertThatThrownBy(node::open)
        .isInstanceOfSatisfying(
            DcmiException.class,
            e -> {
              assertThat(e.function()).isEqualTo("dcmi_init");
              assertThat(e.code()).isEqualTo(-8005);
              assertThat(e.errorCode()).isEqualTo(DcmiErrorCode.INNER_ERR);
            });
    node.ctl("init-fail", "0");
    try (DcmiDeviceManager manager = node.open()) {
      assertThat(manager.discover()).hasSize(8);
    }
  }
}
