package io.vnpu.kube.mindcluster.devices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Vnpu;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Chip families, template suffixes and the advertised device names (spec sections 1.9, 2, 3.2). */
class CardTypeTest {

  @Test
  void familiesFromChipNames() {
    assertThat(CardType.ofChipName("910B3")).contains(CardType.ASCEND910B);
    assertThat(CardType.ofChipName("A2G1")).contains(CardType.ASCEND910B);
    assertThat(CardType.ofChipName("910ProB")).contains(CardType.ASCEND910);
    assertThat(CardType.ofChipName("Ascend910")).contains(CardType.ASCEND910A3);
    assertThat(CardType.ofChipName("310P3")).contains(CardType.ASCEND310P);
    assertThat(CardType.ofChipName("I21")).contains(CardType.ASCEND310P);
    assertThat(CardType.ofChipName("310B1")).contains(CardType.ASCEND310B);
    assertThat(CardType.ofChipName("310")).contains(CardType.ASCEND310);
    assertThat(CardType.ofChipName("Ascend950PR")).contains(CardType.ASCEND950);
    assertThat(CardType.ofChipName("H100")).isEmpty();
    assertThat(CardType.ASCEND910B.resourceName()).isEqualTo("huawei.com/Ascend910");
    assertThat(CardType.ASCEND910A3.resourceName()).isEqualTo("huawei.com/Ascend910");
    assertThat(CardType.ASCEND310P.resourceName()).isEqualTo("huawei.com/Ascend310P");
    assertThat(CardType.ASCEND310.resourceName()).isEqualTo("huawei.com/Ascend310");
    assertThat(CardType.ASCEND950.resourceName()).isEqualTo("huawei.com/npu");
    assertThat(CardType.ASCEND910B.serverType(20)).isEqualTo("Ascend910B-20");
    assertThat(CardType.ASCEND950.serverType(32)).isEqualTo("npu-32");
  }

  @Test
  void suffixesAndCores() {
    assertThat(VnpuSuffix.of("vir12_3c_32g")).contains("12c.3cpu.32g");
    assertThat(VnpuSuffix.of("vir10_3c_16g_nm")).contains("10c.3cpu.16g.ndvpp");
    assertThat(VnpuSuffix.of("vir04_3c_ndvpp")).contains("4c.3cpu.ndvpp");
    assertThat(VnpuSuffix.of("vir02_1c")).contains("2c.1cpu");
    assertThat(VnpuSuffix.of("vir99")).isEmpty();
    assertThat(VnpuSuffix.aiCores("vir10_3c_32g")).isEqualTo(10);
    assertThat(VnpuSuffix.aiCores("vir02")).isEqualTo(2);
    assertThatThrownBy(() -> VnpuSuffix.aiCores("half"))
        .hasMessage("template half is not of the form virNN[_...]");
  }

  private static ChipState chip(
      String chipName, int logic, int phy, int aiCores, int numa, List<Vnpu> vnpus) {
    Npu n =
        new Npu(
            "U" + logic,
            logic,
            phy,
            logic,
            0,
            chipName,
            64L << 30,
            aiCores,
            7,
            DeviceHealth.HEALTHY,
            numa);
    return new ChipState(
        n, CardType.ofChipName(chipName).orElseThrow(), vnpus, ChipHealth.normal(logic));
  }

  @Test
  void dynamicModeAdvertisesOneDevicePerAiCoreAcrossChips() {
    NodeChips chips =
        new NodeChips(
            List.of(chip("310P3", 0, 0, 8, 0, List.of()), chip("310P3", 1, 1, 8, 1, List.of())));
    Map<String, List<AdvertisedDevice>> m = new DeviceCatalog(false, 1).advertise(chips);
    assertThat(m.keySet()).containsExactly("huawei.com/npu-core");
    List<AdvertisedDevice> cores = m.get("huawei.com/npu-core");
    assertThat(cores).hasSize(16);
    assertThat(cores.get(0).id()).isEqualTo("npu-core-0");
    assertThat(cores.get(8).id()).isEqualTo("npu-core-8");
    assertThat(cores.get(8).chip().npu().phyId()).isEqualTo(1);
    assertThat(cores.get(15).id()).isEqualTo("npu-core-15");
    assertThat(cores.get(15).chip().numaNodes()).containsExactly(1);
  }

  @Test
  void vnpusOutsideTheWhitelistAreLeftOut() {
    ChipState c =
        chip(
            "910B3",
            0,
            0,
            20,
            -1,
            List.of(
                new Vnpu(100, 0, "vir12_3c_32g", 32768, 12, false),
                new Vnpu(101, 0, "vir02", 2048, 2, false)));
    Map<String, List<AdvertisedDevice>> m =
        new DeviceCatalog(true, 1).advertise(new NodeChips(List.of(c)));
    assertThat(m.keySet())
        .containsExactly("huawei.com/Ascend910", "huawei.com/Ascend910-12c.3cpu.32g");
    assertThat(m.get("huawei.com/Ascend910")).isEmpty();
    assertThat(m.get("huawei.com/Ascend910-12c.3cpu.32g"))
        .extracting(AdvertisedDevice::id)
        .containsExactly("Ascend910-12c.3cpu.32g-100-0");
    assertThat(m.get("huawei.com/Ascend910-12c.3cpu.32g").get(0).vnpu())
        .map(Vnpu::vnpuId)
        .isEqualTo(Optional.of(100));
  }
}
