package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Npu;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A driver without the optional symbols (simulator build dcmi-sim-old) degrades per feature. */
class DcmiOldDriverTest {
  @TempDir
  Path root;

  @Test
  void missingChipInfoV2FallsBackToV1AndMissingProcessInfoIsEmpty() {
    SimNode node = new SimNode("910B3x8", root);
    Path old = node.nativeDir.resolve("dcmi-sim-old/libdcmi.so");
    try (DcmiDeviceManager manager = DcmiDeviceManager.open(
        new DcmiLibrarySource(old, "test", List.of(old)))) {
      assertThat(manager.dcmi().chipInfo(0, 0))
          .isEqualTo(new ChipInfo("Ascend", "910B3", "V1", 20, ""));
      assertThat(manager.dcmi().chipInfo(1, 0).name()).isEqualTo("910B3");
      assertThat(manager.dcmi().processMemory(0, 0)).isEmpty();
      assertThat(manager.discover()).extracting(Npu::chipName).containsOnly("910B3");
    }
  }
}
