package io.vnpu.kube.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules every JSON of the adapter shares, where Jackson 3's defaults differ from Jackson 2's.
 */
class JsonMappersTest {
  /** An enum with a display {@code toString()}, as {@code FaultLevel} has. */
  enum Level {
    RESTART_NPU;

    @Override
    public String toString() {
      return "RestartNPU";
    }
  }

  record Holder(int b, Level level, String a) {}

  @Test
  void enumsByNameAndFieldsInDeclarationOrder() {
    String json = JsonMappers.compact().writeValueAsString(new Holder(1, Level.RESTART_NPU, "x"));
    assertThat(json).isEqualTo("{\"b\":1,\"level\":\"RESTART_NPU\",\"a\":\"x\"}");
    assertThat(JsonMappers.compact().readValue(json, Holder.class))
        .isEqualTo(new Holder(1, Level.RESTART_NPU, "x"));
    assertThat(JsonMappers.indented().writeValueAsString(List.of(Level.RESTART_NPU)))
        .contains("\"RESTART_NPU\"");
  }

  @Test
  void slashesAndNonAsciiAreWrittenAsIs() {
    assertThat(JsonMappers.compact().writeValueAsString(List.of("huawei.com/Ascend910B3", "命名")))
        .isEqualTo("[\"huawei.com/Ascend910B3\",\"命名\"]");
  }
}
