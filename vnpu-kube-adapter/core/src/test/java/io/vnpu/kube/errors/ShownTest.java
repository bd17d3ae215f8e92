package io.vnpu.kube.errors;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ShownTest {
  @Test
  void aShortPrintableValueIsShownAsIs() {
    assertThat(Shown.value("16384")).isEqualTo("16384");
    assertThat(Shown.value("")).isEqualTo("");
    assertThat(Shown.value(null)).isEqualTo("(none)");
  }

  @Test
  void controlCharactersAreQuotedSoNoLineCanBeForged() {
    assertThat(Shown.value("1\nW1201 forged kubelet line"))
        .isEqualTo("\"1\\nW1201 forged kubelet line\"");
    assertThat(Shown.value("a\"b\\c\u0001")).isEqualTo("\"a\\\"b\\\\c\\u0001\"");
  }

  @Test
  void aStringIsAlwaysQuoted() {
    assertThat(Shown.string("16384")).isEqualTo("\"16384\"");
    assertThat(Shown.string("1\n2")).isEqualTo("\"1\\n2\"");
    assertThat(Shown.string("x".repeat(1000)))
        .isEqualTo("\"" + "x".repeat(63) + "... (1002 characters)");
  }

  @Test
  void aLongValueIsCutWithItsLength() {
    String shown = Shown.value("9".repeat(200_000));
    assertThat(shown).isEqualTo("9".repeat(64) + "... (200000 characters)");
    assertThat(Shown.value("\n".repeat(100)))
        .startsWith("\"\\n\\n")
        .endsWith("... (202 characters)")
        .doesNotContain("\n");
  }
}
