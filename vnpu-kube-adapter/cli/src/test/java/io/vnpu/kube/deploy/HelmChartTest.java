package io.vnpu.kube.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.testing.HamiFixtures;
import io.vnpu.kube.agent.NodeAgentOptions;
import io.vnpu.kube.app.AgentFlags;
import io.vnpu.kube.app.MindClusterFlags;
import io.vnpu.kube.cli.VnpuCli;
import io.vnpu.kube.dra.DraOptions;
import io.vnpu.kube.dra.app.DraFlags;
import io.vnpu.kube.metrics.CompatNames;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code deploy/helm/vnpu}: {@code helm lint} and {@code helm template} in-process (helm-java),
 * every mode rendered and parsed with fabric8, and the objects checked against the agent: the
 * arguments parse with the agent's own flags, the DaemonSet mounts every host directory the agent
 * writes to at the path the flags name, the ClusterRole covers every API call the mode makes, and
 * the Service reaches the metrics port. The plain manifests in {@code deploy/manifests/} must be
 * what the chart renders (regenerate with {@code -Dvnpu.deploy.regenerate=true}).
 */
class HelmChartTest {
  private static KubernetesClient client;

  @BeforeAll
  static void client() {
    client = new KubernetesClientBuilder().build();
  }

  @AfterAll
  static void close() {
    client.close();
  }

  static Path chart() {
    return DeployManifestsTest.deployDir().resolve("helm/vnpu");
  }

  private static String render(Map<String, Object> values) {
    TemplateCommand t =
        new Helm(chart())
            .template()
            .withName("vnpu")
            .withNamespace("kube-system")
            .withKubeVersion("1.34.0");
    values.forEach(t::set);
    return t.call();
  }

  private static List<HasMetadata> objects(String yaml) {
    return client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
  }

  private static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as(type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  @Test
  void lintPassesStrict() {
    LintResult r = new Helm(chart()).lint().strict().call();
    assertThat(r.isFailed()).as("helm lint: %s", r.getMessages()).isFalse();
  }

  @Test
  void hamiModeArgsParseWithTheAgentFlagsAndMountWhatTheAgentWrites() throws Exception {
    List<HasMetadata> o =
        objects(
            render(
                Map.of(
                    "softSlicing.enabled",
                    "true",
                    "metrics.compat[0]",
                    "hami",
                    "metrics.compat[1]",
                    "npu-exporter")));
    DaemonSet ds = one(o, DaemonSet.class);
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    assertThat(c.getCommand()).containsExactly("vnpu", "plugin");
    assertThat(VnpuCli.commandLine().getSubcommands()).containsKey("plugin");

    AgentFlags flags = new AgentFlags();
    new CommandLine(flags).parseArgs(c.getArgs().toArray(String[]::new));
    NodeAgentOptions opts = flags.toOptions(Map.of("NODE_NAME", "n1"));
    assertThat(opts.metrics().port()).isEqualTo(9395);
    assertThat(opts.metrics().compat()).isEqualTo(EnumSet.allOf(CompatNames.class));
    assertThat(opts.limiter().install()).isTrue();
    // every file and directory the agent reads or writes is mounted where its flags say
    assertThat(hostPathAt(pod, c, opts.kubeletDir())).isEqualTo(opts.kubeletDir().toString());
    assertThat(hostPathAt(pod, c, opts.limiter().hostDir()))
        .isEqualTo(opts.limiter().hostDir().toString());
    assertThat(mount(c, opts.limiter().hostDir()).getReadOnly()).isFalse();
    String hookPath = env(c).get("HOOK_PATH");
    assertThat(hostPathAt(pod, c, Path.of(hookPath))).isEqualTo("/var/lib/vnpu/hami");
    assertThat(hostPathAt(pod, c, Path.of("/usr/local/hami-shared-region")))
        .isEqualTo("/usr/local/hami-shared-region");
    assertThat(mount(c, opts.configFile()).getSubPath()).isEqualTo("device-config.yaml");
    assertThat(mount(c, opts.nodeConfigFile().orElseThrow()).getSubPath())
        .isEqualTo("node-config.yaml");
    assertThat(env(c).get("JAVA_TOOL_OPTIONS")).startsWith("-Xmx64m -XX:MaxMetaspaceSize=96m");
    // glibc's arenas bounded, as measured (docs/benchmarks.md "Issue 29: node agent RSS")
    assertThat(env(c).get("MALLOC_ARENA_MAX")).isEqualTo("2");
    // the image's limiter location is the agent's default, so the flag and the image agree
    assertThat(opts.limiter().assetsDir()).isEqualTo(Path.of("/usr/local/hami-vnpu-core-assets"));

    // soft slicing on: the device config the agent loads says so
    ConfigMap device =
        o.stream()
            .filter(ConfigMap.class::isInstance)
            .map(ConfigMap.class::cast)
            .filter(m -> m.getMetadata().getName().equals("hami-scheduler-device"))
            .findFirst()
            .orElseThrow();
    DeviceConfig dc =
        new DeviceConfigLoader().parse(device.getData().get("device-config.yaml"), "chart").value();
    DeviceConfig upstream =
        new DeviceConfigLoader().load(HamiFixtures.file("ascend-device-configmap.yaml")).value();
    assertThat(dc).isEqualTo(new DeviceConfig(true, upstream.chips()));

    // probes on the metrics port, Service reaches it and selects the DaemonSet's pods
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/livez");
    assertThat(c.getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("metrics");
              assertThat(p.getContainerPort()).isEqualTo(9395);
            });
    Service svc = one(o, Service.class);
    assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(svc.getSpec().getSelector());
    assertThat(svc.getSpec().getPorts())
        .singleElement()
        .satisfies(p -> assertThat(p.getTargetPort().getStrVal()).isEqualTo("metrics"));

    // every API call of the HAMi backend: node register/handshake/lock, pod finder, bind phase,
    // slice metrics
    assertCovers(
        o, List.of("/nodes/get", "/nodes/patch", "/pods/get", "/pods/list", "/pods/patch"));
  }

  @Test
  void defaultsRenderTheHamiObjectsWithoutServiceMonitorAndSoftSlicingOff() throws Exception {
    List<HasMetadata> o = objects(render(Map.of()));
    assertThat(o)
        .extracting(x -> x.getKind() + "/" + x.getMetadata().getName())
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
    ConfigMap device =
        o.stream()
            .filter(ConfigMap.class::isInstance)
            .map(ConfigMap.class::cast)
            .filter(m -> m.getMetadata().getName().equals("hami-scheduler-device"))
            .findFirst()
            .orElseThrow();
    assertThat(
            new DeviceConfigLoader()
                .parse(device.getData().get("device-config.yaml"), "chart")
                .value()
                .hamiVnpuCore())
        .isFalse();

    List<HasMetadata> monitored =
        objects(
            render(
                Map.of(
                    "metrics.serviceMonitor.enabled",
                    "true",
                    "hami.createDeviceConfig",
                    "false",
                    "metrics.port",
                    "9400")));
    GenericKubernetesResource sm = one(monitored, GenericKubernetesResource.class);
    assertThat(sm.getKind()).isEqualTo("ServiceMonitor");
    assertThat(monitored).noneMatch(x -> x.getMetadata().getName().equals("hami-scheduler-device"));
    assertThat(one(monitored, Service.class).getSpec().getPorts().get(0).getPort()).isEqualTo(9400);

    List<HasMetadata> off = objects(render(Map.of("metrics.port", "0")));
    assertThat(off).noneMatch(Service.class::isInstance);
    Container c =
        one(off, DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getReadinessProbe()).isNull();
    assertThat(c.getArgs()).contains("--metrics-port=0");
  }

  @Test
  void mindclusterModeArgsParseWithAgentAndMindClusterFlags() {
    List<HasMetadata> o =
        objects(render(Map.of("mode", "mindcluster", "softSlicing.enabled", "true")));
    assertThat(one(o, DaemonSet.class).getSpec().getTemplate().getSpec().getVolumes())
        .extracting(Volume::getName)
        .doesNotContain("limiter");
    Container c = one(o, DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getCommand()).containsExactly("vnpu", "plugin");
    assertThat(c.getArgs().get(0)).isEqualTo("--mode=mindcluster");
    // vnpu plugin --mode mindcluster: the agent's and MindCluster's flags (its two mixins)
    List<String> line = new ArrayList<>(List.of("plugin"));
    line.addAll(c.getArgs());
    CommandLine.ParseResult parsed = VnpuCli.commandLine().parseArgs(line.toArray(String[]::new));
    CommandSpec plugin = parsed.subcommand().commandSpec();
    assertThat(parsed.subcommand().matchedOptionValue("--mode", null).toString())
        .isEqualTo("mindcluster");
    AgentFlags agent =
        (AgentFlags)
            plugin.mixins().values().stream()
                .map(CommandSpec::userObject)
                .filter(AgentFlags.class::isInstance)
                .findFirst()
                .orElseThrow();
    MindClusterFlags mc =
        (MindClusterFlags)
            plugin.mixins().values().stream()
                .map(CommandSpec::userObject)
                .filter(MindClusterFlags.class::isInstance)
                .findFirst()
                .orElseThrow();
    assertThat(agent.toOptions(Map.of("NODE_NAME", "n1")).limiter().hostDir())
        .isEqualTo(Path.of("/usr/local/hami-vnpu-core"));
    assertThat(mc.toOptions("n1", Map.of("HOST_IP", "192.0.2.1")).volcanoType()).isTrue();
    // cluster-wide; the kube-system ConfigMaps and the Events are Roles
    // (MindClusterRbacFromCallsTest)
    assertCovers(
        o, List.of("/nodes/get", "/nodes/patch", "/pods/get", "/pods/list", "/pods/patch"));
  }

  @Test
  void draModeArgsParseWithTheDraFlagsAndMountTheKubeletAndCdiDirectories() throws Exception {
    List<HasMetadata> o = objects(render(Map.of("mode", "dra")));
    assertThat(o)
        .extracting(x -> x.getKind() + "/" + x.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "DaemonSet/vnpu-dra-kubeletplugin",
            "ServiceAccount/vnpu-dra-kubeletplugin",
            "ClusterRole/vnpu-dra-kubeletplugin",
            "ClusterRoleBinding/vnpu-dra-kubeletplugin",
            "DeviceClass/npu.huawei.com",
            "Service/vnpu-dra-kubeletplugin-metrics",
            "DeviceClass/ascend910a.npu.huawei.com",
            "DeviceClass/ascend910b2.npu.huawei.com",
            "DeviceClass/ascend910b3.npu.huawei.com",
            "DeviceClass/ascend910b4-1.npu.huawei.com",
            "DeviceClass/ascend910b4.npu.huawei.com",
            "DeviceClass/ascend310p.npu.huawei.com",
            "DeviceClass/ascend910c.npu.huawei.com",
            "ValidatingAdmissionPolicy/vnpu-dra-kubeletplugin-resourceslices",
            "ValidatingAdmissionPolicyBinding/vnpu-dra-kubeletplugin-resourceslices",
            "ValidatingAdmissionPolicy/vnpu-dra-kubeletplugin-claim-status",
            "ValidatingAdmissionPolicyBinding/vnpu-dra-kubeletplugin-claim-status");
    // the same admission policies as deploy/dra/admission-policy.yaml (DraAdmissionPolicyTest
    // evaluates them)
    List<HasMetadata> plainPolicies =
        objects(
            Files.readString(DeployManifestsTest.deployDir().resolve("dra/admission-policy.yaml")));
    for (Class<? extends HasMetadata> kind :
        List.of(
            io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy
                .class,
            io.fabric8.kubernetes.api.model.admissionregistration.v1
                .ValidatingAdmissionPolicyBinding.class)) {
      assertThat(o.stream().filter(kind::isInstance).map(HelmChartTest::specOf).toList())
          .isEqualTo(
              plainPolicies.stream().filter(kind::isInstance).map(HelmChartTest::specOf).toList());
    }
    PodSpec pod = one(o, DaemonSet.class).getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    assertThat(c.getCommand()).containsExactly("vnpu", "dra");
    assertThat(VnpuCli.commandLine().getSubcommands()).containsKey("dra");
    DraFlags flags = new DraFlags();
    List<String> args = new ArrayList<>(c.getArgs());
    args.add("--node-name=n1");
    new CommandLine(flags).parseArgs(args.toArray(String[]::new));
    DraOptions opts = flags.toOptions(Path.of("/dev"), Path.of("/"));
    assertThat(hostPathAt(pod, c, opts.registrarDir())).isEqualTo(opts.registrarDir().toString());
    assertThat(hostPathAt(pod, c, opts.pluginsDir())).isEqualTo(opts.pluginsDir().toString());
    assertThat(hostPathAt(pod, c, opts.cdiRoot())).isEqualTo("/var/run/cdi");
    assertThat(hostPathAt(pod, c, Path.of("/dev"))).isEqualTo("/dev");
    // the same objects and fields the plain DRA manifests in deploy/dra/ carry (DraManifestsTest)
    DaemonSet plain =
        objects(Files.readString(DeployManifestsTest.deployDir().resolve("dra/daemonset.yaml")))
            .stream()
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .findFirst()
            .orElseThrow();
    Container pc = plain.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getVolumeMounts())
        .extracting(VolumeMount::getMountPath)
        .containsAll(pc.getVolumeMounts().stream().map(VolumeMount::getMountPath).toList());
    assertThat(c.getResources()).isEqualTo(pc.getResources());
    assertThat(one(o, DaemonSet.class).getSpec().getUpdateStrategy())
        .isEqualTo(plain.getSpec().getUpdateStrategy());
    // a rolling update starts the new plugin next to the old one, each with sockets of its own
    assertThat(one(o, DaemonSet.class).getSpec().getUpdateStrategy().getRollingUpdate())
        .satisfies(
            r -> {
              assertThat(r.getMaxSurge().getIntVal()).isEqualTo(1);
              assertThat(r.getMaxUnavailable().getIntVal()).isEqualTo(0);
            });
    assertThat(c.getEnv())
        .filteredOn(e -> e.getName().equals("POD_UID"))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getValueFrom().getFieldRef().getFieldPath())
                    .isEqualTo("metadata.uid"));
    DraFlags withUid = new DraFlags();
    List<String> uidArgs = new ArrayList<>(args);
    uidArgs.add("--pod-uid=0f2c6a1e-3b4d-4c5e-9f60-718293a4b5c6"); // as POD_UID gives it
    new CommandLine(withUid).parseArgs(uidArgs.toArray(String[]::new));
    assertThat(withUid.sockets(opts).registrationSocket().getFileName().toString())
        .isEqualTo("npu.huawei.com-0f2c6a1e-3b4d-4c5e-9f60-718293a4b5c6-reg.sock");
    assertThat(one(o, ClusterRole.class).getRules())
        .isEqualTo(
            objects(Files.readString(DeployManifestsTest.deployDir().resolve("dra/rbac.yaml")))
                .stream()
                .filter(ClusterRole.class::isInstance)
                .map(ClusterRole.class::cast)
                .findFirst()
                .orElseThrow()
                .getRules());
    // with metrics on, the DRA plugin's /livez and /readyz (ready once the kubelet accepted the
    // registration) serve the probes on the metrics port the flags name
    assertThat(flags.metricsPort()).hasValue(9395);
    assertThat(c.getPorts())
        .extracting(p -> p.getName() + "=" + p.getContainerPort())
        .containsExactly("metrics=9395");
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/livez");
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("metrics");
    Container noMetrics =
        one(objects(render(Map.of("mode", "dra", "metrics.port", "0"))), DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    assertThat(noMetrics.getLivenessProbe().getGrpc().getPort()).isEqualTo(opts.healthcheckPort());
    assertThat(noMetrics.getArgs()).noneMatch(a -> a.startsWith("--metrics-port"));
    assertCovers(
        o,
        List.of(
            "resource.k8s.io/resourceslices/create",
            "resource.k8s.io/resourceslices/update",
            "resource.k8s.io/resourceslices/delete",
            "resource.k8s.io/resourceslices/list",
            "resource.k8s.io/resourceslices/watch",
            "resource.k8s.io/resourceclaims/get",
            "resource.k8s.io/resourceclaims/status/patch",
            "/nodes/get"));
  }

  @Test
  void draSoftSlicingPassesItsFlagsAndMountsTheLimiterDirectory() throws Exception {
    List<HasMetadata> o =
        objects(
            render(
                Map.of(
                    "mode", "dra", "dra.softSlicing", "true", "dra.capacityNames", "openfuyao")));
    PodSpec pod = one(o, DaemonSet.class).getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    DraFlags flags = new DraFlags();
    List<String> args = new ArrayList<>(c.getArgs());
    args.add("--node-name=n1");
    new CommandLine(flags).parseArgs(args.toArray(String[]::new));
    DraOptions opts = flags.toOptions(Path.of("/dev"), Path.of("/"));
    assertThat(opts.enableSoftSlicing()).isTrue();
    assertThat(opts.capacityNames()).isEqualTo(io.vnpu.kube.dra.modes.SoftCapacityNames.OPENFUYAO);
    assertThat(flags.limiterSource())
        .contains(Path.of("/usr/local/hami-vnpu-core-assets/libvnpu.so"));
    Path limiterDir = flags.limiterFiles().hostDir();
    assertThat(hostPathAt(pod, c, limiterDir)).isEqualTo(limiterDir.toString());
    // regions and compute registries live in the plugin's data directory, already mounted
    assertThat(hostPathAt(pod, c, opts.pluginsDir())).isEqualTo(opts.pluginsDir().toString());
    assertCovers(o, List.of("resource.k8s.io/resourceclaims/status/patch"));
    // HAMi's shared region and HOOK_PATH are the device-plugin modes' directories, never DRA's
    assertThat(pod.getVolumes())
        .extracting(io.fabric8.kubernetes.api.model.Volume::getName)
        .contains("limiter")
        .doesNotContain("shared-region", "hook-path");
    assertThat(c.getVolumeMounts())
        .extracting(VolumeMount::getName)
        .doesNotContain("shared-region", "hook-path");
    // off by default: no limiter arguments and no limiter mount
    Container off =
        one(objects(render(Map.of("mode", "dra"))), DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    assertThat(off.getArgs())
        .noneMatch(a -> a.startsWith("--enable-soft-slicing") || a.startsWith("--limiter-dir"));
  }

  @Test
  void draSharedCountersAndChipModesPassTheirFlagsOnlyWhenSet() throws Exception {
    Container c =
        one(
                objects(
                    render(
                        Map.of(
                            "mode",
                            "dra",
                            "dra.softSlicing",
                            "true",
                            "dra.sharedCounters",
                            "off",
                            "dra.chipModes",
                            "0-3=whole,4-7=soft"))),
                DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    DraFlags flags = new DraFlags();
    List<String> args = new ArrayList<>(c.getArgs());
    args.add("--node-name=n1");
    new CommandLine(flags).parseArgs(args.toArray(String[]::new));
    DraOptions opts = flags.toOptions(Path.of("/dev"), Path.of("/"));
    assertThat(opts.sharedCounters()).isFalse();
    assertThat(opts.chipModes().of(2)).contains(io.vnpu.kube.dra.modes.ChipMode.WHOLE);
    assertThat(opts.chipModes().of(5)).contains(io.vnpu.kube.dra.modes.ChipMode.SOFT);
    // defaults: counters auto, nothing pinned, no arguments (the rendered manifests stay as they
    // are)
    Container defaults =
        one(objects(render(Map.of("mode", "dra"))), DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    assertThat(defaults.getArgs())
        .noneMatch(a -> a.startsWith("--shared-counters") || a.startsWith("--chip-modes"));
  }

  @Test
  void draEnableHardVnpuPassesTheFlagAndMountsTheDeviceConfigItNeeds() throws Exception {
    List<HasMetadata> o = objects(render(Map.of("mode", "dra", "dra.enableHardVnpu", "true")));
    PodSpec pod = one(o, DaemonSet.class).getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    DraFlags flags = new DraFlags();
    List<String> args = new ArrayList<>(c.getArgs());
    args.add("--node-name=n1");
    new CommandLine(flags).parseArgs(args.toArray(String[]::new));
    assertThat(flags.toOptions(Path.of("/dev"), Path.of("/")).enableHardVnpu()).isTrue();
    // the templates come from the device config, mounted from the ConfigMap the chart renders
    Path file = flags.deviceConfig().orElseThrow();
    VolumeMount m = mount(c, file);
    assertThat(m.getSubPath()).isEqualTo("device-config.yaml");
    Volume v =
        pod.getVolumes().stream()
            .filter(x -> x.getName().equals(m.getName()))
            .findFirst()
            .orElseThrow();
    ConfigMap cm =
        o.stream()
            .filter(ConfigMap.class::isInstance)
            .map(ConfigMap.class::cast)
            .filter(x -> x.getMetadata().getName().equals(v.getConfigMap().getName()))
            .findFirst()
            .orElseThrow();
    DeviceConfig dc =
        new DeviceConfigLoader().parse(cm.getData().get("device-config.yaml"), "chart").value();
    assertThat(dc.chips()).anySatisfy(chip -> assertThat(chip.templates()).isNotEmpty());
    // default off: neither the flag nor the device config (the rendered manifests stay as they are)
    List<HasMetadata> off = objects(render(Map.of("mode", "dra")));
    assertThat(
            one(off, DaemonSet.class)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getArgs())
        .noneMatch(a -> a.startsWith("--enable-hard-vnpu") || a.startsWith("--device-config"));
    assertThat(off).noneMatch(x -> x instanceof ConfigMap);
  }

  @Test
  void draOnlyValuesNeverReachTheDevicePluginArguments() {
    for (String mode : List.of("hami", "mindcluster")) {
      Container c =
          one(
                  objects(
                      render(
                          Map.of(
                              "mode",
                              mode,
                              "dra.sharedCounters",
                              "off",
                              "dra.chipModes",
                              "0-3=whole",
                              "dra.enableHardVnpu",
                              "true"))),
                  DaemonSet.class)
              .getSpec()
              .getTemplate()
              .getSpec()
              .getContainers()
              .get(0);
      assertThat(c.getArgs())
          .as(mode)
          .noneMatch(
              a ->
                  a.startsWith("--shared-counters")
                      || a.startsWith("--chip-modes")
                      || a.startsWith("--enable-hard-vnpu"));
    }
  }

  @Test
  void draModeShipsAnExtendedResourceDeviceClassPerChipModelSelectingThatModelOfOurDriver()
      throws Exception {
    Map<String, io.fabric8.kubernetes.api.model.resource.v1.DeviceClass> classes =
        new LinkedHashMap<>();
    objects(render(Map.of("mode", "dra"))).stream()
        .filter(io.fabric8.kubernetes.api.model.resource.v1.DeviceClass.class::isInstance)
        .map(io.fabric8.kubernetes.api.model.resource.v1.DeviceClass.class::cast)
        .forEach(c -> classes.put(c.getMetadata().getName(), c));
    Map<String, String> names = new LinkedHashMap<>();
    classes.forEach(
        (n, c) ->
            names.put(
                n,
                java.util.Objects.requireNonNullElse(
                    c.getSpec().getExtendedResourceName(), "(none)")));
    // one per chip of the shipped device-config.yaml, HAMi's resource names
    assertThat(names)
        .containsExactly(
            Map.entry("npu.huawei.com", "(none)"),
            Map.entry("ascend910a.npu.huawei.com", "huawei.com/Ascend910A"),
            Map.entry("ascend910b2.npu.huawei.com", "huawei.com/Ascend910B2"),
            Map.entry("ascend910b3.npu.huawei.com", "huawei.com/Ascend910B3"),
            Map.entry("ascend910b4-1.npu.huawei.com", "huawei.com/Ascend910B4-1"),
            Map.entry("ascend910b4.npu.huawei.com", "huawei.com/Ascend910B4"),
            Map.entry("ascend310p.npu.huawei.com", "huawei.com/Ascend310P"),
            Map.entry("ascend910c.npu.huawei.com", "huawei.com/Ascend910C"));
    String b3 =
        classes
            .get("ascend910b3.npu.huawei.com")
            .getSpec()
            .getSelectors()
            .get(0)
            .getCel()
            .getExpression();
    assertThat(b3)
        .isEqualTo(
            "device.driver == 'npu.huawei.com' && 'chipName' in"
                + " device.attributes['npu.huawei.com'] && device.attributes['npu.huawei.com'].chipName"
                + " == '910B3'");
    // evaluated by CEL against the devices the plugin publishes (eight 910B3, four 310P3)
    assertThat(DraManifestsTest.selected(b3))
        .containsExactly("npu-0", "npu-1", "npu-2", "npu-3", "npu-4", "npu-5", "npu-6", "npu-7");
    assertThat(
            DraManifestsTest.selected(
                classes
                    .get("ascend310p.npu.huawei.com")
                    .getSpec()
                    .getSelectors()
                    .get(0)
                    .getCel()
                    .getExpression()))
        .containsExactly("npu-8", "npu-9", "npu-10", "npu-11");
    assertThat(
            DraManifestsTest.selected(
                classes
                    .get("ascend910b4.npu.huawei.com")
                    .getSpec()
                    .getSelectors()
                    .get(0)
                    .getCel()
                    .getExpression()))
        .isEmpty();

    // a values list replaces the defaults; the driver name follows dra.driverName
    List<HasMetadata> custom =
        objects(
            render(
                Map.of(
                    "mode",
                    "dra",
                    "dra.driverName",
                    "npu.example.com",
                    "dra.extendedResources.chips[0].chipName",
                    "910B3",
                    "dra.extendedResources.chips[0].resourceName",
                    "example.com/npu-b3")));
    assertThat(custom)
        .filteredOn(x -> x.getKind().equals("DeviceClass"))
        .extracting(x -> x.getMetadata().getName())
        .containsExactly("npu.example.com", "npu-b3.npu.example.com");
    assertThat(objects(render(Map.of("mode", "dra", "dra.extendedResources.enabled", "false"))))
        .filteredOn(x -> x.getKind().equals("DeviceClass"))
        .hasSize(1);
    assertThatThrownBy(
            () -> render(Map.of("mode", "dra", "dra.extendedResources.chips[0].chipName", "910B3")))
        .hasMessageContaining("dra.extendedResources.chips[0]")
        .hasMessageContaining("needs chipName and resourceName");
  }

  @Test
  void aNodeRunsEitherTheDevicePluginOrTheDraDaemonSetNeverBoth() {
    Map<String, io.fabric8.kubernetes.api.model.NodeSelectorRequirement> byMode =
        new LinkedHashMap<>();
    for (String mode : List.of("hami", "mindcluster", "dra")) {
      PodSpec pod =
          one(objects(render(Map.of("mode", mode))), DaemonSet.class)
              .getSpec()
              .getTemplate()
              .getSpec();
      byMode.put(
          mode,
          pod
              .getAffinity()
              .getNodeAffinity()
              .getRequiredDuringSchedulingIgnoredDuringExecution()
              .getNodeSelectorTerms()
              .stream()
              .flatMap(t -> t.getMatchExpressions().stream())
              .filter(e -> e.getKey().equals("vnpu.io/resource-api"))
              .findFirst()
              .orElseThrow());
    }
    assertThat(byMode.get("dra").getOperator()).isEqualTo("In");
    assertThat(byMode.get("dra").getValues()).containsExactly("dra");
    for (String dp : List.of("hami", "mindcluster")) {
      assertThat(byMode.get(dp).getOperator()).as(dp).isEqualTo("NotIn");
      assertThat(byMode.get(dp).getValues()).as(dp).containsExactly("dra");
    }
    // the rule decided for a node's labels: exactly one of the two DaemonSets matches
    for (Map<String, String> labels :
        List.of(
            Map.<String, String>of(),
            Map.of("vnpu.io/resource-api", "dra"),
            Map.of("vnpu.io/resource-api", "device-plugin"))) {
      long matching =
          byMode.entrySet().stream()
              .filter(e -> !e.getKey().equals("mindcluster"))
              .filter(e -> matches(e.getValue(), labels))
              .count();
      assertThat(matching).as("DaemonSets (hami, dra) on a node labelled %s", labels).isEqualTo(1);
    }
  }

  private static boolean matches(
      io.fabric8.kubernetes.api.model.NodeSelectorRequirement r, Map<String, String> labels) {
    String v = labels.get(r.getKey());
    return switch (r.getOperator()) {
      case "In" -> v != null && r.getValues().contains(v);
      case "NotIn" -> v == null || !r.getValues().contains(v);
      default -> throw new AssertionError("unexpected operator " + r.getOperator());
    };
  }

  @Test
  void badValuesFailNamingTheField() {
    assertThatThrownBy(() -> render(Map.of("mode", "nvidia")))
        .hasMessageContaining("mode = nvidia: must be hami, mindcluster or dra");
    assertThatThrownBy(() -> render(Map.of("metrics.compat[0]", "dcgm")))
        .hasMessageContaining("metrics.compat = dcgm");
    assertThatThrownBy(() -> render(Map.of("hookPath", "/usr/local/hami-vnpu-core/containers")))
        .hasMessageContaining(
            "hookPath = /usr/local/hami-vnpu-core/containers: inside limiter.hostDir");
  }

  @Test
  void plainManifestsAreWhatTheChartRenders() throws Exception {
    Map<String, String> rendered = new LinkedHashMap<>();
    rendered.put("hami.yaml", render(Map.of()));
    rendered.put("mindcluster.yaml", render(Map.of("mode", "mindcluster")));
    rendered.put("dra.yaml", render(Map.of("mode", "dra")));
    Path dir = DeployManifestsTest.deployDir().resolve("manifests");
    for (Map.Entry<String, String> e : rendered.entrySet()) {
      String content =
          "# Rendered from deploy/helm/vnpu (helm template vnpu deploy/helm/vnpu -n kube-system"
              + (e.getKey().equals("hami.yaml")
                  ? ""
                  : " --set mode=" + e.getKey().replace(".yaml", ""))
              + ").\n"
              + "# Do not edit: change the chart and run the HelmChartTest with -Dvnpu.deploy.regenerate=true.\n"
              + e.getValue();
      if (Boolean.getBoolean("vnpu.deploy.regenerate")) {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(e.getKey()), content);
      }
      assertThat(dir.resolve(e.getKey()))
          .as("deploy/manifests/%s is stale: regenerate it", e.getKey())
          .hasContent(content);
    }
  }

  /**
   * Every {@code group/resource/verb} is allowed by the one ClusterRole, which the binding gives
   * the DaemonSet's account.
   */
  private static void assertCovers(List<HasMetadata> o, List<String> calls) {
    ClusterRole role = one(o, ClusterRole.class);
    ClusterRoleBinding binding = one(o, ClusterRoleBinding.class);
    DaemonSet ds = one(o, DaemonSet.class);
    assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getName())
                  .isEqualTo(ds.getSpec().getTemplate().getSpec().getServiceAccountName());
              assertThat(s.getNamespace()).isEqualTo(ds.getMetadata().getNamespace());
            });
    for (String call : calls) {
      String group = call.substring(0, call.indexOf('/'));
      String resource = call.substring(call.indexOf('/') + 1, call.lastIndexOf('/'));
      String verb = call.substring(call.lastIndexOf('/') + 1);
      assertThat(role.getRules())
          .as("ClusterRole allows %s", call)
          .anySatisfy(
              r -> {
                assertThat(r.getApiGroups()).contains(group);
                assertThat(r.getResources()).contains(resource);
                assertThat(r.getVerbs()).contains(verb);
              });
    }
  }

  /** Name and spec of an admission policy or binding (labels differ between chart and plain). */
  private static String specOf(HasMetadata o) {
    Object spec =
        o
                instanceof
                io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy p
            ? p.getSpec()
            : ((io.fabric8.kubernetes.api.model.admissionregistration.v1
                        .ValidatingAdmissionPolicyBinding)
                    o)
                .getSpec();
    return o.getMetadata().getName()
        + " "
        + io.fabric8.kubernetes.client.utils.Serialization.asJson(spec);
  }

  private static Map<String, String> env(Container c) {
    Map<String, String> m = new LinkedHashMap<>();
    for (EnvVar e : c.getEnv()) if (e.getValue() != null) m.put(e.getName(), e.getValue());
    return m;
  }

  private static VolumeMount mount(Container c, Path path) {
    return c.getVolumeMounts().stream()
        .filter(m -> path.startsWith(Path.of(m.getMountPath())))
        .max((a, b) -> Integer.compare(a.getMountPath().length(), b.getMountPath().length()))
        .orElseThrow(() -> new AssertionError("nothing mounted at or above " + path));
  }

  /** Host path that the container sees at {@code path} (through the mount closest above it). */
  private static String hostPathAt(PodSpec pod, Container c, Path path) {
    VolumeMount m = mount(c, path);
    Volume v =
        pod.getVolumes().stream()
            .filter(x -> x.getName().equals(m.getName()))
            .findFirst()
            .orElseThrow();
    assertThat(v.getHostPath()).as("volume %s is a hostPath", v.getName()).isNotNull();
    return Path.of(v.getHostPath().getPath())
        .resolve(Path.of(m.getMountPath()).relativize(path))
        .toString();
  }
}
