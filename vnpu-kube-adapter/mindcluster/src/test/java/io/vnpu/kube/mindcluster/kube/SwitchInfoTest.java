package io.vnpu.kube.mindcluster.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.health.SwitchFault;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/** {@code SwitchInfoCfg} against MindCluster's field names; CheckCode recomputed here. */
class SwitchInfoTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

  private static SwitchFault fault(
      int type, int sub, int peer, int chip, int port, int severity, int assertion) {
    return new SwitchFault(type, sub, peer, 0, chip, port, severity, assertion, T.minusSeconds(60));
  }

  @Test
  void faultsAreListedGradedAndCheckCoded() throws Exception {
    List<SwitchFault> faults =
        List.of(
            fault(9, 0, 1, 1, 3, 3, 1), // port fail towards an NPU: Separate in the shipped table
            fault(11, 0, 0xFFFF, 0, 0, 1, 1), // config fault: NotHandle
            fault(9, 0, 1, 1, 3, 3, 1), // the same fault twice is listed once
            fault(8, 0, 1, 2, 5, 2, 0)); // recovered: not listed
    JsonNode info = JSON.readTree(SwitchInfo.cfg(faults, SwitchFaultLevels.shipped(), T));
    assertThat(info.path("FaultCode")).hasSize(2);
    JsonNode first = info.path("FaultCode").get(0);
    assertThat(first.path("EventType").asInt()).isEqualTo(9);
    assertThat(first.path("AssembledFaultCode").asText()).isEqualTo("[0x00f1ff06,155911,npu,na]");
    assertThat(first.path("PeerPortDevice").asInt()).isEqualTo(1);
    assertThat(first.path("PeerPortId").asInt()).isZero();
    assertThat(first.path("SwitchChipId").asInt()).isEqualTo(1);
    assertThat(first.path("SwitchPortId").asInt()).isEqualTo(3);
    assertThat(first.path("Severity").asInt()).isEqualTo(3);
    assertThat(first.path("Assertion").asInt()).isEqualTo(1);
    assertThat(first.path("AlarmRaisedTime").asLong()).isEqualTo(T.getEpochSecond() - 60);
    assertThat(info.path("FaultLevel").asText()).isEqualTo("Separate");
    assertThat(info.path("NodeStatus").asText()).isEqualTo("UnHealthy");
    assertThat(info.path("UpdateTime").asLong()).isEqualTo(T.getEpochSecond());
    JsonNode tl = info.path("FaultTimeAndLevelMap").path("[0x00f1ff06,155911,npu,na]_1_3");
    assertThat(tl.path("fault_level").asText()).isEqualTo("Separate");
    assertThat(tl.path("fault_time").asLong()).isEqualTo(T.minusSeconds(60).toEpochMilli());
    assertThat(
            info.path("FaultTimeAndLevelMap")
                .path("[0x00f103b0,155904,na,na]_0_0")
                .path("fault_level")
                .asText())
        .isEqualTo("NotHandle");
    ObjectNode without = (ObjectNode) info.deepCopy();
    String code = without.remove("CheckCode").asText();
    assertThat(code)
        .isEqualTo(
            HexFormat.of()
                .formatHex(
                    MessageDigest.getInstance("SHA-256")
                        .digest(
                            JSON.writeValueAsString(without).getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  void noFaultIsAHealthyNode() throws Exception {
    JsonNode info = JSON.readTree(SwitchInfo.cfg(List.of(), SwitchFaultLevels.shipped(), T));
    assertThat(info.path("FaultCode")).isEmpty();
    assertThat(info.path("FaultLevel").asText()).isEqualTo("NotHandle");
    assertThat(info.path("NodeStatus").asText()).isEqualTo("Healthy");
  }

  @Test
  void unknownCodesAreGradedBySeverityAndTablesCanLowerAKnownOne() {
    SwitchFaultLevels custom =
        SwitchFaultLevels.parse(
            "{\"SubHealthFaultCodes\":[\"[0x00f1ff06,155911,npu,na]\"]}", "SwitchFaultCode.json");
    assertThat(custom.levelOf(fault(9, 0, 1, 0, 0, 3, 1)))
        .isEqualTo(SwitchFaultLevels.Level.SUB_HEALTH);
    assertThat(custom.levelOf(fault(2, 0, 0, 0, 0, 2, 1)))
        .isEqualTo(SwitchFaultLevels.Level.SEPARATE);
    assertThat(custom.levelOf(fault(2, 0, 0, 0, 0, 1, 1)))
        .isEqualTo(SwitchFaultLevels.Level.NOT_HANDLE);
  }

  @Test
  void badTablesNameTheSourceAndKey() {
    assertThatThrownBy(
            () ->
                SwitchFaultLevels.parse(
                    "{\"SeparateFaultCodes\":\"x\"}", "/etc/SwitchFaultCode.json"))
        .hasMessage("/etc/SwitchFaultCode.json: SeparateFaultCodes must be an array of codes");
    assertThatThrownBy(() -> SwitchFaultLevels.parse("[1]", "f.json"))
        .hasMessage("f.json: must be a JSON object");
    assertThatThrownBy(() -> SwitchFaultLevels.parse("{\"SeparateFaultCodes\":[7]}", "f.json"))
        .hasMessage("f.json: SeparateFaultCodes = 7: not a code string");
  }
}
