package io.vnpu.kube.dra.modes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChipModePinsTest {

  @Test
  void rangesAndSingleIdsPinModes() {
    ChipModePins p = ChipModePins.parse("0-3=hard, 4-6=soft,7=whole", true, true);
    assertThat(p.of(0)).contains(ChipMode.HARD_VNPU);
    assertThat(p.of(3)).contains(ChipMode.HARD_VNPU);
    assertThat(p.of(4)).contains(ChipMode.SOFT);
    assertThat(p.of(6)).contains(ChipMode.SOFT);
    assertThat(p.of(7)).contains(ChipMode.WHOLE);
    assertThat(p.of(8)).isEqualTo(Optional.empty());
    assertThat(ChipModePins.parse("", true, true)).isEqualTo(ChipModePins.NONE);
    assertThat(ChipModePins.parse(null, false, false).of(0)).isEmpty();
  }

  @Test
  void entriesThatPinNoChipOfTheNodeAreFoundAndWrittenAsTheFlagWritesThem() {
    ChipModePins p = ChipModePins.parse("0-3=hard,4-7=soft,9=whole,12-15=soft", true, true);
    // a 4-chip node: phy IDs 0, 1, 8, 9 (the 910B numbering skips 4..7 on some boards)
    assertThat(p.unmatched(java.util.List.of(0, 1, 8, 9)))
        .extracting(ChipModePins.Range::toString)
        .containsExactly("4-7=soft", "12-15=soft");
    assertThat(p.unmatched(java.util.List.of(3, 4, 9, 15))).isEmpty();
    assertThat(ChipModePins.NONE.unmatched(java.util.List.of(0))).isEmpty();
    assertThat(p.ranges())
        .extracting(ChipModePins.Range::toString)
        .containsExactly("0-3=hard", "4-7=soft", "9=whole", "12-15=soft");
  }

  @Test
  void eachFaultIsOneLineNamingTheFlagAndValue() {
    assertBad(
        "0-3=hrad",
        true,
        true,
        "--chip-modes = 0-3=hrad: unknown mode hrad (known: whole, hard, soft)");
    assertBad(
        "0-3=Hard",
        true,
        true,
        "--chip-modes = 0-3=Hard: unknown mode Hard (known: whole, hard, soft)");
    assertBad("3-1=soft", true, true, "--chip-modes = 3-1=soft: range 3-1 is backwards");
    assertBad(
        "0-3=hard,2=soft", true, true, "--chip-modes = 0-3=hard,2=soft: phy ID 2 is given twice");
    assertBad(
        "x=soft",
        true,
        true,
        "--chip-modes = x=soft: x is not a phy ID or a range of phy IDs (e.g. 0-3)");
    assertBad("0-3", true, true, "--chip-modes = 0-3: entry 0-3 is not <phy IDs>=<mode>");
    assertBad(
        "0=soft,", true, true, "--chip-modes = 0=soft,: entry (empty) is not <phy IDs>=<mode>");
    assertBad("4-7=soft", true, false, "--chip-modes = 4-7=soft: soft needs --enable-soft-slicing");
    assertBad("0-3=hard", false, true, "--chip-modes = 0-3=hard: hard needs --enable-hard-vnpu");
    assertBad(
        "99999999999=soft",
        true,
        true,
        "--chip-modes = 99999999999=soft: 99999999999 is"
            + " not a phy ID or a range of phy IDs (e.g. 0-3)");
  }

  static void assertBad(String value, boolean hard, boolean soft, String message) {
    assertThatThrownBy(() -> ChipModePins.parse(value, hard, soft))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }
}
