package io.vnpu.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.testing.HamiFixtures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Template selection vectors of spec sections 6.1 and 8 on the shipped v1.4.0 ConfigMap. */
class TrimTest {

  private static DeviceConfig config;

  @BeforeAll
  static void load() {
    config =
        new DeviceConfigLoader().load(HamiFixtures.file("ascend-device-configmap.yaml")).value();
  }

  @ParameterizedTest(name = "{0} {1} MiB -> {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      910B3 | 1     | template | vir05_1c_16g | 16384
      910B3 | 16384 | template | vir05_1c_16g | 16384
      910B3 | 16385 | template | vir10_3c_32g | 32768
      910B3 | 32769 | whole    | ''           | 65536
      910B3 | 65536 | whole    | ''           | 65536
      910B3 | 65537 | rejected | ''           | 0
      310P3 | 2000  | template | vir01        | 3072
      310P3 | 12288 | template | vir04        | 12288
      310P3 | 12289 | whole    | ''           | 21527
      310P3 | 24576 | whole    | ''           | 21527
      310P3 | 24577 | rejected | ''           | 0
      910A  | 8738  | template | vir08        | 8738
      910A  | 8739  | template | vir16        | 17476
      910A  | 20000 | whole    | ''           | 32768
      910A  | 40000 | rejected | ''           | 0
      """)
  void trims(String chipName, long requestMib, String kind, String template, long chargedMib) {
    TemplateChoice choice = config.forChipName(chipName).orElseThrow().trim(requestMib);

    Class<?> expected =
        switch (kind) {
          case "template" -> TemplateChoice.Template.class;
          case "whole" -> TemplateChoice.WholeCard.class;
          default -> TemplateChoice.Rejected.class;
        };
    assertThat(choice).isInstanceOf(expected);
    assertThat(choice.templateName()).isEqualTo(template);
    assertThat(choice.memoryMib()).isEqualTo(chargedMib);
  }

  @Test
  void rejectionCarriesRequestAndCapacity() {
    assertThat(config.forChipName("910B3").orElseThrow().trim(65537))
        .isEqualTo(new TemplateChoice.Rejected(65537, 65536));
  }

  @Test
  void chipWithoutTemplatesGetsWholeCardOrRejection() {
    DeviceConfig v130 =
        new DeviceConfigLoader()
            .load(HamiFixtures.file("ascend-device-configmap-v1.3.0.yaml"))
            .value();
    ChipConfig c = v130.forCommonWord("Ascend910C").orElseThrow();

    assertThat(c.trim(1)).isEqualTo(new TemplateChoice.WholeCard(65536));
    assertThat(c.trim(65537)).isEqualTo(new TemplateChoice.Rejected(65537, 65536));
  }

  @Test
  void requestBelowOneMibIsAProgrammingError() {
    ChipConfig b3 = config.forChipName("910B3").orElseThrow();

    assertThatThrownBy(() -> b3.trim(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("requestMib must be >= 1: 0");
  }
}
