package io.vnpu.kube.dra.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The socket names, standard and per pod (rolling updates), and the 107-byte bound. */
class PluginSocketsTest {
  static final String UID = "0f2c6a1e-3b4d-4c5e-9f60-718293a4b5c6";
  static final Path REG = Path.of("/var/lib/kubelet/plugins_registry");
  static final Path PLUGINS = Path.of("/var/lib/kubelet/plugins");

  @Test
  void standardNames() {
    PluginSockets s = PluginSockets.of("npu.huawei.com", REG, PLUGINS);
    assertThat(s.registrationSocket()).isEqualTo(REG.resolve("npu.huawei.com-reg.sock"));
    assertThat(s.draSocket()).isEqualTo(PLUGINS.resolve("npu.huawei.com/dra.sock"));
    assertThat(s.dataDir()).isEqualTo(PLUGINS.resolve("npu.huawei.com"));
  }

  @Test
  void rollingUpdateNamesCarryThePodUidAndShareTheDataDirectory() {
    PluginSockets s = PluginSockets.rollingUpdate("npu.huawei.com", REG, PLUGINS, UID);
    assertThat(s.registrationSocket())
        .isEqualTo(REG.resolve("npu.huawei.com-" + UID + "-reg.sock"));
    assertThat(s.draSocket()).isEqualTo(PLUGINS.resolve("npu.huawei.com/dra-" + UID + ".sock"));
    assertThat(s.dataDir()).isEqualTo(PluginSockets.of("npu.huawei.com", REG, PLUGINS).dataDir());
    assertThat(
            PluginSockets.rollingUpdate("npu.huawei.com", REG, PLUGINS, "another-uid")
                .registrationSocket())
        .isNotEqualTo(s.registrationSocket());
  }

  @Test
  void longNamesFallBackToHashesThatFit() {
    String driver = "a".repeat(40) + ".example.com"; // 52 characters
    PluginSockets s = PluginSockets.rollingUpdate(driver, REG, Path.of("/p"), UID);
    // 35 + 52 + 1 + 36 + 9 > 107: the 8-byte hash (11 characters) instead of the UID
    String name = s.registrationSocket().getFileName().toString();
    assertThat(name)
        .startsWith(driver + "-")
        .endsWith("-reg.sock")
        .hasSize(driver.length() + 1 + 11 + 9);
    assertThat(bytes(s.registrationSocket())).isLessThanOrEqualTo(107);

    String longest = "b".repeat(43) + ".example.com"; // 55 characters
    Path deepRegistrar = Path.of("/var/lib/kubelet/" + "r".repeat(30));
    PluginSockets t = PluginSockets.rollingUpdate(longest, deepRegistrar, Path.of("/p"), UID);
    assertThat(t.registrationSocket().getFileName().toString())
        .startsWith("dra-")
        .endsWith("-reg.sock")
        .hasSize(4 + 22 + 9);
    assertThat(bytes(t.registrationSocket())).isLessThanOrEqualTo(107);
    // the same pod always gets the same name, another pod another one
    assertThat(
            PluginSockets.rollingUpdate(longest, deepRegistrar, Path.of("/p"), UID)
                .registrationSocket())
        .isEqualTo(t.registrationSocket());
    assertThat(
            PluginSockets.rollingUpdate(longest, deepRegistrar, Path.of("/p"), "x" + UID)
                .registrationSocket())
        .isNotEqualTo(t.registrationSocket());
  }

  @Test
  void aPathThatCannotFitIsAStartupErrorNamingIt() {
    Path deep = Path.of("/" + "d".repeat(90));
    assertThatThrownBy(() -> PluginSockets.rollingUpdate("npu.huawei.com", deep, PLUGINS, UID))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("registration socket path " + deep)
        .hasMessageContaining("at most 107");
  }

  @Test
  void aPodUidThatIsNoUidIsRefusedNamingTheFlag() {
    assertThatThrownBy(
            () -> PluginSockets.rollingUpdate("npu.huawei.com", REG, PLUGINS, "../../etc"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--pod-uid = \"../../etc\": must be a pod UID (lowercase letters, digits and"
                + " '-', 1 to 64 characters)");
    assertThatThrownBy(() -> PluginSockets.rollingUpdate("npu.huawei.com", REG, PLUGINS, ""))
        .hasMessageStartingWith("--pod-uid = \"\":");
  }

  private static int bytes(Path p) {
    return p.toString().getBytes(StandardCharsets.UTF_8).length;
  }
}
