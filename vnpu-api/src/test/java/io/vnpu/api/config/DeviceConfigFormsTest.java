package io.vnpu.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.VnpuTemplate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The accepted forms: legacy flat list, quantities, case-insensitive keys, HAMi-only keys. */
class DeviceConfigFormsTest {

  private final List<ConfigProblem> sunk = new ArrayList<>();
  private final DeviceConfigLoader loader = new DeviceConfigLoader(sunk::add);

  @Test
  void legacyFlatList() {
    Loaded<DeviceConfig> loaded =
        loader.parse(
            """
        vnpus:
        - chipName: 310P3
          commonWord: Ascend310P
          resourceName: huawei.com/Ascend310P
          resourceMemoryName: huawei.com/Ascend310P-memory
          memoryAllocatable: 21527
          memoryCapacity: 24576
          aiCore: 8
          aiCPU: 7
          templates:
          - {name: vir02, memory: 6144, aiCore: 2, aiCPU: 2}
          - {name: vir01, memory: 3072, aiCore: 1, aiCPU: 1}
        """,
            "legacy.yaml");

    assertThat(loaded.warnings()).isEmpty();
    assertThat(loaded.value().hamiVnpuCore()).isFalse();
    ChipConfig chip = loaded.value().forChipName("310P3").orElseThrow();
    assertThat(chip.templates())
        .containsExactly(
            new VnpuTemplate("vir01", 3072, 1, 1), new VnpuTemplate("vir02", 6144, 2, 2));
    assertThat(chip.vDeviceCount()).isEqualTo(7);
  }

  @Test
  void quantitiesAreConvertedToMibWithAWarningAboutHami() {
    Loaded<DeviceConfig> loaded =
        loader.parse(
            """
        vnpus:
          hamiVnpuCore: true
          configs:
          - chipName: 910B3
            commonWord: Ascend910B3
            resourceName: huawei.com/Ascend910B3
            resourceMemoryName: huawei.com/Ascend910B3-memory
            memoryAllocatable: 64Gi
            memoryCapacity: "65536"
            aiCore: 20
            templates:
            - name: vir05_1c_16g
              memory: 16384Mi
              aiCore: 5
            - name: vir10_3c_32g
              memory: 0.03125Ti
              aiCore: 10
        """,
            "q.yaml");

    ChipConfig chip = loaded.value().chips().get(0);
    assertThat(loaded.value().hamiVnpuCore()).isTrue();
    assertThat(chip.memoryAllocatableMib()).isEqualTo(65536);
    assertThat(chip.memoryCapacityMib()).isEqualTo(65536);
    assertThat(chip.templates())
        .extracting(VnpuTemplate::memoryMib)
        .containsExactly(16384L, 32768L);
    assertThat(loaded.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "q.yaml:8: vnpus.configs[0].memoryAllocatable = 64Gi: read as 65536 MiB; HAMi's scheduler"
                + " reads only integers of MiB here, write 65536 if it shares this file",
            "q.yaml:13: vnpus.configs[0].templates[0].memory = 16384Mi: read as 16384 MiB; HAMi's"
                + " scheduler reads only integers of MiB here, write 16384 if it shares this file",
            "q.yaml:16: vnpus.configs[0].templates[1].memory = 0.03125Ti: read as 32768 MiB; HAMi's"
                + " scheduler reads only integers of MiB here, write 32768 if it shares this file");
    assertThat(sunk).isEqualTo(loaded.warnings());
  }

  @Test
  void keysAreCaseInsensitiveAndHamiOnlyKeysAccepted() {
    Loaded<DeviceConfig> loaded =
        loader.parse(
            """
        VNPUS:
          HamiVnpuCore: false
          Configs:
          - CHIPNAME: Ascend910
            commonword: Ascend910C
            ResourceName: huawei.com/Ascend910C
            resourcememoryname: huawei.com/Ascend910C-memory
            resourceCoreName: huawei.com/Ascend910C-core
            MemoryAllocatable: 65536
            memorycapacity: 65536
            AiCore: 20
            AICPU: 7
            memoryFactor: 2
            runtimeClassName: ascend
            overwriteEnv: true
            superPod: true
            Templates:
            - NAME: vir05_1c_16g
              Memory: 16384
              AICORE: 5
              aicpu: 1
        """,
            "case.yaml");

    assertThat(loaded.warnings()).isEmpty();
    ChipConfig chip = loaded.value().forCommonWord("Ascend910C").orElseThrow();
    assertThat(chip.chipName()).isEqualTo("Ascend910");
    assertThat(chip.resourceCoreName()).contains("huawei.com/Ascend910C-core");
    assertThat(chip.memoryFactor()).isEqualTo(2);
    assertThat(chip.chip().aiCpus()).isEqualTo(7);
    assertThat(chip.templates()).containsExactly(new VnpuTemplate("vir05_1c_16g", 16384, 5, 1));
  }

  @Test
  void unknownKeysWarnWithTheirPathAndLine() {
    Loaded<DeviceConfig> loaded =
        loader.parse(
            """
        nvidia:
          resourceCountName: nvidia.com/gpu
        vnpus:
          configs:
          - chipName: 910B4
            commonWord: Ascend910B4
            resourceName: huawei.com/Ascend910B4
            resourceMemoryName: huawei.com/Ascend910B4-memory
            memoryAllocatable: 32768
            memoryCapacity: 32768
            aiCore: 20
            hbm: 32768
            templates:
            - name: vir05_1c_8g
              memory: 8192
              aiCore: 5
              vpc: 1
        """,
            "u.yaml");

    assertThat(loaded.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "u.yaml:1: nvidia: unknown key, ignored",
            "u.yaml:12: vnpus.configs[0].hbm: unknown key, ignored",
            "u.yaml:17: vnpus.configs[0].templates[0].vpc: unknown key, ignored");
    assertThat(sunk).hasSize(3);
    assertThat(loaded.value().chips().get(0).vDeviceCount()).isEqualTo(4);
  }

  @Test
  void warnsWhenHamiWouldAdvertiseNoDevice() {
    Loaded<DeviceConfig> loaded =
        loader.parse(
            """
        vnpus:
          configs:
          - chipName: 310P3
            commonWord: Ascend310P
            resourceName: huawei.com/Ascend310P
            resourceMemoryName: huawei.com/Ascend310P-memory
            memoryAllocatable: 21527
            memoryCapacity: 24576
            aiCore: 8
            templates:
            - {name: vir08, memory: 24576, aiCore: 8}
        """,
            "w.yaml");

    assertThat(loaded.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "w.yaml:7: vnpus.configs[0].memoryAllocatable = 21527: smaller than the smallest template"
                + " vir08 (24576 MiB): HAMi would advertise VDeviceCount 0, vnpu advertises 1");
    assertThat(loaded.value().chips().get(0).vDeviceCount()).isEqualTo(1);
  }

  @Test
  void duplicateChipNameWarnsAndFirstWins() {
    Loaded<DeviceConfig> loaded =
        loader.parse(
            """
        vnpus:
        - {chipName: 910B4, commonWord: Ascend910B4, resourceName: huawei.com/Ascend910B4, resourceMemoryName: huawei.com/Ascend910B4-memory, memoryAllocatable: 32768, memoryCapacity: 32768, aiCore: 20}
        - {chipName: 910B4, commonWord: Ascend910B4-1, resourceName: huawei.com/Ascend910B4-1, resourceMemoryName: huawei.com/Ascend910B4-1-memory, memoryAllocatable: 65536, memoryCapacity: 65536, aiCore: 20}
        """,
            "d.yaml");

    assertThat(loaded.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "d.yaml:3: vnpus[1].chipName = 910B4: chip already configured at vnpus[0].chipName"
                + " (line 2); only the first entry is used, as in HAMi");
    assertThat(loaded.value().forChipName("910B4").orElseThrow().commonWord())
        .isEqualTo("Ascend910B4");
  }

  @Test
  void takesTheConfigMapOutOfAMultiDocumentManifest() {
    Loaded<DeviceConfig> loaded =
        loader.parse(
            """
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: hami-ascend}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: hami-scheduler-device}
        data:
          device-config.yaml: |
            vnpus:
              configs:
              - chipName: 910B4
                commonWord: Ascend910B4
                resourceName: huawei.com/Ascend910B4
                resourceMemoryName: huawei.com/Ascend910B4-memory
                memoryAllocatable: 32768
                memoryCapacity: 32768
                aiCore: 20
                bogus: 1
        """,
            "m.yaml");

    assertThat(loaded.value().chips())
        .extracting(ChipConfig::commonWord)
        .containsExactly("Ascend910B4");
    assertThat(loaded.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly("m.yaml:19: vnpus.configs[0].bogus: unknown key, ignored");
  }
}
