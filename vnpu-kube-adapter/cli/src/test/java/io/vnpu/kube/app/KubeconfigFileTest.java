package io.vnpu.kube.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A kubeconfig named by {@code --kubeconfig} or {@code KUBECONFIG} that cannot be used. */
class KubeconfigFileTest {
  @TempDir Path dir;

  private Path kubeconfig() throws Exception {
    return Files.writeString(
        dir.resolve("kubeconfig"),
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "current-context: c",
            "clusters:",
            "- name: k",
            "  cluster:",
            "    server: http://127.0.0.1:6443",
            "contexts:",
            "- name: c",
            "  context:",
            "    cluster: k",
            "    user: u",
            "users:",
            "- name: u",
            "  user:",
            "    token: t",
            ""));
  }

  @Test
  void aKubeconfigIsLoaded() throws Exception {
    Config c = KubeconfigFile.load(Optional.of(kubeconfig()));
    assertThat(c.getMasterUrl()).startsWith("http://127.0.0.1:6443");
    assertThat(KubeconfigFile.problem(Map.of("KUBECONFIG", kubeconfig().toString()))).isEmpty();
  }

  @Test
  void aMissingFileIsOneLineNamingIt() {
    Path missing = dir.resolve("kube-config");
    assertThatThrownBy(() -> KubeconfigFile.load(Optional.of(missing)))
        .hasMessage("--kubeconfig " + missing + ": no such file");
    assertThat(KubeconfigFile.problem(Map.of("KUBECONFIG", missing.toString())))
        .contains("KUBECONFIG=" + missing + ": no such file");
  }

  @Test
  void aMissingFileInAListIsNamed() throws Exception {
    Path missing = dir.resolve("kube-config");
    String value = kubeconfig() + ":" + missing;
    assertThat(KubeconfigFile.problem(Map.of("KUBECONFIG", value)))
        .contains("KUBECONFIG=" + value + ": " + missing + ": no such file");
  }

  @Test
  void aDirectoryIsOneLine() {
    assertThatThrownBy(() -> KubeconfigFile.load(Optional.of(dir)))
        .hasMessage("--kubeconfig " + dir + ": is a directory, not a kubeconfig file");
  }

  @Test
  void aYamlFileThatIsNoKubeconfigIsOneLine() throws Exception {
    Path deviceConfig =
        Files.writeString(dir.resolve("device-config.yaml"), "vnpus:\n  configs: []\n");
    assertThatThrownBy(() -> KubeconfigFile.load(Optional.of(deviceConfig)))
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .startsWith("--kubeconfig " + deviceConfig + ": not a kubeconfig file")
        .doesNotContain("\n");
    Path garbage = Files.writeString(dir.resolve("garbage"), "{[: not yaml");
    assertThatThrownBy(() -> KubeconfigFile.load(Optional.of(garbage)))
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .startsWith("--kubeconfig " + garbage + ": not a kubeconfig file")
        .doesNotContain("\n");
  }

  @Test
  void nothingNamedIsNoProblem() {
    assertThat(KubeconfigFile.problem(Map.of())).isEmpty();
    assertThat(KubeconfigFile.problem(Map.of("KUBECONFIG", ""))).isEmpty();
  }
}
