package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Vnpu;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DcmiVnpuTest {
  @TempDir Path root;

  @Test
  void createsUntilTheChipIsExhaustedThenDestroyFreesAndIdsAreReusedLowestFirst() {
    SimNode node = new SimNode("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      // logic 4 = card 8, phy 4: vNPU IDs start at 4 * 16 + 100
      for (int i = 0; i < 4; i++) {
        assertThat(manager.createVnpu(4, "vir05_1c_16g"))
            .isEqualTo(new Vnpu(164 + i, 4, "vir05_1c_16g", 16384, 5, false));
      }
      assertThatThrownBy(() -> manager.createVnpu(4, "vir05_1c_16g"))
          .isInstanceOfSatisfying(
              DcmiException.class,
              e -> {
                assertThat(e.code()).isEqualTo(-8020);
                assertThat(e.function()).isEqualTo("dcmi_create_vdevice");
                assertThat(e.getMessage())
                    .isEqualTo(
                        "dcmi_create_vdevice failed: -8020 "
                            + "RESOURCE_OCCUPIED (resources occupied): no room for template 'vir05_1c_16g' on "
                            + "NPU logic 4 (910B3): free 0 AI Cores, 3 AI CPUs, 0 MB; existing vNPUs "
                            + "[164, 165, 166, 167]");
              });
      assertThat(manager.dcmi().freeResource(8, 0))
          .isEqualTo(new ChipResources(0f, 3, 0, List.of()));

      manager.destroyVnpu(4, 165);
      manager.destroyVnpu(4, 164);
      assertThat(manager.dcmi().freeResource(8, 0))
          .isEqualTo(new ChipResources(10f, 5, 32768, List.of()));
      assertThat(manager.createVnpu(4, "vir10_3c_32g").vnpuId()).isEqualTo(164);
      assertThat(manager.listVnpus(4)).extracting(Vnpu::vnpuId).containsExactly(164, 166, 167);
      assertThat(manager.listVnpus(4))
          .extracting(Vnpu::templateName)
          .containsExactly("vir10_3c_32g", "vir05_1c_16g", "vir05_1c_16g");
      assertThat(manager.listVnpus(3)).isEmpty();
      assertThat(Files.exists(root.resolve("dev/vdavinci164"))).isTrue();
      assertThat(Files.exists(root.resolve("dev/vdavinci165"))).isFalse();
    }
  }

  @Test
  void destroyingAVnpuInUseFailsWithMinus8020() {
    SimNode node = new SimNode("310P3x4", root);
    try (DcmiDeviceManager manager = node.open()) {
      Vnpu v = manager.createVnpu(1, "vir04_3c");
      assertThat(v).isEqualTo(new Vnpu(116, 1, "vir04_3c", 10763, 4, false));
      node.ctl("use", "1", "116", "1");
      assertThat(manager.listVnpus(1)).singleElement().extracting(Vnpu::inUse).isEqualTo(true);

      assertThatThrownBy(() -> manager.destroyVnpu(1, 116))
          .isInstanceOfSatisfying(
              DcmiException.class,
              e -> {
                assertThat(e.code()).isEqualTo(-8020);
                assertThat(e.getMessage())
                    .endsWith("vNPU 116 on NPU logic 1 is in use by a container");
              });
      node.ctl("use", "1", "116", "0");
      manager.destroyVnpu(1, 116);
      assertThat(manager.listVnpus(1)).isEmpty();
      assertThatThrownBy(() -> manager.destroyVnpu(1, 116))
          .isInstanceOfSatisfying(
              DcmiException.class,
              e -> assertThat(e.getMessage()).endsWith("no vNPU 116 on NPU logic 1"));
    }
  }

  @Test
  void unknownTemplateNamesTheChip() {
    SimNode node = new SimNode("910B4x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      assertThatThrownBy(() -> manager.createVnpu(0, "vir05_1c_16g"))
          .isInstanceOfSatisfying(
              DcmiException.class,
              e -> {
                assertThat(e.code()).isEqualTo(-8001);
                assertThat(e.getMessage())
                    .endsWith(
                        "template 'vir05_1c_16g' is not supported by chip 910B4 on NPU logic 0");
              });
      assertThat(manager.createVnpu(0, "vir10_4c_16g_m").aiCores()).isEqualTo(10);
    }
  }

  @Test
  void a3DieExhaustsAfterFourSixCoreVnpus() {
    SimNode node = new SimNode("A3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      for (int i = 0; i < 4; i++) {
        assertThat(manager.createVnpu(3, "vir06_1c_16g").vnpuId()).isEqualTo(148 + i);
      }
      assertThatThrownBy(() -> manager.createVnpu(3, "vir06_1c_16g"))
          .isInstanceOf(DcmiException.class)
          .hasMessageContaining("free 0 AI Cores");
    }
  }

  @Test
  void concurrentCreatesAreSerialisedAndAdmitExactlyTheChipsCapacity() throws Exception {
    SimNode node = new SimNode("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(8);
      try {
        List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
          results.add(
              pool.submit(
                  () -> {
                    try {
                      return manager.createVnpu(6, "vir05_1c_16g").vnpuId();
                    } catch (DcmiException e) {
                      return e.code();
                    }
                  }));
        }
        List<Integer> outcomes = new java.util.ArrayList<>();
        for (java.util.concurrent.Future<Integer> f : results) {
          outcomes.add(f.get(60, java.util.concurrent.TimeUnit.SECONDS));
        }
        assertThat(outcomes)
            .containsExactlyInAnyOrder(196, 197, 198, 199, -8020, -8020, -8020, -8020);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void anotherProcessSeesTheSameSimulatedHost() {
    SimNode node = new SimNode("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      // a second process creates a vNPU; this JVM sees it
      assertThat(node.ctl("create", "2", "vir10_3c_32g").trim()).isEqualTo("132");
      assertThat(manager.listVnpus(2))
          .containsExactly(new Vnpu(132, 2, "vir10_3c_32g", 32768, 10, false));
      // this JVM creates one; the other process sees it
      manager.createVnpu(2, "vir05_1c_16g");
      assertThat(node.ctl("show").lines().filter(l -> l.startsWith("logic=2 ")).findFirst())
          .hasValueSatisfying(
              l -> assertThat(l).endsWith("vnpus=132:vir10_3c_32g:free,133:vir05_1c_16g:free"));
    }
  }
}
