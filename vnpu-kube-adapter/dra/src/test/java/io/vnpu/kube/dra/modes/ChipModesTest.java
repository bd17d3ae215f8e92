package io.vnpu.kube.dra.modes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
import io.vnpu.kube.testing.MutableDeviceManager;
import org.junit.jupiter.api.Test;

class ChipModesTest {

  /** The 910B4 entry of HAMi's device-config.yaml (same values), one template. */
  static final String CONFIG =
      """
      vnpus:
        configs:
        - chipName: 910B4
          commonWord: Ascend910B4
          resourceName: huawei.com/Ascend910B4
          resourceMemoryName: huawei.com/Ascend910B4-memory
          memoryAllocatable: 32768
          memoryCapacity: 32768
          aiCore: 20
          aiCPU: 7
          templates:
            - name: vir05_1c_8g
              memory: 8192
              aiCore: 5
              aiCPU: 1
      """;

  final Npu b4 = MutableDeviceManager.npu910b4(0, 0);
  final Npu b3 = MutableDeviceManager.npu910b3(1, 1, 0);
  final Npu p3 =
      new Npu(
          "00003001-00000000-00000000-00000000-00000001",
          2,
          2,
          2,
          0,
          "310P3",
          24L << 30,
          8,
          7,
          DeviceHealth.HEALTHY,
          0);

  HardVnpuChips hard(boolean on) throws Exception {
    DeviceConfig c = new DeviceConfigLoader().parse(CONFIG, "device-config.yaml").value();
    return new HardVnpuChips(on, c);
  }

  @Test
  void eachFlagAloneGivesItsModeWhereTheChipAllowsIt() throws Exception {
    ChipModes hardOnly = new ChipModes(hard(true), false, SoftCapacityNames.HAMI);
    assertThat(hardOnly.modeOf(b4)).isEqualTo(ChipMode.HARD_VNPU);
    assertThat(hardOnly.modeOf(b3)).isEqualTo(ChipMode.WHOLE); // no templates in the config
    assertThat(hardOnly.modeOf(p3)).isEqualTo(ChipMode.WHOLE);
    ChipModes softOnly = new ChipModes(hard(false), true, SoftCapacityNames.HAMI);
    assertThat(softOnly.modeOf(b4)).isEqualTo(ChipMode.SOFT);
    assertThat(softOnly.modeOf(p3)).isEqualTo(ChipMode.SOFT);
    assertThat(ChipModes.WHOLE.modeOf(b4)).isEqualTo(ChipMode.WHOLE);
  }

  @Test
  void bothFlagsMakeHardSplittableChipsHardAndEveryOtherChipSoft() throws Exception {
    ChipModes both = new ChipModes(hard(true), true, SoftCapacityNames.OPENFUYAO);
    assertThat(both.modeOf(b4)).isEqualTo(ChipMode.HARD_VNPU);
    assertThat(both.templatesFor(b4)).isPresent();
    assertThat(both.modeOf(b3)).isEqualTo(ChipMode.SOFT);
    assertThat(both.modeOf(p3)).isEqualTo(ChipMode.SOFT);
    assertThat(both.templatesFor(p3)).isEmpty();
    assertThat(both.capacityNames().memory()).isEqualTo("memCapacity");
    assertThat(both.capacityNames().cores()).isEqualTo("coreCapacity");
  }

  @Test
  void capacityNamesFlagIsParsedOrRefusedInOneLine() {
    assertThat(SoftCapacityNames.parse("OpenFuyao")).isEqualTo(SoftCapacityNames.OPENFUYAO);
    assertThat(SoftCapacityNames.parse("hami").memory()).isEqualTo("memory");
    assertThatThrownBy(() -> SoftCapacityNames.parse("nvidia"))
        .hasMessage("--capacity-names = nvidia: unknown (known: hami, openfuyao)");
  }
}
