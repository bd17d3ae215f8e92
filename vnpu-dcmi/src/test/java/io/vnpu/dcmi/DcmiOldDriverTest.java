package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver without the newer symbols (simulator build dcmi-sim-old: no dcmi_get_card_list, chip
 * info v2, error code v2 or per-process memory) degrades feature by feature.
 */
class DcmiOldDriverTest {
  @TempDir Path root;

  @Test
  void missingSymbolsFallBackOrDegradeAndAreRecordedOnce() {
    SimNode node = new SimNode("910B3x8", root);
    Path old = node.nativeDir.resolve("dcmi-sim-old/libdcmi.so");
    try (DcmiDeviceManager manager =
        DcmiDeviceManager.open(new DcmiLibrarySource(old, "test", List.of(old)))) {
      Dcmi dcmi = manager.dcmi();
      // deprecated alias dcmi_get_card_num_list
      assertThat(dcmi.cardList()).containsExactly(0, 1, 2, 3, 8, 9, 10, 11);
      // chip info v1
      assertThat(dcmi.chipInfo(0, 0)).isEqualTo(new ChipInfo("Ascend", "910B3", "V1", 20, ""));
      assertThat(dcmi.processMemory(0, 0)).isEmpty();
      assertThat(manager.discover()).extracting(Npu::chipName).containsOnly("910B3");

      // deprecated dcmi_get_device_errorcode reports the first fault code
      node.ctl("fault", "2", "0x80CB8009", "3");
      assertThat(manager.health(2))
          .isEqualTo(
              DeviceHealth.fault(0x80CB8009L, "fault code 0x80CB8009, health 3 (critical alarm)"));

      assertThat(dcmi.missingFunctions())
          .containsExactlyInAnyOrder(
              "dcmi_get_card_list",
              "dcmi_get_device_chip_info_v2",
              "dcmi_get_device_resource_info",
              "dcmi_get_device_errorcode_v2");
    }
  }

  @Test
  void theCurrentDriverHasEveryFunction() {
    SimNode node = new SimNode("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      manager.discover();
      manager.health(0);
      manager.dcmi().processMemory(0, 0);
      assertThat(manager.dcmi().missingFunctions()).isEmpty();
    }
  }
}
