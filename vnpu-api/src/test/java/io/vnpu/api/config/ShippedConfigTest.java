package io.vnpu.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.api.testing.HamiFixtures;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The HAMi ConfigMaps shipped with the plugin load unchanged, with the values of spec 5.3. */
class ShippedConfigTest {

  private final DeviceConfigLoader loader = new DeviceConfigLoader();

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      ascend-device-configmap.yaml       | 910A      | Ascend910A    | 32768 | 32768 | 30 | 0 | vir02:2184:2:0 vir04:4369:4:0 vir08:8738:8:0 vir16:17476:16:0 | 15
      ascend-device-configmap.yaml       | 910B2     | Ascend910B2   | 65536 | 65536 | 24 | 6 | vir03_1c_8g:8192:3:1 vir06_1c_16g:16384:6:1 vir12_3c_32g:32768:12:3 | 8
      ascend-device-configmap.yaml       | 910B3     | Ascend910B3   | 65536 | 65536 | 20 | 7 | vir05_1c_16g:16384:5:1 vir10_3c_32g:32768:10:3 | 4
      ascend-device-configmap.yaml       | 910B4-1   | Ascend910B4-1 | 65536 | 65536 | 20 | 7 | vir05_1c_16g:16384:5:1 vir10_3c_32g:32768:10:3 | 4
      ascend-device-configmap.yaml       | 910B4     | Ascend910B4   | 32768 | 32768 | 20 | 7 | vir05_1c_8g:8192:5:1 vir10_3c_16g:16384:10:3 | 4
      ascend-device-configmap.yaml       | 310P3     | Ascend310P    | 21527 | 24576 | 8  | 7 | vir01:3072:1:1 vir02:6144:2:2 vir04:12288:4:4 | 7
      ascend-device-configmap.yaml       | Ascend910 | Ascend910C    | 65536 | 65536 | 20 | 7 | vir05_1c_16g:16384:5:1 vir10_3c_32g:32768:10:3 | 4
      ascend-device-configmap-v1.3.0.yaml| 910A      | Ascend910A    | 32768 | 32768 | 30 | 0 | vir02:2184:2:0 vir04:4369:4:0 vir08:8738:8:0 vir16:17476:16:0 | 15
      ascend-device-configmap-v1.3.0.yaml| 910B3     | Ascend910B3   | 65536 | 65536 | 20 | 7 | vir05_1c_16g:16384:5:1 vir10_3c_32g:32768:10:3 | 4
      ascend-device-configmap-v1.3.0.yaml| 310P3     | Ascend310P    | 21527 | 24576 | 8  | 7 | vir01:3072:1:1 vir02:6144:2:2 vir04:12288:4:4 | 7
      ascend-device-configmap-v1.3.0.yaml| Ascend910 | Ascend910C    | 65536 | 65536 | 20 | 7 | '' | 1
      """)
  void chipTableMatchesSpec(
      String file,
      String chipName,
      String commonWord,
      long allocatable,
      long capacity,
      int aiCore,
      int aiCpu,
      String templates,
      int vDeviceCount) {
    DeviceConfig config = loader.load(HamiFixtures.file(file)).value();

    ChipConfig chip = config.forChipName(chipName).orElseThrow();
    assertThat(chip.commonWord()).isEqualTo(commonWord);
    assertThat(chip.resourceName()).isEqualTo("huawei.com/" + commonWord);
    assertThat(chip.resourceMemoryName()).hasValue("huawei.com/" + commonWord + "-memory");
    assertThat(chip.memoryAllocatableMib()).isEqualTo(allocatable);
    assertThat(chip.memoryCapacityMib()).isEqualTo(capacity);
    assertThat(chip.chip().aiCores()).isEqualTo(aiCore);
    assertThat(chip.chip().aiCpus()).isEqualTo(aiCpu);
    assertThat(render(chip.templates())).isEqualTo(templates == null ? "" : templates);
    assertThat(chip.vDeviceCount()).isEqualTo(vDeviceCount);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ascend-device-configmap.yaml", "ascend-device-configmap-v1.3.0.yaml"})
  void shippedConfigMapsLoadWithoutWarnings(String file) {
    Loaded<DeviceConfig> loaded = loader.load(HamiFixtures.file(file));

    assertThat(loaded.warnings()).isEmpty();
    assertThat(loaded.value().hamiVnpuCore()).isFalse();
    assertThat(loaded.value().chips())
        .extracting(ChipConfig::commonWord)
        .containsExactly(
            "Ascend910A",
            "Ascend910B2",
            "Ascend910B3",
            "Ascend910B4-1",
            "Ascend910B4",
            "Ascend310P",
            "Ascend910C");
  }

  @Test
  void resourceCoreNameOnlyWhereConfigured() {
    DeviceConfig config = loader.load(HamiFixtures.file("ascend-device-configmap.yaml")).value();

    assertThat(config.forCommonWord("Ascend910B3").orElseThrow().resourceCoreName())
        .contains("huawei.com/Ascend910B3-core");
    assertThat(config.forCommonWord("Ascend910C").orElseThrow().resourceCoreName())
        .contains("huawei.com/Ascend910C-core");
    assertThat(config.forCommonWord("Ascend310P").orElseThrow().resourceCoreName()).isEmpty();
  }

  @Test
  void shippedNodeConfigMapLoads() {
    Loaded<NodeConfig> loaded =
        new NodeConfigLoader().load(HamiFixtures.file("ascend-device-node-configmap.yaml"));

    assertThat(loaded.warnings()).isEmpty();
    assertThat(loaded.value().nodes())
        .containsExactly(
            new NodeSettings("worker-1", java.util.Optional.of(true), 8, DeviceFilter.NONE));
    assertThat(loaded.value().forNode("worker-2")).isEmpty();
  }

  @Test
  void nodeOverrideFromShippedNodeConfig() {
    DeviceConfig config = loader.load(HamiFixtures.file("ascend-device-configmap.yaml")).value();
    NodeConfig nodes =
        new NodeConfigLoader().load(HamiFixtures.file("ascend-device-node-configmap.yaml")).value();
    ChipConfig b3 = config.forChipName("910B3").orElseThrow();

    assertThat(b3.vDeviceCount(nodes.forNode("worker-1"))).isEqualTo(8);
    assertThat(b3.vDeviceCount(nodes.forNode("worker-2"))).isEqualTo(4);
  }

  private static String render(List<VnpuTemplate> templates) {
    return templates.stream()
        .map(t -> t.name() + ":" + t.memoryMib() + ":" + t.aiCores() + ":" + t.aiCpus())
        .collect(Collectors.joining(" "));
  }
}
