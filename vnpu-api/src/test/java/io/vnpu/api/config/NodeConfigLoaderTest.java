package io.vnpu.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodeConfigLoaderTest {

  private final NodeConfigLoader loader = new NodeConfigLoader(w -> {});

  @Test
  void readsEveryField() {
    Loaded<NodeConfig> loaded =
        loader.parse(
            """
        nodes:
          - name: worker-1
            Hami-Vnpu-Core: false
            vdevicecount: 6
            filterDevices:
              index: [0, 3]
              uuid: ["0A1B2C3D-00000000-4E5F6071-00000000-8293A4B5"]
          - name: worker-2
          - name: worker-1
            vDeviceCount: 2
        """,
            "n.yaml");

    NodeConfig config = loaded.value();
    assertThat(config.nodes()).hasSize(3);
    NodeSettings w1 = config.forNode("worker-1").orElseThrow();
    assertThat(w1)
        .isEqualTo(
            new NodeSettings(
                "worker-1",
                Optional.of(false),
                6,
                new DeviceFilter(
                    List.of(0, 3), List.of("0A1B2C3D-00000000-4E5F6071-00000000-8293A4B5"))));
    assertThat(w1.filterDevices().excludes(3, "X")).isTrue();
    assertThat(w1.filterDevices().excludes(1, "0a1b2c3d-00000000-4e5f6071-00000000-8293a4b5"))
        .isTrue();
    assertThat(w1.filterDevices().excludes(1, "0A1B2C3D-00000000-4E5F6071-00000000-00000000"))
        .isFalse();
    NodeSettings w2 = config.forNode("worker-2").orElseThrow();
    assertThat(w2.hamiVnpuCore()).isEmpty();
    assertThat(w2.hamiVnpuCore(true)).isTrue();
    assertThat(w2.vDeviceCount()).isZero();
    assertThat(w2.filterDevices().isEmpty()).isTrue();
    assertThat(loaded.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "n.yaml:9: nodes[2].name = worker-1: node already configured at line 2; only the first"
                + " entry is used, as in HAMi");
  }

  @Test
  void emptyNodeListIsValid() {
    assertThat(loader.parse("nodes: []\n", "n.yaml").value()).isEqualTo(NodeConfig.EMPTY);
  }

  @Test
  void reportsEveryError() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                loader.parse(
                    """
        nodes:
          - hami-vnpu-core: maybe
            vDeviceCount: -1
            filterDevices:
              index: [0, x, 4294967296]
              uuid: [abc]
              serial: [1]
          - name: worker-2
            vDeviceCount: 2.5
        """,
                    "n.yaml"));

    assertThat(e.errors())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "n.yaml:2: nodes[0].name: required key is missing",
            "n.yaml:2: nodes[0].hami-vnpu-core = maybe: not a boolean (true or false)",
            "n.yaml:3: nodes[0].vDeviceCount = -1: must be >= 0",
            "n.yaml:5: nodes[0].filterDevices.index[1] = x: not an integer",
            "n.yaml:5: nodes[0].filterDevices.index[2] = 4294967296: overflows the 32-bit integer HAMi"
                + " uses (-2147483648..2147483647)",
            "n.yaml:9: nodes[1].vDeviceCount = 2.5: not an integer");
    assertThat(e.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "n.yaml:7: nodes[0].filterDevices.serial: unknown key, ignored",
            "n.yaml:6: nodes[0].filterDevices.uuid[0] = abc: does not look like a die-ID UUID (5 groups"
                + " of 8 hex digits joined by -); it will match no device");
  }
}
