package io.vnpu.api.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.config.ConfigException;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fault-code table. The test file mirrors the shape of MindCluster's faultCode.json, including
 * its quirks: a lower-case code with 0x, a code listed under two levels, an extra key.
 */
class FaultCodeTableTest {
  static String resource(String name) {
    try (InputStream in = FaultCodeTableTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private final FaultCodeTable table =
      FaultCodeTable.parse("faultCode-levels.json", resource("faultCode-levels.json"), 0);

  @ParameterizedTest
  @CsvSource({
    "8C2FA009, NotHandleFault",
    "80C98008, RestartRequest",
    "80E01801, RestartBusiness",
    "8C0E4E00, FreeRestartNPU",
    "40F84E00, RestartNPU",
    "80E3A201, SeparateNPU",
    "81A3880C, SubHealthFault",
    "0x80818C00, SeparateNPU",
    "80818c00, SeparateNPU",
    "0X80e01801, RestartBusiness",
    "a2301001, SeparateNPU"
  })
  void everyLevelAndEveryCaseOfACode(String code, String level) {
    assertThat(table.levelOf(FaultCode.parse(code), 3).term()).isEqualTo(level);
  }

  @Test
  void unknownCodesAreGradedBySeverity() {
    FaultCode unknown = FaultCode.parse("80FFFFFF");
    assertThat(table.level(unknown)).isEmpty();
    assertThat(table.levelOf(unknown, 0)).isEqualTo(FaultLevel.NOT_HANDLE_FAULT);
    assertThat(table.levelOf(unknown, 1)).isEqualTo(FaultLevel.NOT_HANDLE_FAULT);
    assertThat(table.levelOf(unknown, 2)).isEqualTo(FaultLevel.SEPARATE_NPU);
    assertThat(table.levelOf(unknown, 3)).isEqualTo(FaultLevel.SEPARATE_NPU);
    assertThat(table.levelOf(unknown, -1)).isEqualTo(FaultLevel.SEPARATE_NPU);
    assertThat(table.levelOf(FaultCode.parse("110001024"), 0))
        .isEqualTo(FaultLevel.PRE_SEPARATE_NPU);
  }

  @Test
  void aCodeUnderTwoLevelsTakesTheMoreSevereAndWarnsWithBothLines() {
    assertThat(table.warnings())
        .extracting(Object::toString)
        .containsExactly(
            "faultCode-levels.json:7: SeparateNPUCodes[2] = \"A2301001\": code A2301001 is also listed as RestartBusiness on line 4; SeparateNPU applies",
            "faultCode-levels.json:10: SwitchFaultCodes: unknown key, ignored (level lists end in Codes, e.g. RestartNPUCodes)");
  }

  @Test
  void badEntriesAreAllReportedWithTheirLines() {
    String json =
        "{\n  \"RestartNPUCodes\": [\"40F84E00\", \"xyz\"],\n  \"SeparateNPUCodes\": \"80E3A201\",\n"
            + "  \"NotHandleFaultCodes\": [12]\n}\n";
    assertThatThrownBy(() -> FaultCodeTable.parse("faultCode.json", json, 0))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "faultCode.json:2: RestartNPUCodes[1] = \"xyz\": not a hex fault code (e.g. \"80E01801\")\n"
                + "faultCode.json:3: SeparateNPUCodes = \"80E3A201\": must be an array of hex codes\n"
                + "faultCode.json:4: NotHandleFaultCodes[0] = 12: must be a string of hex digits, e.g. \"80E01801\"");
  }

  @Test
  void syntaxErrorNamesTheLine() {
    assertThatThrownBy(
            () ->
                FaultCodeTable.parse(
                    "cm[faultCode.json]", "{\n \"RestartNPUCodes\": [\"40F84E00\",]\n}", 10))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("cm[faultCode.json]:12: not valid JSON: ");
  }

  @Test
  void codesParseWithOrWithout0xInAnyCase() {
    assertThat(FaultCode.parse(" 0x80e01801 ")).isEqualTo(new FaultCode(0x80E01801L));
    assertThat(FaultCode.parse("80E01801")).isEqualTo(FaultCode.parse("0X80e01801"));
    assertThat(FaultCode.parse("200001002").hex()).isEqualTo("200001002");
    assertThat(new FaultCode(0x1234).hex()).isEqualTo("00001234");
    assertThatThrownBy(() -> FaultCode.parse("0x"))
        .hasMessage("'0x' is not a hex fault code (e.g. 80E01801)");
    assertThatThrownBy(() -> FaultCode.parse("00000000"))
        .hasMessage("'00000000' is not a fault code (zero)");
  }

  @Test
  void theShippedDefaultsLoad() {
    FaultConfig d = FaultConfigs.shippedDefault();
    assertThat(d.table().level(FaultCode.CARD_DROP)).contains(FaultLevel.RESTART_NPU);
    assertThat(d.table().level(FaultCode.parse("80E01801"))).contains(FaultLevel.RESTART_BUSINESS);
    assertThat(d.table().level(FaultCode.LINK_DOWN)).contains(FaultLevel.NOT_HANDLE_FAULT);
    assertThat(d.table().warnings()).isEmpty();
    assertThat(d.customization().frequency()).hasSize(3);
    assertThat(d.customization().duration())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.codes()).containsExactly(FaultCode.LINK_DOWN);
              assertThat(r.faultTimeout().toSeconds()).isEqualTo(20);
              assertThat(r.recoverTimeout().toSeconds()).isEqualTo(60);
              assertThat(r.level()).isEqualTo(FaultLevel.PRE_SEPARATE_NPU);
            });
  }
}
