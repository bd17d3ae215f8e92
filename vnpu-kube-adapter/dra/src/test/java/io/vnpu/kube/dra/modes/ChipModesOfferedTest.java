package io.vnpu.kube.dra.modes;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Modes pinned by --chip-modes, and the modes a chip is offered in with and without counters. */
class ChipModesOfferedTest {

  final Npu b4 = MutableDeviceManager.npu910b4(0, 0); // hard-splittable by ChipModesTest.CONFIG
  final Npu b4b = MutableDeviceManager.npu910b4(1, 1);
  final Npu b3 = MutableDeviceManager.npu910b3(2, 2, 0); // no templates: not hard-splittable

  ChipModes modes(boolean hardOn, boolean softOn, String pins) throws Exception {
    HardVnpuChips hard =
        new HardVnpuChips(
            hardOn,
            new DeviceConfigLoader().parse(ChipModesTest.CONFIG, "device-config.yaml").value());
    return new ChipModes(
        hard, softOn, SoftCapacityNames.HAMI, ChipModePins.parse(pins, hardOn, softOn));
  }

  @Test
  void withCountersAnUnpinnedHardChipIsOfferedHardAndSoftOtherwiseOneMode() throws Exception {
    ChipModes both = modes(true, true, "");
    assertThat(both.offered(b4, true)).containsExactly(ChipMode.HARD_VNPU, ChipMode.SOFT);
    assertThat(both.offered(b4, false)).containsExactly(ChipMode.HARD_VNPU);
    assertThat(both.offered(b3, true)).containsExactly(ChipMode.SOFT);
    // only one of the two flags: nothing to combine
    assertThat(modes(true, false, "").offered(b4, true)).containsExactly(ChipMode.HARD_VNPU);
    assertThat(modes(false, true, "").offered(b4, true)).containsExactly(ChipMode.SOFT);
    // each device of a chip offered twice has its own mode
    assertThat(both.modeOf(b4, "npu-0")).isEqualTo(ChipMode.HARD_VNPU);
    assertThat(both.modeOf(b4, "npu-0-soft")).isEqualTo(ChipMode.SOFT);
  }

  @Test
  void aPinnedChipIsOfferedInItsModeOnlyWithOrWithoutCounters() throws Exception {
    ChipModes pinned = modes(true, true, "0=soft,1=whole");
    assertThat(pinned.modeOf(b4)).isEqualTo(ChipMode.SOFT);
    assertThat(pinned.offered(b4, true)).containsExactly(ChipMode.SOFT);
    assertThat(pinned.offered(b4b, true)).containsExactly(ChipMode.WHOLE);
    assertThat(pinned.offered(b4b, false)).containsExactly(ChipMode.WHOLE);
    // an unpinned chip keeps the rule
    assertThat(pinned.offered(b3, false)).containsExactly(ChipMode.SOFT);
  }

  @Test
  void aChipPinnedHardThatCannotBeSplitFollowsTheRule() throws Exception {
    ChipModes m = modes(true, true, "2=hard");
    assertThat(m.modeOf(b3)).isEqualTo(ChipMode.SOFT);
    assertThat(m.offered(b3, true)).isEqualTo(List.of(ChipMode.SOFT));
    assertThat(modes(true, false, "2=hard").modeOf(b3)).isEqualTo(ChipMode.WHOLE);
  }
}
