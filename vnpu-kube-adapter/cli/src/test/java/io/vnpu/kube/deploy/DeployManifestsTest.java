package io.vnpu.kube.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.config.NodeConfig;
import io.vnpu.api.config.NodeConfigLoader;
import io.vnpu.api.testing.HamiFixtures;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plain manifest {@code deploy/manifests/hami.yaml} (rendered from the Helm chart, see {@link
 * HelmChartTest}): accepted by kubectl, and the fields the agent relies on.
 */
class DeployManifestsTest {

  private static KubernetesClient client;
  private static List<HasMetadata> objects;

  @TempDir Path tmp;

  @BeforeAll
  static void load() throws IOException {
    client = new KubernetesClientBuilder().build();
    objects = new ArrayList<>();
    for (Path f : manifests()) {
      try (InputStream in = Files.newInputStream(f)) {
        objects.addAll(client.load(in).items());
      }
    }
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  static Path deployDir() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("deploy/helm/vnpu/Chart.yaml"))) {
        return d.resolve("deploy");
      }
    }
    throw new IllegalStateException(
        "no deploy/helm/vnpu/Chart.yaml above " + Path.of("").toAbsolutePath());
  }

  static List<Path> manifests() {
    return List.of(deployDir().resolve("manifests/hami.yaml"));
  }

  private static <T extends HasMetadata> T one(Class<T> type, String name) {
    List<T> found =
        objects.stream()
            .filter(type::isInstance)
            .map(type::cast)
            .filter(o -> o.getMetadata().getName().equals(name))
            .toList();
    assertThat(found).as("%s %s in deploy/", type.getSimpleName(), name).hasSize(1);
    return found.get(0);
  }

  private static Optional<Path> kubectl() {
    return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        .map(d -> Path.of(d, "kubectl"))
        .filter(Files::isExecutable)
        .findFirst();
  }

  @Test
  void kubectlClientDryRunAcceptsEveryManifest() throws Exception {
    Optional<Path> kubectl = kubectl();
    if (kubectl.isEmpty()) {
      System.out.println("kubectl is not on PATH: skipping the kubectl dry-run check");
    }
    assumeThat(kubectl).as("kubectl on PATH").isPresent();
    try (DiscoveryStub api = new DiscoveryStub()) {
      Path kubeconfig = tmp.resolve("kubeconfig");
      Files.writeString(
          kubeconfig,
          String.join(
              "\n",
              "apiVersion: v1",
              "kind: Config",
              "current-context: stub",
              "clusters:",
              "- name: stub",
              "  cluster:",
              "    server: " + api.url(),
              "contexts:",
              "- name: stub",
              "  context:",
              "    cluster: stub",
              "    user: stub",
              "users:",
              "- name: stub",
              "  user: {}",
              ""));
      Process p =
          new ProcessBuilder(
                  kubectl.get().toString(),
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "apply",
                  "--dry-run=client",
                  "--validate=false",
                  "-f",
                  deployDir().resolve("manifests/hami.yaml").toString())
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("kubectl output:%n%s", out).isZero();
      assertThat(out.lines().toList())
          .containsExactlyInAnyOrder(
              "daemonset.apps/vnpu-device-plugin created (dry run)",
              "configmap/hami-scheduler-device created (dry run)",
              "configmap/hami-device-node-config created (dry run)",
              "serviceaccount/vnpu-device-plugin created (dry run)",
              "clusterrole.rbac.authorization.k8s.io/vnpu-device-plugin created (dry run)",
              "clusterrolebinding.rbac.authorization.k8s.io/vnpu-device-plugin created (dry run)",
              "runtimeclass.node.k8s.io/ascend created (dry run)",
              "service/vnpu-device-plugin-metrics created (dry run)",
              "validatingadmissionpolicy.admissionregistration.k8s.io/vnpu-device-plugin-hami-allocation created (dry run)",
              "validatingadmissionpolicybinding.admissionregistration.k8s.io/vnpu-device-plugin-hami-allocation created"
                  + " (dry run)");
      // kubectl looked every object up (and found none) instead of failing on discovery.
      assertThat(api.requests())
          .contains("GET /apis/apps/v1/namespaces/kube-system/daemonsets/vnpu-device-plugin");
    }
  }

  @Test
  void everyManifestParsesWithFabric8() {
    assertThat(objects)
        .extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "DaemonSet/vnpu-device-plugin",
            "ConfigMap/hami-scheduler-device",
            "ConfigMap/hami-device-node-config",
            "ServiceAccount/vnpu-device-plugin",
            "ClusterRole/vnpu-device-plugin",
            "ClusterRoleBinding/vnpu-device-plugin",
            "RuntimeClass/ascend",
            "Service/vnpu-device-plugin-metrics",
            "ValidatingAdmissionPolicy/vnpu-device-plugin-hami-allocation",
            "ValidatingAdmissionPolicyBinding/vnpu-device-plugin-hami-allocation");
  }

  @Test
  void daemonSetPassesBothConfigFilesAndMountsTheKubeletDirectory() {
    DaemonSet ds = one(DaemonSet.class, "vnpu-device-plugin");
    assertThat(ds.getMetadata().getNamespace()).isEqualTo("kube-system");
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    assertThat(pod.getServiceAccountName()).isEqualTo("vnpu-device-plugin");
    assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
    assertThat(pod.getNodeSelector()).containsEntry("ascend", "on");
    assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("hami.io/webhook", "ignore")
        .containsAllEntriesOf(ds.getSpec().getSelector().getMatchLabels());

    Container c = pod.getContainers().get(0);
    assertThat(c.getCommand()).containsExactly("vnpu", "plugin");
    assertThat(c.getArgs())
        .containsExactly(
            "--config_file=/device-config.yaml",
            "--node_config_file=/node-config.yaml",
            "--kubelet-dir=/var/lib/kubelet/device-plugins",
            "--check_idle_vnpu_interval=60",
            "--limiter-dir=/usr/local/hami-vnpu-core",
            "--limiter-assets=/usr/local/hami-vnpu-core-assets",
            "--install-limiter",
            "--metrics-port=9395");
    assertThat(c.getSecurityContext().getPrivileged()).isTrue();
    assertThat(c.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("NODE_NAME");
              assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
            });

    assertThat(mount(c, "/var/lib/kubelet/device-plugins").getReadOnly())
        .isNotEqualTo(Boolean.TRUE);
    assertThat(volume(pod, mount(c, "/var/lib/kubelet/device-plugins")).getHostPath().getPath())
        .isEqualTo("/var/lib/kubelet/device-plugins");
    VolumeMount nodeConfig = mount(c, "/node-config.yaml");
    assertThat(nodeConfig.getSubPath()).isEqualTo("node-config.yaml");
    assertThat(volume(pod, nodeConfig).getConfigMap().getName())
        .isEqualTo("hami-device-node-config");
    VolumeMount deviceConfig = mount(c, "/device-config.yaml");
    assertThat(deviceConfig.getSubPath()).isEqualTo("device-config.yaml");
    assertThat(volume(pod, deviceConfig).getConfigMap().getName())
        .isEqualTo("hami-scheduler-device");
    assertThat(volume(pod, mount(c, "/usr/local/Ascend/driver")).getHostPath().getPath())
        .isEqualTo("/usr/local/Ascend/driver");
    assertThat(mount(c, "/usr/local/Ascend/driver").getReadOnly()).isTrue();
    assertThat(volume(pod, mount(c, "/usr/local/hami-vnpu-core")).getHostPath().getPath())
        .isEqualTo("/usr/local/hami-vnpu-core");
    // per-container regions live at the agent's HOOK_PATH default, outside the limiter directory
    assertThat(volume(pod, mount(c, "/var/lib/vnpu/hami")).getHostPath().getPath())
        .isEqualTo("/var/lib/vnpu/hami");
  }

  private static VolumeMount mount(Container c, String path) {
    return c.getVolumeMounts().stream()
        .filter(m -> m.getMountPath().equals(path))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume mount at " + path));
  }

  private static Volume volume(PodSpec pod, VolumeMount m) {
    return pod.getVolumes().stream()
        .filter(v -> v.getName().equals(m.getName()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + m.getName()));
  }

  @Test
  void rbacLetsTheServiceAccountPatchNodesAndPatchPods() {
    ServiceAccount sa = one(ServiceAccount.class, "vnpu-device-plugin");
    ClusterRole role = one(ClusterRole.class, "vnpu-device-plugin");
    // exactly what the agent calls (HamiRbacFromCallsTest)
    assertThat(rule(role, "pods").getVerbs()).containsExactly("get", "list", "patch");
    assertThat(rule(role, "nodes").getVerbs()).containsExactly("get", "patch");
    ClusterRoleBinding binding = one(ClusterRoleBinding.class, "vnpu-device-plugin");
    assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
    assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getName()).isEqualTo(sa.getMetadata().getName());
              assertThat(s.getNamespace()).isEqualTo(sa.getMetadata().getNamespace());
            });
  }

  private static PolicyRule rule(ClusterRole role, String resource) {
    return role.getRules().stream()
        .filter(r -> r.getResources().contains(resource) && r.getApiGroups().contains(""))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no rule for " + resource));
  }

  @Test
  void configMapsHoldConfigsTheAgentLoads() throws IOException {
    ConfigMap device = one(ConfigMap.class, "hami-scheduler-device");
    DeviceConfig ours =
        new DeviceConfigLoader()
            .parse(device.getData().get("device-config.yaml"), "deploy/manifests/hami.yaml")
            .value();
    Path upstream = HamiFixtures.file("ascend-device-configmap.yaml");
    DeviceConfig theirs = new DeviceConfigLoader().load(upstream).value();
    assertThat(ours).isEqualTo(theirs);
    assertThat(ours.chips())
        .extracting(ChipConfig::commonWord)
        .containsExactly(
            "Ascend910A",
            "Ascend910B2",
            "Ascend910B3",
            "Ascend910B4-1",
            "Ascend910B4",
            "Ascend310P",
            "Ascend910C");

    ConfigMap node = one(ConfigMap.class, "hami-device-node-config");
    NodeConfig nodes =
        new NodeConfigLoader()
            .parse(node.getData().get("node-config.yaml"), "deploy/manifests/hami.yaml")
            .value();
    assertThat(nodes).isEqualTo(NodeConfig.EMPTY);
  }

  @Test
  void runtimeClassIsAscend() {
    assertThat(one(RuntimeClass.class, "ascend").getHandler()).isEqualTo("ascend");
  }
}
