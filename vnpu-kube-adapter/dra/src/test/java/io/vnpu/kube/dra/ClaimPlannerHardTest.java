package io.vnpu.kube.dra;

import static io.vnpu.kube.testing.DraClaims.allocated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.state.ClaimPlanner;
import io.vnpu.kube.dra.state.PlanException;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Forged or stale {@code memCapacity} amounts of a hard-vNPU chip (910B4, 32 GiB) are refused. */
class ClaimPlannerHardTest {
  static final String DRIVER = "npu.huawei.com";
  static final String POOL = "node-1";

  final ClaimPlanner planner =
      new ClaimPlanner(
          DRIVER,
          POOL,
          CdiKind.of(DRIVER, "npu"),
          new HardVnpuChips(
              true,
              new DeviceConfigLoader()
                  .parse(HardVnpuEndToEndTest.DEVICE_CONFIG, "device-config.yaml")
                  .value()));
  final Map<String, Npu> devices = Map.of("npu-0", MutableDeviceManager.npu910b4(0, 0));

  ResourceClaim claim(String mem) {
    return allocated(
        "demo",
        "c",
        "u1",
        List.of(
            new DeviceRequestAllocationResultBuilder()
                .withRequest("npu")
                .withDriver(DRIVER)
                .withPool(POOL)
                .withDevice("npu-0")
                .withShareID("s1")
                .withConsumedCapacity(Map.of("memCapacity", new Quantity(mem)))
                .build()));
  }

  @Test
  void aZeroOrNegativeMemCapacityIsRefusedNotRoundedUpToTheSmallestTemplate() {
    for (String mem : List.of("0", "-8Gi")) {
      assertThatThrownBy(() -> planner.plan(claim(mem), devices))
          .isInstanceOf(PlanException.class)
          .hasMessage(
              "ResourceClaim demo/c: status.allocation.devices.results[0]"
                  + ".consumedCapacity.memCapacity = "
                  + mem
                  + ": not a positive byte quantity");
    }
  }

  @Test
  void aValidAmountStillRoundsUpToItsTemplate() throws Exception {
    assertThat(planner.plan(claim("10000Mi"), devices).devices().get(0).vnpu().template())
        .isEqualTo("vir10_3c_16g");
  }

  @Test
  void softOnlySettingsOnAHardVnpuShareFailTheClaimInsteadOfBeingDropped() {
    for (Object[] kv :
        List.of(
            new Object[] {"computeWeight", 50},
            new Object[] {"computeCap", 30},
            new Object[] {"priority", "high"})) {
      ResourceClaim c =
          new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder(claim("10000Mi"))
              .editStatus()
              .editAllocation()
              .editDevices()
              .addNewConfig()
              .withSource("FromClaim")
              .withNewOpaque()
              .withDriver(DRIVER)
              .withParameters(
                  Map.of(
                      "apiVersion",
                      "npu.vnpu.io/v1alpha1",
                      "kind",
                      "NpuConfig",
                      (String) kv[0],
                      kv[1]))
              .endOpaque()
              .endConfig()
              .endDevices()
              .endAllocation()
              .endStatus()
              .build();
      assertThatThrownBy(() -> planner.plan(c, devices))
          .isInstanceOf(PlanException.class)
          .hasMessage(
              "ResourceClaim demo/c: status.allocation.devices.results[0]: NpuConfig "
                  + kv[0]
                  + " = "
                  + kv[1]
                  + ": applies to soft shares only, and the device is a hard"
                  + " vNPU share of npu-0");
    }
  }
}
