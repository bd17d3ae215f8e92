package io.vnpu.kube.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.sim.BundledSimulator;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.testing.ChartObjects;
import io.vnpu.kube.testing.RbacFromCalls;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Least privilege in MindCluster mode (issue #25): the requests the agent makes to the mock API
 * server through its life (start: node labels, device-info ConfigMap, fault configuration, the
 * kubelet-ID map; a Volcano Allocate; a chip fault: its Event and the ConfigMap rewritten) give the
 * rules it needs, per namespace; the chart grants exactly those, cluster-wide only where the
 * namespace is a tenant's (pods) or the resource is cluster-scoped (nodes), else by a Role of that
 * namespace ({@code kube-system} ConfigMaps, Events of the plugin's own namespace).
 */
class MindClusterRbacFromCallsTest {
  private static final String AGENT = "vnpu-mindcluster-under-test";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String ACCOUNT = "vnpu-device-plugin";

  private KubernetesMockServer server;
  private KubernetesClient client;

  /**
   * The CRUD mock without field selectors on {@code spec}: a list by {@code spec.nodeName} lists
   * every pod (the agent filters by node itself); the request is recorded as sent.
   */
  private static final class NodeNameSelectorIgnored extends KubernetesCrudDispatcher {
    @Override
    public io.fabric8.mockwebserver.http.MockResponse handleGet(String path) {
      return super.handleGet(path.replaceAll("[?&]fieldSelector=spec\\.nodeName%3D[^&]*", ""));
    }
  }

  @org.junit.jupiter.api.BeforeEach
  void setUp() {
    server =
        new KubernetesMockServer(
            new io.fabric8.mockwebserver.Context(),
            new io.fabric8.mockwebserver.MockWebServer(),
            new java.util.HashMap<>(),
            new NodeNameSelectorIgnored(),
            false);
    server.init();
    client = server.createClient();
  }

  @org.junit.jupiter.api.AfterEach
  void tearDown() {
    client.close();
    server.destroy();
  }

  @TempDir Path dir;

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > end) throw new AssertionError("not within " + WAIT + ": " + what);
      Thread.sleep(100);
    }
  }

  @Test
  void theChartGrantsMindClusterModeExactlyWhatTheAgentCalls() throws Exception {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build())
        .create();
    BundledSimulator sim = new BundledSimulator(Path.of(System.getProperty("vnpu.native.dir")));
    sim.configure("910B3x8", dir.resolve("sim"));
    Path lib = sim.library().orElseThrow();
    RbacFromCalls.drain(server, AGENT);
    List<RbacFromCalls.Access> calls = new ArrayList<>();
    try (KubernetesClient agentClient = RbacFromCalls.clientAs(client, AGENT);
        KubeletStandIn kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
        MindClusterAgent agent =
            new MindClusterAgent(
                    MindClusterOptions.defaults("node-1")
                        .withVolcano(true, true)
                        .withRuntime(true, dir.resolve("host"))
                        .withListWatchPeriod(Duration.ofSeconds(3)),
                    kubelet.pluginDir(),
                    () -> DcmiDeviceManager.open(new DcmiLibrarySource(lib, "test", List.of(lib))),
                    () -> agentClient)
                .withEnvironment(
                    Map.of(
                        "POD_NAME", "vnpu-device-plugin-x7k2p", "POD_NAMESPACE", "kube-system"))) {
      agent.start();
      await(
          "device-info ConfigMap written",
          () ->
              client
                      .configMaps()
                      .inNamespace("kube-system")
                      .withName("mindx-dl-deviceinfo-node-1")
                      .get()
                  != null);

      // a Volcano pod of a tenant namespace, admitted by the kubelet
      client
          .pods()
          .inNamespace("default")
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("train")
                  .withNamespace("default")
                  .addToAnnotations("huawei.com/Ascend910", "Ascend910-1")
                  .addToAnnotations("predicate-time", "10")
                  .endMetadata()
                  .withNewSpec()
                  .withNodeName("node-1")
                  .addNewContainer()
                  .withName("main")
                  .withImage("busybox")
                  .withNewResources()
                  .addToLimits("huawei.com/Ascend910", new Quantity("1"))
                  .endResources()
                  .endContainer()
                  .endSpec()
                  .withNewStatus()
                  .withPhase("Pending")
                  .endStatus()
                  .build())
          .create();
      try (PluginClient plugin = kubelet.connect(kubelet.awaitRegistration(WAIT))) {
        assertThat(plugin.admit(List.of("Ascend910-4")).getEnvsMap())
            .containsEntry("ASCEND_VISIBLE_DEVICES", "1");
      }

      // a chip fault: an Event bound to the plugin's pod, the ConfigMap rewritten
      ProcessBuilder pb =
          new ProcessBuilder(sim.ctl().toString(), "fault", "3", "0x80E01801")
              .redirectErrorStream(true);
      pb.environment().put(BundledSimulator.PROFILE_ENV, sim.profile());
      pb.environment().put(BundledSimulator.ROOT_ENV, sim.root().toString());
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor()).as(out).isZero();
      await(
          "fault Event",
          () -> !client.v1().events().inNamespace("kube-system").list().getItems().isEmpty());
      await(
          "ConfigMap rewritten",
          () ->
              client
                  .configMaps()
                  .inNamespace("kube-system")
                  .withName("mindx-dl-deviceinfo-node-1")
                  .get()
                  .getData()
                  .get("DeviceInfoCfg")
                  .contains("Ascend910-Unhealthy\":\"Ascend910-3\""));
      agent.stop();
    }
    calls.addAll(RbacFromCalls.drain(server, AGENT));

    // needed: per namespace ("" = cluster-wide: cluster-scoped, across namespaces, or a tenant's)
    Map<String, Set<String>> needed = new TreeMap<>();
    for (RbacFromCalls.Access a : calls) {
      String scope = a.namespace().equals("kube-system") ? "kube-system" : "";
      needed.computeIfAbsent(scope, k -> new TreeSet<>()).add(a.rule());
    }
    assertThat(needed.get(""))
        .as("calls: %s", calls)
        .contains("/pods/list", "/pods/patch", "/nodes/get");
    assertThat(needed.get("kube-system"))
        .as("calls: %s", calls)
        .contains("/configmaps/get", "/configmaps/create", "/events/create");

    List<HasMetadata> chart = ChartObjects.render(Map.of("mode", "mindcluster"));
    Map<String, Set<String>> granted = new TreeMap<>();
    ClusterRole clusterRole = ChartObjects.one(chart, ClusterRole.class);
    ClusterRoleBinding crb = ChartObjects.one(chart, ClusterRoleBinding.class);
    assertThat(crb.getRoleRef().getName()).isEqualTo(clusterRole.getMetadata().getName());
    assertThat(crb.getSubjects()).extracting(Subject::getName).containsExactly(ACCOUNT);
    granted.put("", RbacFromCalls.granted(clusterRole.getRules()));
    for (Role r : chart.stream().filter(Role.class::isInstance).map(Role.class::cast).toList()) {
      RoleBinding b =
          chart.stream()
              .filter(RoleBinding.class::isInstance)
              .map(RoleBinding.class::cast)
              .filter(
                  x ->
                      x.getRoleRef().getName().equals(r.getMetadata().getName())
                          && x.getMetadata().getNamespace().equals(r.getMetadata().getNamespace()))
              .findFirst()
              .orElseThrow(
                  () -> new AssertionError("no RoleBinding of Role " + r.getMetadata().getName()));
      assertThat(b.getSubjects()).extracting(Subject::getName).containsExactly(ACCOUNT);
      granted
          .computeIfAbsent(r.getMetadata().getNamespace(), k -> new TreeSet<>())
          .addAll(RbacFromCalls.granted(r.getRules()));
    }
    assertThat(granted).as("calls seen: %s", calls).isEqualTo(needed);

    // -hotReset=2 adds what training recovery writes in the job's namespace (ResetConfigMaps,
    // RecoveryEventsToKube; TrainingRecoveryKubeTest drives those calls), nothing else
    Set<String> recovery =
        new TreeSet<>(
            RbacFromCalls.granted(
                ChartObjects.one(
                        ChartObjects.render(
                            Map.of("mode", "mindcluster", "mindcluster.hotReset", "2")),
                        ClusterRole.class)
                    .getRules()));
    recovery.removeAll(granted.get(""));
    assertThat(recovery)
        .containsExactly(
            "/configmaps/create", "/configmaps/get", "/configmaps/update", "/events/create");
  }
}
