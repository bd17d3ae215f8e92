package io.vnpu.kube.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableSet;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.devices.NpuDeviceFacts;
import io.vnpu.kube.dra.slices.NpuSliceDevices;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The DRA manifests in {@code deploy/dra/}: the objects and fields the plugin relies on, and every
 * CEL selector shipped (DeviceClasses and claim templates) evaluated by a real CEL engine against
 * the devices the plugin publishes, so a misspelled attribute fails the build.
 */
class DraManifestsTest {
  private static final String DRIVER = "npu.huawei.com";
  private static KubernetesClient client;
  private static final Map<Path, List<HasMetadata>> objects = new LinkedHashMap<>();

  /** The {@code device} variable as the API server declares it for DeviceClass selectors. */
  private static final StructType DEVICE =
      StructType.create(
          "k8s.resource.Device",
          ImmutableSet.of("driver", "attributes", "capacity", "allowMultipleAllocations"),
          field ->
              Optional.ofNullable(
                  switch (field) {
                    case "driver" -> SimpleType.STRING;
                    case "attributes", "capacity" ->
                        MapType.create(
                            SimpleType.STRING, MapType.create(SimpleType.STRING, SimpleType.DYN));
                    case "allowMultipleAllocations" -> SimpleType.BOOL;
                    default -> null;
                  }));

  private static final CelCompiler CEL =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setTypeProvider(
              new CelTypeProvider() {
                @Override
                public ImmutableCollection<CelType> types() {
                  return ImmutableSet.of(DEVICE);
                }

                @Override
                public Optional<CelType> findType(String name) {
                  return DEVICE.name().equals(name) ? Optional.of(DEVICE) : Optional.empty();
                }
              })
          .addVar("device", DEVICE)
          .build();
  private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

  @BeforeAll
  static void load() throws IOException {
    client = new KubernetesClientBuilder().build();
    Path dir = DeployManifestsTest.deployDir().resolve("dra");
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path f : s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        try (InputStream in = Files.newInputStream(f)) {
          objects.put(dir.relativize(f), client.load(in).items());
        }
      }
    }
  }

  @AfterAll
  static void close() {
    client.close();
  }

  static List<HasMetadata> all() {
    return objects.values().stream().flatMap(List::stream).toList();
  }

  static <T extends HasMetadata> List<T> all(Class<T> type) {
    return all().stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Test
  void filesAndObjects() {
    Map<String, List<String>> byFile = new LinkedHashMap<>();
    objects.forEach(
        (f, l) ->
            byFile.put(
                f.toString(),
                l.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList()));
    assertThat(byFile)
        .containsExactly(
            Map.entry(
                "admission-policy.yaml",
                List.of(
                    "ValidatingAdmissionPolicy/vnpu-dra-kubeletplugin-resourceslices",
                    "ValidatingAdmissionPolicy/vnpu-dra-kubeletplugin-claim-status",
                    "ValidatingAdmissionPolicyBinding/vnpu-dra-kubeletplugin-resourceslices",
                    "ValidatingAdmissionPolicyBinding/vnpu-dra-kubeletplugin-claim-status")),
            Map.entry("daemonset.yaml", List.of("DaemonSet/vnpu-dra-kubeletplugin")),
            Map.entry("deviceclass.yaml", List.of("DeviceClass/npu.huawei.com")),
            Map.entry(
                "examples/claim-template-and-pod.yaml",
                List.of(
                    "Namespace/demo",
                    "ResourceClaimTemplate/two-npus-same-ring",
                    "ResourceClaimTemplate/one-npu",
                    "Pod/train-0")),
            Map.entry(
                "examples/deviceclasses.yaml",
                List.of("DeviceClass/npu-910b.huawei.com", "DeviceClass/npu-ring-0.huawei.com")),
            Map.entry(
                "examples/soft-share.yaml",
                List.of(
                    "ResourceClaimTemplate/npu-4g-25",
                    "ResourceClaimTemplate/npu-8g-weighted",
                    "Pod/infer-0")),
            Map.entry(
                "rbac.yaml",
                List.of(
                    "ServiceAccount/vnpu-dra-kubeletplugin",
                    "ClusterRole/vnpu-dra-kubeletplugin",
                    "ClusterRoleBinding/vnpu-dra-kubeletplugin")),
            Map.entry(
                "variants/daemonset-hostprocess.yaml",
                List.of("DaemonSet/vnpu-dra-kubeletplugin-hostprocess")));
  }

  @Test
  void theSoftShareExampleAsksForTheCapacitiesWePublishAndItsNpuConfigDecodes() throws Exception {
    var templates =
        all(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate.class).stream()
            .filter(t -> t.getMetadata().getName().startsWith("npu-"))
            .toList();
    assertThat(templates).hasSize(2);
    for (var t : templates) {
      var req = t.getSpec().getSpec().getDevices().getRequests().get(0).getExactly();
      assertThat(req.getCapacity().getRequests())
          .containsOnlyKeys(
              io.vnpu.kube.dra.modes.SoftCapacityNames.HAMI.memory(),
              io.vnpu.kube.dra.modes.SoftCapacityNames.HAMI.cores());
    }
    var config = templates.get(1).getSpec().getSpec().getDevices().getConfig().get(0).getOpaque();
    assertThat(config.getDriver()).isEqualTo(DRIVER);
    var decoded =
        new io.vnpu.kube.dra.config.NpuConfigDecoder()
            .decode(config.getParameters(), "examples/soft-share.yaml");
    assertThat(decoded)
        .isEqualTo(
            new io.vnpu.kube.dra.config.NpuConfig(
                io.vnpu.kube.dra.config.NpuConfig.Sharing.SOFT, 20, 40, null, null, null));
  }

  @Test
  void daemonSetsRunTheDriverWithTheKubeletPathsUnchanged() {
    for (DaemonSet ds : all(DaemonSet.class)) {
      var pod = ds.getSpec().getTemplate().getSpec();
      var c = pod.getContainers().get(0);
      assertThat(c.getCommand()).containsExactly("vnpu", "dra");
      Map<String, EnvVar> env = new LinkedHashMap<>();
      c.getEnv().forEach(e -> env.put(e.getName(), e));
      assertThat(env.get("NODE_NAME").getValueFrom().getFieldRef().getFieldPath())
          .isEqualTo("spec.nodeName");
      assertThat(env.get("DRIVER_NAME").getValue()).isEqualTo(DRIVER);
      assertThat(env.get("CDI_ROOT").getValue()).isEqualTo("/var/run/cdi");
      assertThat(c.getLivenessProbe().getGrpc().getPort())
          .isEqualTo(Integer.parseInt(env.get("HEALTHCHECK_PORT").getValue()));
      assertThat(c.getLivenessProbe().getGrpc().getService()).isEqualTo("liveness");
      Map<String, String> hostPaths = new LinkedHashMap<>();
      pod.getVolumes().forEach(v -> hostPaths.put(v.getName(), v.getHostPath().getPath()));
      // the kubelet dials the socket paths we report: same path inside and outside
      for (var m : c.getVolumeMounts()) {
        if (List.of("plugins-registry", "plugins", "cdi", "dev").contains(m.getName())) {
          assertThat(hostPaths.get(m.getName())).as(m.getName()).isEqualTo(m.getMountPath());
        }
      }
      assertThat(c.getVolumeMounts())
          .extracting(v -> v.getMountPath())
          .contains(
              env.get("KUBELET_REGISTRAR_DIRECTORY_PATH").getValue(),
              env.get("KUBELET_PLUGINS_DIRECTORY_PATH").getValue(),
              "/var/run/cdi",
              "/dev");
      assertThat(ds.getSpec().getTemplate().getSpec().getServiceAccountName())
          .isEqualTo("vnpu-dra-kubeletplugin");
    }
    assertThat(all(DaemonSet.class).get(1).getSpec().getTemplate().getSpec().getHostPID()).isTrue();
  }

  @Test
  void rbacCoversSlicesClaimsAndNodes() {
    ClusterRole role = all(ClusterRole.class).get(0);
    Map<String, List<String>> verbs = new LinkedHashMap<>();
    role.getRules().forEach(r -> r.getResources().forEach(res -> verbs.put(res, r.getVerbs())));
    // exactly what the plugin calls (DraRbacFromCallsTest derives it from the calls)
    assertThat(verbs.get("resourceslices"))
        .containsExactlyInAnyOrder("list", "watch", "create", "update", "delete");
    assertThat(verbs.get("resourceclaims")).containsExactly("get", "list");
    assertThat(verbs.get("resourceclaims/status")).containsExactly("patch");
    assertThat(verbs.get("nodes")).containsExactly("get");
    assertThat(verbs.get("resourceclaims/driver")).containsExactly("associated-node:patch");
  }

  /** Published devices: eight 910B3 (NUMA 0/1) and four 310P3 without NUMA information. */
  static List<Device> published() {
    List<Npu> npus = new ArrayList<>(MutableDeviceManager.eight910b3());
    for (int i = 0; i < 4; i++) {
      npus.add(
          new Npu(
              "P" + i,
              8 + i,
              8 + i,
              20 + i,
              0,
              "310P3",
              21527L << 20,
              8,
              7,
              DeviceHealth.HEALTHY,
              -1));
    }
    return new NpuSliceDevices(NpuDeviceFacts.NONE).devices(npus);
  }

  /** The CEL input {@code device} a scheduler builds from a published device. */
  static Map<String, Object> celDevice(Device d) {
    Map<String, Map<String, Object>> attrs = new LinkedHashMap<>();
    attrs.put(DRIVER, new LinkedHashMap<>());
    for (var e : d.getAttributes().entrySet()) {
      String name = e.getKey();
      String domain = DRIVER;
      int slash = name.indexOf('/');
      if (slash >= 0) {
        domain = name.substring(0, slash);
        name = name.substring(slash + 1);
      }
      attrs.computeIfAbsent(domain, k -> new LinkedHashMap<>()).put(name, value(e.getValue()));
    }
    Map<String, Map<String, Object>> capacity = new LinkedHashMap<>();
    d.getCapacity()
        .forEach(
            (k, v) ->
                capacity
                    .computeIfAbsent(DRIVER, x -> new LinkedHashMap<>())
                    .put(k, v.getValue().toString()));
    return Map.of(
        "driver",
        DRIVER,
        "attributes",
        attrs,
        "capacity",
        capacity,
        "allowMultipleAllocations",
        false);
  }

  private static Object value(DeviceAttribute a) {
    if (a.getString() != null) return a.getString();
    if (a.getInt() != null) return a.getInt();
    if (a.getBool() != null) return a.getBool();
    return a.getVersion();
  }

  /**
   * Names of the published devices the expression selects; a type-check or evaluation error fails.
   */
  static List<String> selected(String expression) throws Exception {
    CelRuntime.Program program = RUNTIME.createProgram(CEL.compile(expression).getAst());
    List<String> out = new ArrayList<>();
    for (Device d : published()) {
      Object r = program.eval(Map.of("device", celDevice(d)));
      if (Boolean.TRUE.equals(r)) {
        out.add(d.getName());
      }
    }
    return out;
  }

  static String only(List<DeviceSelector> selectors) {
    assertThat(selectors).hasSize(1);
    return selectors.get(0).getCel().getExpression();
  }

  @Test
  void everyDeviceClassSelectsTheDevicesItIsMeantFor() throws Exception {
    Map<String, List<String>> got = new LinkedHashMap<>();
    for (DeviceClass dc : all(DeviceClass.class)) {
      got.put(dc.getMetadata().getName(), selected(only(dc.getSpec().getSelectors())));
    }
    List<String> b =
        List.of("npu-0", "npu-1", "npu-2", "npu-3", "npu-4", "npu-5", "npu-6", "npu-7");
    List<String> all = new ArrayList<>(b);
    all.addAll(List.of("npu-8", "npu-9", "npu-10", "npu-11"));
    assertThat(got)
        .containsExactly(
            Map.entry("npu.huawei.com", all),
            Map.entry("npu-910b.huawei.com", b),
            Map.entry("npu-ring-0.huawei.com", List.of("npu-0", "npu-1", "npu-2", "npu-3")));
  }

  @Test
  void claimTemplateSelectorsAndConstraintsUsePublishedAttributes() throws Exception {
    Map<String, ResourceClaimTemplate> t = new LinkedHashMap<>();
    all(ResourceClaimTemplate.class).forEach(x -> t.put(x.getMetadata().getName(), x));
    DeviceRequest one = t.get("one-npu").getSpec().getSpec().getDevices().getRequests().get(0);
    assertThat(selected(only(one.getExactly().getSelectors())))
        .containsExactly("npu-0", "npu-1", "npu-2", "npu-3");
    DeviceConstraint c =
        t.get("two-npus-same-ring").getSpec().getSpec().getDevices().getConstraints().get(0);
    String attr = c.getMatchAttribute();
    assertThat(attr).startsWith(DRIVER + "/");
    String name = attr.substring(DRIVER.length() + 1);
    assertThat(published().get(0).getAttributes()).containsKey(name);
    assertThat(
            published().stream()
                .filter(d -> d.getAttributes().containsKey(name))
                .map(d -> d.getAttributes().get(name).getString())
                .distinct()
                .toList())
        .containsExactly("ring-0", "ring-1");
  }

  @Test
  void aMisspelledAttributeIsCaught() {
    assertThatThrownBy(() -> selected("device.attributes['npu.huawei.com'].chipNmae == '910B3'"))
        .hasMessageContaining("chipNmae");
  }
}
