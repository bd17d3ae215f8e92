package io.vnpu.kube.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.sim.BundledSimulator;
import io.vnpu.kube.cli.VnpuCli;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.PluginState;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.testing.LoadScaledBudget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The composition root of {@code vnpu plugin --mode mindcluster}: the agent over the simulated
 * driver registers its device types with the kubelet stand-in and removes its sockets on stop; a
 * bad flag combination is one line and exit code 2.
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterAgentTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  KubernetesClient client;

  @TempDir Path dir;

  @Test
  void registersEveryDeviceTypeAndCleansUpOnStop() throws Exception {
    BundledSimulator sim = new BundledSimulator(Path.of(System.getProperty("vnpu.native.dir")));
    sim.configure("910B3x8", dir.resolve("sim"));
    Path lib = sim.library().orElseThrow();
    try (KubeletStandIn kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
        MindClusterAgent agent =
            new MindClusterAgent(
                MindClusterOptions.defaults("node-1"),
                kubelet.pluginDir(),
                () -> DcmiDeviceManager.open(new DcmiLibrarySource(lib, "test", List.of(lib))),
                () -> client)) {
      List<PluginState> states = agent.start();
      assertThat(states).hasSize(1);
      RegisterRequest r = kubelet.awaitRegistration(WAIT);
      assertThat(r.getResourceName()).isEqualTo("huawei.com/Ascend910");
      try (PluginClient plugin = kubelet.connect(r);
          PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
        assertThat(law.next(WAIT).getDevicesList())
            .extracting(Device::getID)
            .hasSize(8)
            .contains("Ascend910-7");
      }
      assertThat(
              client
                  .configMaps()
                  .inNamespace("kube-system")
                  .withName("mindx-dl-deviceinfo-node-1")
                  .get())
          .isNotNull();
      // per-NPU series from the (simulated) driver and the plugin's registration gauge
      java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
      io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create()
          .write(text, agent.registry().scrape());
      String metrics = text.toString(java.nio.charset.StandardCharsets.UTF_8);
      assertThat(
              metrics.lines().filter(l -> l.startsWith("vnpu_npu_hbm_total_bytes{node=\"node-1\"")))
          .hasSize(8);
      assertThat(metrics.lines().filter(l -> l.startsWith("vnpu_npu_healthy{"))).hasSize(8);
      assertThat(metrics).contains("vnpu_plugin_registered{resource=\"huawei.com/Ascend910\"}");
      agent.stop();
      assertThat(Files.exists(kubelet.pluginDir().resolve("Ascend910.sock"))).isFalse();
    }
  }

  /**
   * The agent on a simulated host of {@code profile}, after {@code ctl} ran vnpu-sim-ctl commands.
   */
  private MindClusterAgent agent(
      String profile, MindClusterOptions options, Path pluginDir, String[]... ctl)
      throws Exception {
    BundledSimulator sim = new BundledSimulator(Path.of(System.getProperty("vnpu.native.dir")));
    Path root = dir.resolve("sim");
    sim.configure(profile, root);
    for (String[] args : ctl) {
      List<String> cmd = new java.util.ArrayList<>(List.of(sim.ctl().toString()));
      cmd.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.environment().put(BundledSimulator.PROFILE_ENV, profile);
      pb.environment().put(BundledSimulator.ROOT_ENV, root.toString());
      Process p = pb.start();
      String out =
          new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(p.waitFor()).as("vnpu-sim-ctl %s: %s", cmd, out).isZero();
    }
    Path lib = sim.library().orElseThrow();
    return new MindClusterAgent(
        options,
        pluginDir,
        () -> DcmiDeviceManager.open(new DcmiLibrarySource(lib, "test", List.of(lib))),
        () -> client);
  }

  private static String scrape(MindClusterAgent agent) throws java.io.IOException {
    java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
    io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create()
        .write(text, agent.registry().scrape());
    return text.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * Issue #25: the kubelet calls GetPreferredAllocation whenever a plugin advertises it and the pod
   * needs fewer devices than are free; the agent advertised it through its measuring wrapper and
   * answered INTERNAL UnsupportedOperationException, so every such pod failed admission.
   */
  @Test
  void aPodAskingFewerChipsThanAreFreeIsAdmittedAsTheKubeletDoesIt() throws Exception {
    try (KubeletStandIn kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
        MindClusterAgent agent =
            agent(
                "910B3x8",
                MindClusterOptions.defaults("node-1").withRuntime(true, dir.resolve("host")),
                kubelet.pluginDir())) {
      agent.start();
      RegisterRequest r = kubelet.awaitRegistration(WAIT);
      try (PluginClient plugin = kubelet.connect(r)) {
        plugin.assertAdvertisedOptionsServed(r);
        assertThat(plugin.admit(List.of("Ascend910-3")).getEnvsMap())
            .containsEntry("ASCEND_VISIBLE_DEVICES", "3");
        assertThat(plugin.admit(List.of("Ascend910-5", "Ascend910-6")).getEnvsMap())
            .containsEntry("ASCEND_VISIBLE_DEVICES", "5,6");
      }
    }
  }

  /**
   * Issue #25: a node with two device types (a static vNPU next to whole chips, or mixed 310P
   * cards) ran one plugin per type and registered {@code vnpu_plugin_registered} once per type: the
   * second registration failed ("duplicate metric name") and the agent exited 2.
   */
  @Test
  void startsWithAStaticVnpuNextToWholeChips() throws Exception {
    try (KubeletStandIn kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
        MindClusterAgent agent =
            agent(
                "910B3x8",
                MindClusterOptions.defaults("node-1").withRuntime(true, dir.resolve("host")),
                kubelet.pluginDir(),
                new String[] {"create", "2", "vir10_3c_32g"})) {
      assertThat(agent.start()).containsOnly(PluginState.REGISTERED).hasSize(2);
      java.util.Map<String, RegisterRequest> byResource = new java.util.HashMap<>();
      for (int i = 0; i < 2; i++) {
        RegisterRequest r = kubelet.awaitRegistration(WAIT);
        byResource.put(r.getResourceName(), r);
      }
      assertThat(byResource)
          .containsOnlyKeys("huawei.com/Ascend910", "huawei.com/Ascend910-10c.3cpu.32g");
      for (RegisterRequest r : byResource.values()) {
        try (PluginClient plugin = kubelet.connect(r)) {
          plugin.assertAdvertisedOptionsServed(r);
        }
      }
      try (PluginClient vnpu =
          kubelet.connect(byResource.get("huawei.com/Ascend910-10c.3cpu.32g"))) {
        assertThat(vnpu.admit(List.of("Ascend910-10c.3cpu.32g-132-2")).getEnvsMap())
            .containsEntry("ASCEND_VISIBLE_DEVICES", "132")
            .containsEntry("ASCEND_RUNTIME_OPTIONS", "VIRTUAL");
      }
      assertThat(scrape(agent))
          .contains("vnpu_plugin_registered{resource=\"huawei.com/Ascend910\"} 1.0")
          .contains("vnpu_plugin_registered{resource=\"huawei.com/Ascend910-10c.3cpu.32g\"} 1.0");
    }
  }

  /**
   * The README's {@code --simulate=310PMixedx4 -use310PMixedInsert}: three device types on one
   * node.
   */
  @Test
  void startsOnMixed310PCards() throws Exception {
    try (KubeletStandIn kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
        MindClusterAgent agent =
            agent(
                "310PMixedx4",
                MindClusterOptions.defaults("node-1")
                    .withMixedInsert(true)
                    .withRuntime(true, dir.resolve("host")),
                kubelet.pluginDir())) {
      assertThat(agent.start()).containsOnly(PluginState.REGISTERED).hasSize(3);
      for (int i = 0; i < 3; i++) {
        RegisterRequest r = kubelet.awaitRegistration(WAIT);
        try (PluginClient plugin = kubelet.connect(r)) {
          plugin.assertAdvertisedOptionsServed(r);
        }
      }
      assertThat(scrape(agent).lines().filter(l -> l.startsWith("vnpu_plugin_registered{")))
          .containsExactlyInAnyOrder(
              "vnpu_plugin_registered{resource=\"huawei.com/Ascend310P-VPro\"} 1.0",
              "vnpu_plugin_registered{resource=\"huawei.com/Ascend310P-V\"} 1.0",
              "vnpu_plugin_registered{resource=\"huawei.com/Ascend310P-IPro\"} 1.0");
    }
  }

  @Test
  void anUnreachableApiServerDoesNotHoldBackServingTheKubelet() throws Exception {
    int closedPort;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    String apiServer = "http://127.0.0.1:" + closedPort;
    BundledSimulator sim = new BundledSimulator(Path.of(System.getProperty("vnpu.native.dir")));
    sim.configure("910B3x8", dir.resolve("sim"));
    Path lib = sim.library().orElseThrow();
    // each API request is bounded to a few seconds (it took ~20 s per read before): 15 s is
    // generous on a quiet machine, far below the ~40 s the Node and ConfigMap reads used to take,
    // and scaled by the load where the cores are shared
    LoadScaledBudget budget = LoadScaledBudget.of(Duration.ofSeconds(15));
    long began = System.nanoTime();
    try (KubeletStandIn kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
        KubernetesClient unreachable =
            MindClusterLauncher.apiClient(
                new io.fabric8.kubernetes.client.ConfigBuilder().withMasterUrl(apiServer).build());
        MindClusterAgent agent =
            new MindClusterAgent(
                MindClusterOptions.defaults("node-1"),
                kubelet.pluginDir(),
                () -> DcmiDeviceManager.open(new DcmiLibrarySource(lib, "test", List.of(lib))),
                () -> unreachable)) {
      agent.start();
      RegisterRequest r = kubelet.awaitRegistration(WAIT);
      assertThat(Duration.ofNanos(System.nanoTime() - began))
          .as("registered after (budget %s)", budget)
          .isLessThan(budget.now());
      assertThat(r.getResourceName()).isEqualTo("huawei.com/Ascend910");
    }
    // the operator is told which API server could not be reached, and why
    Path log = Path.of("target/test.log");
    assertThat(Files.readAllLines(log))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains(" WARN ")
                    .contains(
                        "writing the labels and annotations of node node-1 through API server "
                            + apiServer
                            + "/ failed")
                    .containsAnyOf("connection closed", "connection refused"));
    assertThat(Files.readAllLines(log))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains(" WARN ")
                    .contains(
                        "writing ConfigMap kube-system/mindx-dl-deviceinfo-node-1 through API server "
                            + apiServer
                            + "/ failed")
                    .containsAnyOf("connection closed", "connection refused"));
  }

  @Test
  void anInvalidFlagCombinationIsOneLineAndExitCodeTwo() {
    StringWriter err = new StringWriter();
    CommandLine cl = VnpuCli.commandLine();
    cl.setErr(new PrintWriter(err, true));
    int exit =
        cl.execute(
            "plugin", "--mode", "mindcluster", "--node_name", "n1", "-presetVirtualDevice=false");
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "vnpu plugin --mode mindcluster: -presetVirtualDevice=false requires "
                + "-volcanoType=true (dynamic vNPUs are chosen by Volcano)"
                + System.lineSeparator());
  }

  @Test
  void hamiModeStillNeedsItsConfigFile() {
    StringWriter err = new StringWriter();
    CommandLine cl = VnpuCli.commandLine();
    cl.setErr(new PrintWriter(err, true));
    assertThat(cl.execute("plugin", "--node_name", "n1")).isEqualTo(2);
  }
}
