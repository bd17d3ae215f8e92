package io.vnpu.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.ChipModel;
import io.vnpu.api.model.VnpuTemplate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** VDeviceCount vectors of spec section 8 item 11 (910B4-like chip, 32768 MiB, smallest 8192). */
class VDeviceCountTest {

  private static final ChipModel B4 = new ChipModel("910B4", "Ascend910B4", 32768, 20, 7);
  private static final List<VnpuTemplate> B4_TEMPLATES =
      List.of(
          new VnpuTemplate("vir10_3c_16g", 16384, 10, 3),
          new VnpuTemplate("vir05_1c_8g", 8192, 5, 1));

  @ParameterizedTest(name = "templates={0} node={1} -> {2}")
  @CsvSource(
      textBlock =
          """
      true,  ,  4
      true,  0, 4
      true,  8, 8
      true,  2, 2
      false, ,  1
      false, 5, 5
      """)
  void vDeviceCount(boolean withTemplates, Integer nodeVDeviceCount, int expected) {
    ChipConfig chip = chip(withTemplates ? B4_TEMPLATES : List.of());
    Optional<NodeSettings> node =
        Optional.ofNullable(nodeVDeviceCount)
            .map(n -> new NodeSettings("node-a", Optional.empty(), n, DeviceFilter.NONE));

    assertThat(chip.vDeviceCount(node)).isEqualTo(expected);
    assertThat(chip.vDeviceCount(nodeVDeviceCount == null ? 0 : nodeVDeviceCount))
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "node vDeviceCount {0} -> {1}")
  @CsvSource(
      textBlock =
          """
      0, 4
      8, 8
      2, 2
      """)
  void vDeviceCountFromLoadedNodeConfig(int nodeVDeviceCount, int expected) {
    NodeConfig nodes =
        new NodeConfigLoader(w -> {})
            .parse(
                """
        nodes:
          - name: node-a
            vDeviceCount: %d
        """
                    .formatted(nodeVDeviceCount),
                "node-config.yaml")
            .value();

    assertThat(chip(B4_TEMPLATES).vDeviceCount(nodes.forNode("node-a"))).isEqualTo(expected);
  }

  @ParameterizedTest(name = "allocatable {0}, smallest {1} -> {2}")
  @CsvSource(
      textBlock =
          """
      21527, 3072,  7
      65536, 16384, 4
      32768, 2184,  15
      16383, 16384, 1
      """)
  void flooredQuotientNeverBelowOne(long allocatable, long smallest, int expected) {
    ChipConfig chip =
        new ChipConfig(
            new ChipModel("x", "X", 65536, 30, 0),
            "huawei.com/X",
            Optional.of("huawei.com/X-memory"),
            Optional.empty(),
            allocatable,
            List.of(new VnpuTemplate("t", smallest, 1, 0)),
            1);

    assertThat(chip.vDeviceCount()).isEqualTo(expected);
  }

  private static ChipConfig chip(List<VnpuTemplate> templates) {
    return new ChipConfig(
        B4,
        "huawei.com/Ascend910B4",
        Optional.of("huawei.com/Ascend910B4-memory"),
        Optional.empty(),
        32768,
        templates,
        1);
  }
}
