package io.vnpu.api.slice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SliceModelTest {
  private static final NpuRef N0 = new NpuRef(0, "U0");
  private static final NpuRef N1 = new NpuRef(1, "U1");

  @Test
  void aDecisionHasOneKindAndNoNpuTwice() {
    SliceDecision hard =
        new SliceDecision(
            List.of(
                new SliceDevice(N0, new SliceShare.HardTemplate("vir05_1c_16g")),
                new SliceDevice(N1, new SliceShare.HardTemplate("vir02"))));
    assertThat(hard.kind()).isEqualTo(SliceKind.HARD);
    assertThatThrownBy(
            () ->
                new SliceDecision(
                    List.of(
                        new SliceDevice(N0, new SliceShare.Whole()),
                        new SliceDevice(N1, SliceShare.SoftQuota.memoryOnly(1)))))
        .hasMessage("a slice mixes WHOLE and SOFT devices (NPU U1)");
    assertThatThrownBy(
            () ->
                new SliceDecision(
                    List.of(
                        new SliceDevice(N0, new SliceShare.Whole()),
                        new SliceDevice(N0, new SliceShare.Whole()))))
        .hasMessage("a slice names an NPU twice: [U0, U0]");
    assertThatThrownBy(() -> new SliceDecision(List.of()))
        .hasMessage("a slice needs at least one device");
  }

  @Test
  void softQuotaBoundsAreChecked() {
    assertThat(new SliceShare.SoftQuota(1L << 30, 10000, 100, Priority.HIGH).kind())
        .isEqualTo(SliceKind.SOFT);
    assertThatThrownBy(() -> new SliceShare.SoftQuota(-1, 0, 0, Priority.NORMAL))
        .hasMessage("memoryLimitBytes must be >= 0 bytes: -1");
    assertThatThrownBy(() -> new SliceShare.SoftQuota(0, 10001, 0, Priority.NORMAL))
        .hasMessage("computeWeight must be in 0..10000: 10001");
    assertThatThrownBy(() -> new SliceShare.SoftQuota(0, 1, 101, Priority.NORMAL))
        .hasMessage("computeCapPct must be in 0..100: 101");
    assertThatThrownBy(() -> new SliceDevice(N0, new SliceShare.Whole()).softQuota())
        .hasMessage("device U0 has a WHOLE share, not a soft quota");
  }

  @Test
  void regionsHoldSoftDevicesOnly() {
    assertThatThrownBy(
            () ->
                new RegionToCreate(
                    Path.of("/r"), List.of(new SliceDevice(N0, new SliceShare.Whole())), ""))
        .isInstanceOf(IllegalStateException.class);
    SliceDevice soft = new SliceDevice(N0, SliceShare.SoftQuota.memoryOnly(4L << 30));
    assertThat(new RegionToCreate(Path.of("/r"), List.of(soft), "/reg").devices())
        .containsExactly(soft);
  }

  @Test
  void editsKeepTheEnvironmentOrderAndPlansPublishCreatedVnpus() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("B", "1");
    env.put("A", "2");
    ContainerEdits edits = ContainerEdits.ofEnv(env).withEnv("C", "3").withEnv("B", "4");
    assertThat(edits.env().keySet()).containsExactly("B", "A", "C");
    assertThat(edits.env()).containsEntry("B", "4");

    SliceDecision d =
        new SliceDecision(List.of(new SliceDevice(N0, new SliceShare.HardTemplate("vir02"))));
    SlicePlan plan =
        SlicePlan.editsOnly(d, edits)
            .withVnpus(List.of(new VnpuToCreate(N0, 3, "vir02")), "ASCEND_VISIBLE_DEVICES");
    assertThat(plan.createdVnpuIdsEnv()).contains("ASCEND_VISIBLE_DEVICES");
    assertThat(plan.vnpus()).containsExactly(new VnpuToCreate(N0, 3, "vir02"));
    assertThat(plan.region()).isEmpty();
    assertThatThrownBy(
            () ->
                new SlicePlan(
                    d, List.of(), Optional.of("X"), Optional.empty(), edits, Map.of(), List.of()))
        .hasMessage("createdVnpuIdsEnv X without vNPUs to create");
  }

  @Test
  void deviceNodePermissionsAreACombinationOfRwm() {
    assertThat(new DeviceNode("/dev/davinci0", "/dev/davinci0", "rw").permissions())
        .isEqualTo("rw");
    assertThatThrownBy(() -> new DeviceNode("/dev/davinci0", "/dev/davinci0", "x"))
        .hasMessageContaining("x");
  }
}
