package io.vnpu.kube.hami.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Conformance vectors of protocol spec section 8 that concern the pure codecs. */
class ConformanceCodecTest {
  private static final String U0 = "0A1B2C3D-00000000-4E5F6071-00000000-8293A4B5";
  private static final String U1 = "1A1B2C3D-00000000-4E5F6071-00000000-8293A4B5";

  // vector 1
  @ParameterizedTest
  @ValueSource(
      strings = {
        "Ascend910A",
        "Ascend910B2",
        "Ascend910B3",
        "Ascend910B4-1",
        "Ascend910B4",
        "Ascend310P",
        "Ascend910C"
      })
  void namingFollowsCommonWord(String cw) {
    HamiNames n = new HamiNames(cw);
    assertThat(n.nodeRegister()).isEqualTo("hami.io/node-register-" + cw);
    assertThat(n.nodeHandshake()).isEqualTo("hami.io/node-handshake-" + cw);
    assertThat(n.runtimeInfo()).isEqualTo("huawei.com/" + cw);
    assertThat(n.devicesToAllocate()).isEqualTo("hami.io/" + cw + "-devices-to-allocate");
    assertThat(n.socketName()).isEqualTo(cw + ".sock");
  }

  // vector 2
  @ParameterizedTest
  @CsvSource({
    "0,Ascend910A,0",
    "5,Ascend910A,1",
    "0,Ascend910B,0",
    "3,Ascend910B,0",
    "4,Ascend910B,1",
    "100,Ascend910B,1",
    "0,Ascend910C,0",
    "4,Ascend910C,0",
    "100,Ascend910C,0"
  })
  void networkIdByIndexAndType(int index, String type, int expected) {
    assertThat(NetworkId.of(type, index)).isEqualTo(OptionalInt.of(expected));
  }

  @Test
  void networkIdOfFiveAscend910BAndNoneFor310P() throws Exception {
    RegisterAnnotationCodec codec = new RegisterAnnotationCodec(true);
    List<RegisterDevice> five =
        List.of(0, 1, 2, 3, 4).stream()
            .map(i -> RegisterDevice.ascend("u" + i, i, 1, 100, 1, "Ascend910B", true))
            .toList();
    assertThat(codec.decode(codec.encode(five)))
        .extracting(d -> d.networkId().getAsInt())
        .containsExactly(0, 0, 0, 0, 1);
    String p =
        codec.encode(List.of(RegisterDevice.ascend("u", 0, 7, 21527, 8, "Ascend310P", true)));
    assertThat(p)
        .isEqualTo(
            "[{\"id\":\"u\",\"count\":7,\"devmem\":21527,\"devcore\":8,\"type\":\"Ascend310P\","
                + "\"health\":true,\"devicepairscore\":{}}]");
  }

  // section 2.2: exact bytes, 2 healthy 910B3, hard-split node
  @Test
  void registerAnnotationIsByteExact() {
    String json =
        new RegisterAnnotationCodec(true)
            .encode(
                List.of(
                    RegisterDevice.ascend(U0, 0, 4, 65536, 20, "Ascend910B3", true),
                    RegisterDevice.ascend(U1, 1, 4, 65536, 20, "Ascend910B3", true)));
    assertThat(json)
        .isEqualTo(
            "[{\"id\":\""
                + U0
                + "\",\"count\":4,\"devmem\":65536,\"devcore\":20,"
                + "\"type\":\"Ascend910B3\",\"health\":true,\"custominfo\":{\"NetworkID\":0},\"devicepairscore\":{}},"
                + "{\"id\":\""
                + U1
                + "\",\"index\":1,\"count\":4,\"devmem\":65536,\"devcore\":20,"
                + "\"type\":\"Ascend910B3\",\"health\":true,\"custominfo\":{\"NetworkID\":0},\"devicepairscore\":{}}]");
  }

  @Test
  void registerOmitsFalseHealthZeroCountAndPairScoreOfNewerHami() {
    String json =
        new RegisterAnnotationCodec(false)
            .encode(List.of(RegisterDevice.ascend("u<1>", 0, 0, 32768, 30, "Ascend910", false)));
    assertThat(json)
        .isEqualTo(
            "[{\"id\":\"u\\u003c1\\u003e\",\"devmem\":32768,\"devcore\":30,"
                + "\"type\":\"Ascend910\",\"custominfo\":{\"NetworkID\":0}}]");
    assertThat(new RegisterAnnotationCodec(true).encode(List.of())).isEqualTo("[]");
  }

  @Test
  void registerDecodesCaseInsensitivelyIgnoringUnknownKeys() throws Exception {
    List<RegisterDevice> d =
        new RegisterAnnotationCodec(true)
            .decode(
                "[{\"ID\":\"Ascend910B-0\",\"Count\":1,\"DevMem\":65536,\"devcore\":20,\"Type\":\"Ascend910B\","
                    + "\"Health\":true,\"extra\":[1]},{\"index\":1,\"id\":\"Ascend910B-1\",\"CustomInfo\":{\"networkid\":1}}]");
    assertThat(d).hasSize(2);
    assertThat(d.get(0))
        .isEqualTo(
            new RegisterDevice(
                "Ascend910B-0",
                0,
                1,
                65536,
                20,
                "Ascend910B",
                0,
                "",
                true,
                "",
                OptionalInt.empty()));
    assertThat(d.get(1).index()).isEqualTo(1);
    assertThat(d.get(1).networkId()).isEqualTo(OptionalInt.of(1));
    assertThatThrownBy(() -> new RegisterAnnotationCodec(true).decode("[{\"count\":\"four\"}]"))
        .isInstanceOf(HamiFormatException.class)
        .hasMessageContaining("count")
        .hasMessageContaining("four");
  }

  // vector 3 (handshake part)
  @Test
  void handshakeUsesGoLayoutPlusOffset() {
    Instant now = Instant.parse("2026-07-24T10:15:30Z");
    assertThat(Handshake.reported(now, Duration.ofSeconds(1), ZoneOffset.UTC))
        .isEqualTo("Reported_2026.07.24 10:15:31");
    assertThat(Handshake.reported(now, Duration.ZERO, ZoneOffset.ofHours(8)))
        .isEqualTo("Reported_2026.07.24 18:15:30");
    assertThat(Handshake.reported(now, Duration.ZERO, ZoneOffset.UTC))
        .matches("Reported_\\d{4}\\.\\d{2}\\.\\d{2} \\d{2}:\\d{2}:\\d{2}");
    assertThat(Handshake.isRequesting("Requesting_2128-12-02 00:00:00")).isTrue();
    assertThat(Handshake.isRequesting("Reported_2026.07.24 10:15:31")).isFalse();
  }

  // vector 7
  @Test
  void popOfEmptyPodFails() throws Exception {
    DevicesToAllocateCodec codec = new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY);
    assertThatThrownBy(() -> new PodDevices(List.of()).pop())
        .hasMessage("no pending device allocation found");
    assertThatThrownBy(() -> codec.decode(";;;").pop())
        .hasMessage("no pending device allocation found");
    PodDevices three =
        new PodDevices(
            List.of(List.of(), List.of(dev("uuid2", 2048, 8)), List.of(dev("uuid3", 1, 1))));
    assertThat(three.pop().container().devices().get(0).uuid()).isEqualTo("uuid2");
    assertThat(three.pop().container().index()).isEqualTo(1);
  }

  @Test
  void decodeThenPopThreeTimes() throws Exception {
    PodDevices p =
        new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY)
            .decode(";uuid1,Ascend910,1024,4:;uuid2,Ascend910,2048,8:;");
    PodDevices.Popped a = p.pop();
    assertThat(a.container()).isEqualTo(new PendingContainer(1, List.of(dev("uuid1", 1024, 4))));
    PodDevices.Popped b = a.remaining().pop();
    assertThat(b.container()).isEqualTo(new PendingContainer(2, List.of(dev("uuid2", 2048, 8))));
    assertThat(DevicesToAllocateCodec.encode(b.remaining())).isEqualTo(";;;");
    assertThatThrownBy(() -> b.remaining().pop()).hasMessage("no pending device allocation found");
  }

  @Test
  void bothDecodeVariants() throws Exception {
    String v = ";uuid1,Ascend910,1024,4:;";
    assertThat(new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY).decode(v).containers())
        .containsExactly(List.of(), List.of(dev("uuid1", 1024, 4)));
    assertThat(new DevicesToAllocateCodec(DecodeVariant.SKIP_EMPTY).decode(v).containers())
        .containsExactly(List.of(dev("uuid1", 1024, 4)));
    // re-encoding does not grow the annotation (bug 9.10)
    PodDevices once =
        new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY).decode("uuid1,Ascend910,1024,4:;");
    String after = DevicesToAllocateCodec.encode(once.pop().remaining());
    assertThat(after).isEqualTo(";");
    assertThat(
            DevicesToAllocateCodec.encode(
                new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY).decode(after)))
        .isEqualTo(";");
  }

  // vector 9 and section 3.2 examples
  @Test
  void encodeExamplesOfSection32() throws Exception {
    PodDevices two =
        new PodDevices(List.of(List.of(dev("uuid1", 1024, 4)), List.of(dev("uuid2", 2048, 8))));
    String s = DevicesToAllocateCodec.encode(two);
    assertThat(s).isEqualTo("uuid1,Ascend910,1024,4:;uuid2,Ascend910,2048,8:;");
    assertThat(new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY).decode(s).containers())
        .hasSize(2)
        .allSatisfy(c -> assertThat(c).hasSize(1));
    String multi = "U0,Ascend910B3,65536,0:U1,Ascend910B3,65536,0:;";
    assertThat(
            new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY)
                .decode(multi)
                .containers()
                .get(0))
        .containsExactly(
            new ContainerDevice("U0", "Ascend910B3", 65536, 0),
            new ContainerDevice("U1", "Ascend910B3", 65536, 0));
    assertThat(
            DevicesToAllocateCodec.encode(
                new PodDevices(
                    List.of(List.of(new ContainerDevice("device-0", "Ascend", 8738, 1))))))
        .isEqualTo("device-0,Ascend,8738,1:;");
  }

  @Test
  void decodeErrorsNameTheProblem() {
    DevicesToAllocateCodec c = new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY);
    assertThatThrownBy(() -> c.decode("uuid1,Ascend910,1024:;"))
        .hasMessageStartingWith(
            "pod annotation format error, missing fields, do not use nodeName in task spec")
        .hasMessageContaining("uuid1,Ascend910,1024");
    assertThatThrownBy(() -> c.decode("uuid1,Ascend910,1k,4:;"))
        .hasMessageContaining("usedmem")
        .hasMessageContaining("\"1k\"");
  }

  // vector 8
  @Test
  void runtimeInfoLookup() throws Exception {
    RuntimeInfoCodec c = new RuntimeInfoCodec();
    assertThatThrownBy(() -> c.decode("huawei.com/Ascend910", Optional.empty()))
        .hasMessage("annotation huawei.com/Ascend910 not set");
    assertThatThrownBy(() -> c.decode("huawei.com/Ascend910", Optional.of("not-json")))
        .hasMessageContaining("invalid")
        .hasMessageContaining("not-json")
        .hasCauseInstanceOf(tools.jackson.core.JacksonException.class);
    Map<String, RuntimeInfo> m =
        c.decode(
            "huawei.com/Ascend910",
            Optional.of(
                "[{\"UUID\":\"\",\"temp\":\"vir01\"},{\"uuid\":\"uuid1\",\"TEMP\":\"vir02\",\"Memory\":1024}]"));
    assertThat(m).containsOnlyKeys("uuid1");
    assertThat(m.get("uuid1"))
        .isEqualTo(new RuntimeInfo("uuid1", "vir02", OptionalInt.of(1024), OptionalInt.empty()));
  }

  // section 3.3: three generations, and the HAMi PatchAnnotations vectors
  @Test
  void runtimeInfoGenerations() throws Exception {
    String u = "U";
    assertThat(
            RuntimeInfoCodec.encode(
                List.of(RuntimeInfoGeneration.V2_8.entry(u, "vir05_1c_16g", 16384, 0, false))))
        .isEqualTo("[{\"UUID\":\"U\",\"temp\":\"vir05_1c_16g\"}]");
    assertThat(
            RuntimeInfoCodec.encode(
                List.of(RuntimeInfoGeneration.V2_9.entry(u, "vir05_1c_16g", 16384, 0, false))))
        .isEqualTo("[{\"UUID\":\"U\",\"temp\":\"vir05_1c_16g\"}]");
    assertThat(
            RuntimeInfoCodec.encode(
                List.of(RuntimeInfoGeneration.V2_9.entry(u, "", 28672, 40, true))))
        .isEqualTo("[{\"UUID\":\"U\",\"memory\":28672,\"core\":40}]");
    assertThat(
            RuntimeInfoCodec.encode(
                List.of(RuntimeInfoGeneration.V2_10.entry(u, "vir05_1c_16g", 16384, 0, false))))
        .isEqualTo("[{\"UUID\":\"U\",\"temp\":\"vir05_1c_16g\",\"memory\":16384}]");
    assertThat(
            RuntimeInfoCodec.encode(
                List.of(RuntimeInfoGeneration.V2_10.entry(u, "", 28672, 40, true))))
        .isEqualTo("[{\"UUID\":\"U\",\"memory\":28672,\"core\":40}]");
    assertThat(
            RuntimeInfoCodec.encode(
                List.of(RuntimeInfoGeneration.V2_10.entry("device-0", "vir08", 8738, 1, false))))
        .isEqualTo("[{\"UUID\":\"device-0\",\"temp\":\"vir08\",\"memory\":8738,\"core\":1}]");
    String soft =
        RuntimeInfoCodec.encode(List.of(RuntimeInfoGeneration.V2_10.entry("d", "", 8192, 5, true)));
    assertThat(soft).contains("\"core\":5").contains("\"memory\":8192").doesNotContain("temp");
    assertThat(
            RuntimeInfoCodec.encode(
                List.of(RuntimeInfoGeneration.V2_10.entry("d", "", 8192, 0, true))))
        .doesNotContain("core");
    // every generation's output decodes to the same device map keys
    for (String v :
        List.of(
            "[{\"UUID\":\"U\",\"temp\":\"vir05_1c_16g\"}]",
            "[{\"UUID\":\"U\",\"temp\":\"vir05_1c_16g\",\"memory\":16384}]",
            "[{\"UUID\":\"U\",\"memory\":28672,\"core\":40}]")) {
      assertThat(new RuntimeInfoCodec().decode("k", Optional.of(v))).containsOnlyKeys("U");
    }
  }

  @Test
  void nodeLockFormats() throws Exception {
    NodeLock l = NodeLock.parse("2024-01-01T00:00:00Z,default,test-pod");
    assertThat(l.owner()).contains("default/test-pod");
    assertThat(l.value()).isEqualTo("2024-01-01T00:00:00Z,default,test-pod");
    assertThat(NodeLock.parse("2024-01-01T00:00:00Z").owner()).isEmpty();
    assertThatThrownBy(() -> NodeLock.parse("yesterday,default,p"))
        .hasMessageContaining("\"yesterday\"");
    assertThatThrownBy(() -> NodeLock.parse("2024-01-01T00:00:00Z,default"))
        .hasMessageContaining("hami.io/mutex.lock");
  }

  private static ContainerDevice dev(String uuid, int mem, int core) {
    return new ContainerDevice(uuid, "Ascend910", mem, core);
  }
}
