package io.vnpu.api.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.health.AiCoreDeviceHealth;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AiCoreDeviceHealthTest {
  @Test
  void anUnhealthyChipTakesAllItsAiCoreDevices() {
    assertThat(AiCoreDeviceHealth.map(false, 20, Set.of(0, 1), 0))
        .isEqualTo(Collections.nCopies(20, false));
  }

  @Test
  void aHealthyChipReportsOnlyAsManyFreeDevicesUnhealthyAsTheFaultTakes() {
    List<Boolean> h = AiCoreDeviceHealth.map(true, 8, Set.of(6, 7, 0), 3);
    assertThat(h).containsExactly(true, true, true, false, false, false, true, true);
    assertThat(AiCoreDeviceHealth.map(true, 4, Set.of(), 0)).containsOnly(true);
    assertThat(AiCoreDeviceHealth.map(true, 4, Set.of(0, 1, 2, 3), 2)).containsOnly(true);
    assertThat(AiCoreDeviceHealth.map(true, 4, Set.of(), 9)).containsOnly(false);
  }

  @Test
  void badArgumentsAreRejected() {
    assertThatThrownBy(() -> AiCoreDeviceHealth.map(true, 4, Set.of(4), 0))
        .hasMessage("AI-core device 4 not in 0..3");
  }
}
