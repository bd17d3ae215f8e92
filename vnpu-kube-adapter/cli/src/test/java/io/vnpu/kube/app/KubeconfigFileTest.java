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

  /**
   * {@code KUBECONFIG=a:b}, as kubectl reads it: merged, the first file's current context and
   * entries win; a file without a current context of its own is fine in a list.
   */
  @Test
  void aListIsMergedAsKubectlMergesIt() throws Exception {
    Path first = kubeconfig();
    Path second =
        Files.writeString(
            dir.resolve("second"),
            String.join(
                "\n",
                "apiVersion: v1",
                "kind: Config",
                "current-context: other",
                "clusters:",
                "- name: k",
                "  cluster:",
                "    server: http://127.0.0.9:6443",
                "- name: k2",
                "  cluster:",
                "    server: http://127.0.0.2:6443",
                "contexts:",
                "- name: other",
                "  context:",
                "    cluster: k2",
                "    user: u",
                ""));
    Path credentialsOnly =
        Files.writeString(
            dir.resolve("creds"),
            "apiVersion: v1\nkind: Config\nusers:\n- name: u2\n  user:\n    token: t2\n");
    String list = first + ":" + second + "::" + credentialsOnly;
    Config c = KubeconfigFile.load(Optional.empty(), Map.of("KUBECONFIG", list));
    assertThat(c.getCurrentContext().getName()).isEqualTo("c");
    assertThat(c.getMasterUrl()).startsWith("http://127.0.0.1:6443"); // k of the first file wins
    assertThat(c.getContexts()).extracting(n -> n.getName()).contains("c", "other");
    assertThat(KubeconfigFile.problem(Map.of("KUBECONFIG", list))).isEmpty();
    // the second first: its current context
    Config swapped =
        KubeconfigFile.load(Optional.empty(), Map.of("KUBECONFIG", second + ":" + first));
    assertThat(swapped.getMasterUrl()).startsWith("http://127.0.0.2:6443");
    // --kubeconfig names one file, as kubectl's does, whatever KUBECONFIG says
    assertThat(
            KubeconfigFile.load(Optional.of(second), Map.of("KUBECONFIG", first.toString()))
                .getMasterUrl())
        .startsWith("http://127.0.0.2:6443");
  }

  @Test
  void aListWithoutACurrentContextOrWithGarbageIsOneLine() throws Exception {
    Path creds =
        Files.writeString(
            dir.resolve("creds"),
            "apiVersion: v1\nkind: Config\nusers:\n- name: u2\n  user:\n    token: t2\n");
    Path garbage = Files.writeString(dir.resolve("garbage"), "{[: not yaml");
    String noContext = creds + ":" + creds;
    assertThatThrownBy(() -> KubeconfigFile.load(Optional.empty(), Map.of("KUBECONFIG", noContext)))
        .hasMessage(
            "KUBECONFIG="
                + noContext
                + ": not a kubeconfig file, or its current-context names no context");
    String bad = kubeconfig() + ":" + garbage;
    assertThatThrownBy(() -> KubeconfigFile.load(Optional.empty(), Map.of("KUBECONFIG", bad)))
        .hasMessageStartingWith("KUBECONFIG=" + bad + ": " + garbage + ": not a kubeconfig file")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> KubeconfigFile.load(Optional.empty(), Map.of("KUBECONFIG", ":")))
        .hasMessage("KUBECONFIG=:: names no file");
  }
}
