package io.vnpu.kube.dra.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hostile {@code NpuConfig} parameters: every error is one short line naming field and value. */
class NpuConfigDecoderTest {
  static final String AT =
      "ResourceClaim demo/c: status.allocation.devices.config[0]" + ".opaque.parameters";

  final NpuConfigDecoder decoder = new NpuConfigDecoder();

  static Map<String, Object> npuConfig(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("apiVersion", "npu.vnpu.io/v1alpha1");
    m.put("kind", "NpuConfig");
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  String error(Map<String, Object> parameters) {
    try {
      decoder.decode(parameters, AT);
    } catch (ConfigDecodeException e) {
      return e.getMessage();
    }
    throw new AssertionError("decoded " + parameters);
  }

  @Test
  void wrongTypesAndHugeOrNegativeNumbersNameTheFieldAndValue() {
    assertThat(error(npuConfig("computeWeight", new BigInteger("99999999999999999999"))))
        .isEqualTo(AT + ".computeWeight = 99999999999999999999: not an integer in 1..10000");
    assertThat(error(npuConfig("computeWeight", -5)))
        .isEqualTo(AT + ".computeWeight = -5: not an integer in 1..10000");
    assertThat(error(npuConfig("computeCap", 50.5)))
        .isEqualTo(AT + ".computeCap = 50.5: not an integer in 0..100");
    assertThat(error(npuConfig("computeCap", 101)))
        .isEqualTo(AT + ".computeCap = 101: not an integer in 0..100");
    assertThat(error(npuConfig("memoryOnly", "true")))
        .isEqualTo(AT + ".memoryOnly = \"true\": not true or false");
    assertThat(error(npuConfig("sharing", List.of("soft"))))
        .isEqualTo(AT + ".sharing = [\"soft\"]: not a string");
  }

  @Test
  void aHostileValueCannotAddLinesOrFloodTheMessage() {
    String e = error(npuConfig("sharing", "soft\nI1201 03:00:00 prepared ResourceClaim x"));
    assertThat(e)
        .doesNotContain("\n")
        .isEqualTo(
            AT
                + ".sharing = \"soft\\nI1201 03:00:00"
                + " prepared ResourceClaim x\": expected soft, hard or whole");
    e = error(npuConfig("x\ny", 1));
    assertThat(e).doesNotContain("\n").startsWith(AT + ".\"x\\ny\" = 1: unknown field");
    e = error(npuConfig("extra", "a".repeat(100_000)));
    assertThat(e)
        .isEqualTo(
            AT
                + ".extra = \""
                + "a".repeat(63)
                + "... (100002 characters):"
                + " unknown field (known: apiVersion, kind, sharing, computeWeight, computeCap, priority,"
                + " memoryOnly, policy)");
    assertThatThrownBy(() -> decoder.decode("x".repeat(1000), AT))
        .hasMessageStartingWith(
            AT + " = \"" + "x".repeat(63) + "... (1002 characters): not an" + " object");
  }

  @Test
  void aValidConfigDecodes() throws Exception {
    assertThat(
            decoder.decode(
                npuConfig(
                    "sharing", "soft", "computeWeight", 10000, "computeCap", 0, "priority", "high"),
                AT))
        .isEqualTo(
            new NpuConfig(
                NpuConfig.Sharing.SOFT, 10000, 0, io.vnpu.api.model.Priority.HIGH, null, null));
    assertThat(decoder.decode(npuConfig("policy", "elastic"), AT).policy())
        .isEqualTo(io.vnpu.api.slice.SharingPolicy.ELASTIC);
  }

  @Test
  void aBadPolicyNamesTheFieldAndTheValue() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> decoder.decode(npuConfig("policy", "burst"), AT))
        .isInstanceOf(ConfigDecodeException.class)
        .hasMessageEndingWith(".policy = burst: expected fixed-share, elastic or best-effort");
  }
}
