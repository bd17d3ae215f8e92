package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Npu;
import io.vnpu.api.model.NpuUsage;
import io.vnpu.api.model.Units;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DcmiDiscoveryTest {
  @TempDir Path root;

  static Stream<Arguments> profiles() {
    return Stream.of(
        Arguments.of(
            "910B3x8",
            "910B3",
            65536L,
            20,
            7,
            List.of(0, 1, 2, 3, 8, 9, 10, 11),
            List.of(0, 0, 0, 0, 0, 0, 0, 0),
            List.of(0, 1, 2, 3, 4, 5, 6, 7)),
        Arguments.of(
            "910B4x8",
            "910B4",
            32768L,
            20,
            7,
            List.of(0, 1, 2, 3, 8, 9, 10, 11),
            List.of(0, 0, 0, 0, 0, 0, 0, 0),
            List.of(0, 1, 2, 3, 4, 5, 6, 7)),
        Arguments.of(
            "910A x8",
            "910ProB",
            32768L,
            30,
            14,
            List.of(0, 1, 2, 3, 4, 5, 6, 7),
            List.of(0, 0, 0, 0, 0, 0, 0, 0),
            List.of(4, 5, 6, 7, 0, 1, 2, 3)),
        Arguments.of(
            "310P3x4",
            "310P3",
            21527L,
            8,
            7,
            List.of(1, 3, 5, 7),
            List.of(0, 0, 0, 0),
            List.of(0, 1, 2, 3)),
        Arguments.of(
            "300I-Duo x2",
            "310P3",
            21527L,
            8,
            7,
            List.of(0, 0, 64, 64),
            List.of(0, 1, 0, 1),
            List.of(0, 1, 2, 3)),
        Arguments.of(
            "A3x8",
            "Ascend910",
            65536L,
            24,
            6,
            List.of(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7),
            List.of(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1),
            List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("profiles")
  void discoversEveryChipOfTheProfile(
      String profile,
      String chip,
      long hbmMib,
      int aiCores,
      int aiCpus,
      List<Integer> cards,
      List<Integer> devices,
      List<Integer> phys) {
    SimNode node = new SimNode(profile, root);
    try (DcmiDeviceManager manager = node.open()) {
      List<Npu> npus = manager.discover();

      assertThat(npus).hasSize(cards.size());
      assertThat(npus)
          .extracting(Npu::logicId)
          .containsExactlyElementsOf(Stream.iterate(0, i -> i + 1).limit(cards.size()).toList());
      assertThat(npus).extracting(Npu::cardId).containsExactlyElementsOf(cards);
      assertThat(npus).extracting(Npu::deviceId).containsExactlyElementsOf(devices);
      assertThat(npus).extracting(Npu::phyId).containsExactlyElementsOf(phys);
      assertThat(npus)
          .allSatisfy(
              n -> {
                assertThat(n.chipName()).isEqualTo(chip);
                assertThat(n.hbmBytes()).isEqualTo(hbmMib * Units.MIB);
                assertThat(n.aiCores()).isEqualTo(aiCores);
                assertThat(n.aiCpus()).isEqualTo(aiCpus);
                assertThat(n.health().healthy()).isTrue();
                assertThat(n.uuid()).matches("[0-9A-F]{8}(-[0-9A-F]{8}){4}");
              });
      assertThat(npus).extracting(Npu::uuid).doesNotHaveDuplicates();
      // the UUID is the VDIE die ID, word by word
      Npu last = npus.get(npus.size() - 1);
      assertThat(last.uuid())
          .isEqualTo(
              DcmiDeviceManager.uuid(
                  manager.dcmi().dieId(last.cardId(), last.deviceId(), Dcmi.VDIE)));
    }
  }

  @Test
  void idConversionsAgreeAndBusIdIsFormatted() {
    SimNode node = new SimNode("910Ax8", root);
    try (DcmiDeviceManager manager = node.open()) {
      Dcmi dcmi = manager.dcmi();
      assertThat(dcmi.cardList()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
      assertThat(dcmi.logicIdOfPhy(4)).isZero();
      assertThat(dcmi.phyId(0)).isEqualTo(4);
      assertThat(dcmi.cardDevice(5)).isEqualTo(new CardDevice(5, 0));
      assertThat(dcmi.logicId(5, 0)).isEqualTo(5);
      assertThat(dcmi.pcieInfo(0, 0)).get().extracting(PcieInfo::busId).isEqualTo("0000:41:00.0");
      assertThat(dcmi.chipInfo(0, 0).npuName()).isEqualTo("Ascend910ProB");
      assertThat(dcmi.boardId(0, 0)).hasValue(0x20);
      assertThat(dcmi.affinityCpus(7, 0)).hasValue("24-47");
      assertThat(dcmi.processMemory(0, 0)).hasValue(List.of());
      assertThat(dcmi.health(0, 0)).isZero();
    }
  }

  @Test
  void memoryUseComesFromTheSharedHbmCounters() throws Exception {
    SimNode node = new SimNode("910B4x8", root);
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(
            root.resolve("hbm.bin"),
            java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.READ,
            java.nio.file.StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer buf =
          java.nio.ByteBuffer.allocate(16 * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      buf.putLong(3 * 8, 5000L * Units.MIB);
      ch.write(buf, 0);
    }
    node.ctl("util", "3", "37");
    try (DcmiDeviceManager manager = node.open()) {
      assertThat(manager.usage(3)).isEqualTo(new NpuUsage(5000L * Units.MIB, 37));
      assertThat(manager.usage(2)).isEqualTo(new NpuUsage(0, 0));
    }
  }

  @Test
  void ddrChipsReportMemoryThroughMemoryInfo() {
    SimNode node = new SimNode("310P3x4", root);
    try (DcmiDeviceManager manager = node.open()) {
      assertThat(manager.dcmi().hbmInfo(1, 0)).isEmpty();
      assertThat(manager.dcmi().memoryInfo(1, 0)).hasValue(new MemoryInfo(21527, 0));
    }
  }
}
