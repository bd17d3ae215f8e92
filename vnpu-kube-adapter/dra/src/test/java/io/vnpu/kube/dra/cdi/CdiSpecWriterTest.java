package io.vnpu.kube.dra.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecWriterTest {

  static final CdiKind KIND = CdiKind.of("npu.huawei.com", "npu");
  static final String UID = "0c8e5f7a-1b2c-4d3e-8f90-a1b2c3d4e5f6";

  @TempDir Path tmp;

  static CdiSpec spec(String deviceName, CdiDeviceNode node) {
    return new CdiSpec(
        "ignored",
        KIND.kind(),
        List.of(
            new CdiDevice(
                deviceName,
                new CdiContainerEdits(
                    List.of("ASCEND_VISIBLE_DEVICES=3"), List.of(node), List.of()))),
        new CdiContainerEdits(
            List.of("NPU_DRA_CLAIM_UID=" + UID),
            List.of(),
            List.of(new CdiMount("/usr/local/dcmi", "/usr/local/dcmi", CdiMount.READ_ONLY_BIND))));
  }

  @Test
  void writesOneFilePerClaimWithTheMinimumVersionAndExactContent() throws Exception {
    CdiSpecWriter w = new CdiSpecWriter(tmp.resolve("cdi"), KIND);
    CdiDeviceNode node = new CdiDeviceNode("/dev/davinci3", null, "c", 236L, 3L, "rwm");
    Path file = w.write(UID, spec(UID + "-npu-3", node));

    assertThat(file.getFileName().toString()).isEqualTo("npu.huawei.com-npu_" + UID + ".json");
    String text = Files.readString(file);
    // a device name starting with a digit needs 0.5.0
    assertThat(text).contains("\"cdiVersion\" : \"0.5.0\"");
    assertThat(w.read(UID)).isEqualTo(spec(UID + "-npu-3", node).withVersion("0.5.0"));
    assertThat(CdiSchema.violations(Files.readAllBytes(file))).isEmpty();
    assertThat(Files.getPosixFilePermissions(file)).hasSize(4); // rw-r--r--
    try (var s = Files.list(tmp.resolve("cdi"))) {
      assertThat(s.map(p -> p.getFileName().toString()).toList())
          .containsExactly("npu.huawei.com-npu_" + UID + ".json");
    }
    assertThat(w.claimUids()).containsExactly(UID);
  }

  @Test
  void versionIsThreeWhenNothingNeedsMore() {
    CdiSpec s = spec("npu-3", new CdiDeviceNode("/dev/davinci3", null, null, null, null, "rwm"));
    assertThat(CdiVersion.minimumFor(s)).isEqualTo("0.3.0");
    CdiSpec withHostPath =
        spec(
            "npu-3",
            new CdiDeviceNode("/dev/davinci3", "/tmp/dev/davinci3", null, null, null, "rwm"));
    assertThat(CdiVersion.minimumFor(withHostPath)).isEqualTo("0.5.0");
    String json = new String(new CdiSpecWriter(tmp, KIND).render(s), StandardCharsets.UTF_8);
    assertThat(json).contains("\"cdiVersion\" : \"0.3.0\"");
    assertThat(CdiSchema.violations(json.getBytes(StandardCharsets.UTF_8))).isEmpty();
  }

  @Test
  void schemaRejectsWhatARuntimeWouldReject() {
    byte[] bad =
        "{\"cdiVersion\":\"0.5.0\",\"kind\":\"npu.huawei.com/npu\",\"devices\":[{\"name\":\"x\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"dev/davinci0\"}]}}],\"extra\":1}"
            .getBytes(StandardCharsets.UTF_8);
    assertThat(CdiSchema.violations(bad)).hasSize(2);
  }

  @Test
  void replaceAndDeleteLeaveNoTemporaryFiles() throws Exception {
    Path root = tmp.resolve("cdi");
    CdiSpecWriter w = new CdiSpecWriter(root, KIND);
    CdiDeviceNode node = new CdiDeviceNode("/dev/davinci3", null, null, null, null, "rwm");
    w.write(UID, spec("a-npu-3", node));
    w.write(UID, spec("b-npu-3", node));
    assertThat(w.read(UID).devices().get(0).name()).isEqualTo("b-npu-3");
    w.delete(UID);
    w.delete(UID); // missing is fine
    assertThat(w.exists(UID)).isFalse();
    try (var s = Files.list(root)) {
      assertThat(s.toList()).isEmpty();
    }
  }

  @Test
  void deleteRemovesALinkNotItsTarget() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("cdi"));
    Path victim = Files.writeString(tmp.resolve("victim"), "keep");
    CdiSpecWriter w = new CdiSpecWriter(root, KIND);
    Files.createSymbolicLink(w.specPath(UID), victim);
    w.delete(UID);
    assertThat(Files.exists(w.specPath(UID), java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.readString(victim)).isEqualTo("keep");
  }

  @Test
  void kindNamesAndFileNames() {
    assertThat(KIND.kind()).isEqualTo("npu.huawei.com/npu");
    assertThat(KIND.qualify("u-npu-0")).isEqualTo("npu.huawei.com/npu=u-npu-0");
    assertThat(KIND.claimUidOf("npu.huawei.com-npu_abc.json")).isEqualTo("abc");
    assertThat(KIND.claimUidOf("npu.huawei.com-npu_.json")).isNull();
    assertThat(KIND.claimUidOf("other-npu_abc.json")).isNull();
    assertThat(KIND.claimUidOf(".npu.huawei.com-npu_abc.json.1a2b.tmp")).isNull();
    assertThatThrownBy(() -> KIND.qualify("-bad")).hasMessage("invalid CDI device name '-bad'");
    assertThatThrownBy(() -> CdiKind.of("npu.huawei.com", "n.pu"))
        .hasMessage("invalid CDI class 'n.pu'");
  }
}
