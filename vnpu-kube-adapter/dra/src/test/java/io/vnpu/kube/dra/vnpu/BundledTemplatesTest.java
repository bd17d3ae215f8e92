package io.vnpu.kube.dra.vnpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code --enable-hard-vnpu} without {@code --device-config}: the bundled table. */
class BundledTemplatesTest {

  @Test
  void theBundledTableIsTheChartsAndSplits910bChips() throws Exception {
    String bundled;
    try (InputStream in = BundledTemplates.class.getResourceAsStream(BundledTemplates.RESOURCE)) {
      bundled = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Path chart = io.vnpu.kube.testing.ChartObjects.chart().resolve("files/device-config.yaml");
    assertThat(bundled)
        .as("the chart's %s and the bundled table are one file", chart)
        .isEqualTo(Files.readString(chart));

    HardVnpuChips chips = new HardVnpuChips(true, BundledTemplates.load());
    ChipConfig b3 = chips.templatesFor(MutableDeviceManager.npu910b3(0, 0, 0)).orElseThrow();
    assertThat(b3.templates())
        .extracting(VnpuTemplate::name)
        .containsExactly("vir05_1c_16g", "vir10_3c_32g");
  }

  @Test
  void a3DiesAreSplitOnlyByTheEntryOfTheirAiCoreCount() {
    HardVnpuChips chips = new HardVnpuChips(true, BundledTemplates.load());
    // HAMi's 910C entry: chipName Ascend910, 20 AI Cores (A3 inference dies)
    Npu inference = a3Die(20, 7);
    assertThat(chips.templatesFor(inference).orElseThrow().templates())
        .extracting(VnpuTemplate::name)
        .containsExactly("vir05_1c_16g", "vir10_3c_32g");
    // a training die (24 AI Cores) refuses those templates: whole
    assertThat(chips.templatesFor(a3Die(24, 6))).isEmpty();
    // 910A (910ProB) has HAMi templates but is not cut by memCapacity
    assertThat(
            chips.templatesFor(
                new Npu("U", 0, 0, 0, 0, "910ProB", 32L << 30, 30, 14, DeviceHealth.HEALTHY, 0)))
        .isEmpty();
  }

  private static Npu a3Die(int aiCores, int aiCpus) {
    return new Npu(
        "00004001-00000000-00000000-00000000-00000000",
        0,
        0,
        0,
        0,
        "Ascend910",
        64L << 30,
        aiCores,
        aiCpus,
        DeviceHealth.HEALTHY,
        0);
  }
}
