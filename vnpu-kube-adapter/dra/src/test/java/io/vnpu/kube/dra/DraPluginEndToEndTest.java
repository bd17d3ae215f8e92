package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraClaims.result;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vnpu.kube.dra.cdi.CdiSchema;
import io.vnpu.kube.dra.proto.registration.PluginInfo;
import io.vnpu.kube.dra.proto.v1.Device;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.kubelet.FileIdentity;
import io.vnpu.kube.testing.DraKubeletStandIn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The DRA kubelet plugin against a kubelet stand-in (real unix sockets, v1 and v1beta1 clients) and
 * the fabric8 mock API server in CRUD mode.
 */
@EnableKubernetesMockClient(crud = true)
class DraPluginEndToEndTest {

  KubernetesClient client;

  @TempDir Path tmp;

  DraTestBed bed;
  DraKubeletStandIn kubelet;
  DraPlugin plugin;
  final ObjectMapper json = new ObjectMapper();

  @BeforeEach
  void setUp() throws Exception {
    bed = new DraTestBed(tmp, client);
    kubelet = new DraKubeletStandIn();
    plugin = bed.startedPlugin();
  }

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.close();
    }
    kubelet.close();
  }

  Path regSocket() {
    return bed.registrar.resolve(DRIVER + "-reg.sock");
  }

  Path draSocket() {
    return Path.of(kubelet.getInfo(regSocket()).getEndpoint());
  }

  ResourceClaim claimOn(String name, String uid, String device) {
    return bed.create(
        allocated("demo", name, uid, List.of(result("npu/whole", DRIVER, NODE, device))));
  }

  @Test
  void registersPublishesPreparesAndUnpreparesAcrossAPluginRestart() throws Exception {
    // register
    PluginInfo info = kubelet.getInfo(regSocket());
    assertThat(info.getType()).isEqualTo("DRAPlugin");
    assertThat(info.getName()).isEqualTo(DRIVER);
    assertThat(info.getEndpoint())
        .isEqualTo(bed.plugins.resolve(DRIVER).resolve("dra.sock").toString());
    assertThat(Path.of(info.getEndpoint())).exists();
    assertThat(info.getSupportedVersionsList())
        .containsExactly(
            "v1.DRAPlugin",
            "v1beta1.DRAPlugin",
            "v1.DRAResourceHealth",
            "v1alpha1.DRAResourceHealth");
    kubelet.notifyRegistered(regSocket(), true, "");
    assertThat(plugin.registrationStatus())
        .hasValueSatisfying(s -> assertThat(s.getPluginRegistered()).isTrue());

    // publish
    DraTestBed.await(
        "ResourceSlice of 8 NPUs",
        () -> bed.slices().size() == 1 && bed.slices().get(0).getSpec().getDevices().size() == 8);
    ResourceSlice slice = bed.slices().get(0);
    assertThat(slice.getSpec().getDriver()).isEqualTo(DRIVER);
    assertThat(slice.getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(slice.getSpec().getPool().getName()).isEqualTo(NODE);
    assertThat(slice.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
    assertThat(slice.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getKind()).isEqualTo("Node");
              assertThat(o.getName()).isEqualTo(NODE);
              assertThat(o.getUid())
                  .isEqualTo(client.nodes().withName(NODE).get().getMetadata().getUid());
            });

    // prepare a claim allocated to npu-3 (request chosen through a prioritized list)
    ResourceClaim c = claimOn("npu-claim", "0f2c6a1e-3b4d-4c5e-9f60-718293a4b5c6", "npu-3");
    String uid = c.getMetadata().getUid();
    NodePrepareResourceResponse r =
        kubelet.prepareV1(draSocket(), claim("demo", uid, "npu-claim")).getClaimsOrThrow(uid);
    assertThat(r.getError()).isEmpty();
    assertThat(r.getDevicesList())
        .containsExactly(
            Device.newBuilder()
                .addRequestNames("npu")
                .setPoolName(NODE)
                .setDeviceName("npu-3")
                .addCdiDeviceIds("npu.huawei.com/npu=" + uid + "-npu-3")
                .build());

    // the CDI file
    Path spec = bed.cdi.resolve("npu.huawei.com-npu_" + uid + ".json");
    byte[] bytes = Files.readAllBytes(spec);
    assertThat(CdiSchema.violations(bytes)).isEmpty();
    JsonNode s = json.readTree(bytes);
    assertThat(s.get("cdiVersion").asString()).isEqualTo("0.5.0");
    assertThat(s.get("kind").asString()).isEqualTo("npu.huawei.com/npu");
    assertThat(s.get("devices")).hasSize(1);
    JsonNode d = s.get("devices").get(0);
    assertThat(d.get("name").asString()).isEqualTo(uid + "-npu-3");
    assertThat(d.at("/containerEdits/env/0").asString()).isEqualTo("ASCEND_VISIBLE_DEVICES=3");
    assertThat(d.at("/containerEdits/deviceNodes/0/path").asString()).isEqualTo("/dev/davinci3");
    assertThat(d.at("/containerEdits/deviceNodes/0/hostPath").asString())
        .isEqualTo(bed.dev.resolve("davinci3").toString());
    assertThat(s.at("/containerEdits/env/0").asString()).isEqualTo("NPU_DRA_CLAIM_UID=" + uid);
    assertThat(s.at("/containerEdits/deviceNodes").findValuesAsString("path"))
        .containsExactly("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc");
    assertThat(s.at("/containerEdits/mounts")).hasSize(1);
    assertThat(s.at("/containerEdits/mounts/0/containerPath").asString())
        .isEqualTo("/usr/local/dcmi");
    assertThat(s.at("/containerEdits/mounts/0/hostPath").asString())
        .isEqualTo(bed.mounts.resolve("usr/local/dcmi").toString());
    assertThat(s.at("/containerEdits/mounts/0/options").toString())
        .isEqualTo("[\"ro\",\"nosuid\",\"nodev\",\"bind\"]");

    // idempotent: the same answer from the v1beta1 service, same file
    var again = kubelet.prepareV1beta1(draSocket(), "demo", uid, "npu-claim").getClaimsOrThrow(uid);
    assertThat(again.getError()).isEmpty();
    assertThat(again.getDevices(0).getCdiDeviceIdsList())
        .containsExactly("npu.huawei.com/npu=" + uid + "-npu-3");
    assertThat(Files.readAllBytes(spec)).isEqualTo(bytes);

    // restart the plugin between prepare and unprepare
    plugin.close();
    plugin = bed.startedPlugin();
    assertThat(plugin.state().snapshot().preparedClaims()).containsOnlyKeys(uid);
    try (var files = Files.list(bed.cdi)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList())
          .containsExactly("npu.huawei.com-npu_" + uid + ".json");
    }
    var un = kubelet.unprepareV1(draSocket(), claim("demo", uid, "npu-claim"));
    assertThat(un.getClaimsMap()).containsOnlyKeys(uid);
    assertThat(un.getClaimsOrThrow(uid).getError()).isEmpty();
    assertThat(spec).doesNotExist();
    assertThat(plugin.state().snapshot().preparedClaims()).isEmpty();
    // unknown UID: success (the kubelet may ask again)
    assertThat(
            kubelet
                .unprepareV1beta1(draSocket(), "demo", uid, "npu-claim")
                .getClaimsOrThrow(uid)
                .getError())
        .isEmpty();
  }

  @Test
  void claimOfAnotherDriverGetsNoDevicesAndNoFile() throws Exception {
    ResourceClaim c =
        bed.create(
            allocated(
                "demo",
                "gpu-claim",
                "11111111-2222-3333-4444-555555555555",
                List.of(result("gpu", "gpu.example.com", NODE, "gpu-0"))));
    String uid = c.getMetadata().getUid();
    NodePrepareResourceResponse r =
        kubelet.prepareV1(draSocket(), claim("demo", uid, "gpu-claim")).getClaimsOrThrow(uid);
    assertThat(r.getError()).isEmpty();
    assertThat(r.getDevicesList()).isEmpty();
    assertThat(bed.cdi.resolve("npu.huawei.com-npu_" + uid + ".json")).doesNotExist();
  }

  @Test
  void claimWhoseUidChangedFailsTheCallNamingIt() throws Exception {
    ResourceClaim c = claimOn("replaced", "22222222-2222-3333-4444-555555555555", "npu-1");
    assertThatThrownBy(() -> kubelet.prepareV1(draSocket(), claim("demo", "old-uid", "replaced")))
        .isInstanceOf(StatusRuntimeException.class)
        .satisfies(
            e -> {
              Status st = ((StatusRuntimeException) e).getStatus();
              assertThat(st.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(st.getDescription())
                  .isEqualTo(
                      "ResourceClaim demo/replaced: metadata.uid = "
                          + c.getMetadata().getUid()
                          + ": the kubelet asked for uid old-uid (the claim was"
                          + " replaced)");
            });
    assertThat(plugin.state().snapshot().preparedClaims()).isEmpty();
  }

  @Test
  void missingDeviceNodeIsAClaimErrorNamingThePath() throws Exception {
    Files.delete(bed.dev.resolve("davinci5"));
    ResourceClaim ok = claimOn("ok", "33333333-2222-3333-4444-555555555555", "npu-2");
    ResourceClaim bad = claimOn("bad", "44444444-2222-3333-4444-555555555555", "npu-5");
    String okUid = ok.getMetadata().getUid();
    String badUid = bad.getMetadata().getUid();
    var resp =
        kubelet.prepareV1(draSocket(), claim("demo", okUid, "ok"), claim("demo", badUid, "bad"));
    assertThat(resp.getClaimsMap()).containsOnlyKeys(okUid, badUid);
    assertThat(resp.getClaimsOrThrow(badUid).getError())
        .isEqualTo(bed.dev.resolve("davinci5") + ": device node does not exist on this host");
    assertThat(resp.getClaimsOrThrow(okUid).getError()).isEmpty();
    assertThat(bed.cdi.resolve("npu.huawei.com-npu_" + badUid + ".json")).doesNotExist();
    assertThat(plugin.state().snapshot().preparedClaims()).containsOnlyKeys(okUid);
  }

  @Test
  void preparesAreCountedInTheRequestMetricsWithTheirErrors() throws Exception {
    plugin.close();
    io.prometheus.metrics.model.registry.PrometheusRegistry registry =
        new io.prometheus.metrics.model.registry.PrometheusRegistry();
    plugin = bed.plugin();
    plugin.measureRequests(new io.vnpu.kube.metrics.RequestMetrics(registry));
    plugin.start();
    Files.delete(bed.dev.resolve("davinci6"));
    String okUid =
        claimOn("m-ok", "77777777-2222-3333-4444-555555555555", "npu-3").getMetadata().getUid();
    String badUid =
        claimOn("m-bad", "88888888-2222-3333-4444-555555555555", "npu-6").getMetadata().getUid();
    kubelet.prepareV1(draSocket(), claim("demo", okUid, "m-ok"), claim("demo", badUid, "m-bad"));
    kubelet.unprepareV1(draSocket(), claim("demo", okUid, "m-ok"));

    java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
    io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create()
        .write(text, registry.scrape());
    assertThat(text.toString(java.nio.charset.StandardCharsets.UTF_8).lines())
        .contains(
            "vnpu_plugin_requests_total{operation=\"prepare\"} 2.0",
            "vnpu_plugin_requests_total{operation=\"unprepare\"} 1.0",
            "vnpu_plugin_request_errors_total{kind=\"request\",operation=\"prepare\"} 1.0",
            "vnpu_plugin_request_duration_seconds_count{operation=\"prepare\"} 2");
  }

  @Test
  void deviceAlreadyPreparedForAnotherClaimIsRefused() throws Exception {
    ResourceClaim a = claimOn("a", "55555555-2222-3333-4444-555555555555", "npu-4");
    ResourceClaim b = claimOn("b", "66666666-2222-3333-4444-555555555555", "npu-4");
    String au = a.getMetadata().getUid();
    String bu = b.getMetadata().getUid();
    assertThat(
            kubelet.prepareV1(draSocket(), claim("demo", au, "a")).getClaimsOrThrow(au).getError())
        .isEmpty();
    assertThat(
            kubelet.prepareV1(draSocket(), claim("demo", bu, "b")).getClaimsOrThrow(bu).getError())
        .isEqualTo("device npu-4 is already prepared for ResourceClaim demo/a (uid " + au + ")");
  }

  @Test
  void kubeletRestartGetsSocketsAndSlicesBack() throws Exception {
    DraTestBed.await("first slice", () -> bed.slices().size() == 1);
    Optional<FileIdentity> before = FileIdentity.of(regSocket());
    // a kubelet restart: registration directory entries and every ResourceSlice of the node gone
    Files.delete(regSocket());
    client.dynamicResourceAllocation().v1().resourcesSlices().delete();
    // a socket file is visible only once its server listens (UnixSocketTransport binds a hidden
    // path and renames it into place), as the kubelet dials it as soon as it sees it: seeing the
    // file is the readiness signal this test relies on, and asserts, for both sockets
    DraTestBed.await(
        "registration socket re-created",
        () ->
            FileIdentity.of(regSocket()).isPresent()
                && !FileIdentity.of(regSocket()).equals(before));
    assertThat(kubelet.getInfo(regSocket()).getName()).isEqualTo(DRIVER);
    DraTestBed.await("slice re-published", () -> bed.slices().size() == 1);
    assertThat(bed.slices().get(0).getSpec().getPool().getGeneration()).isEqualTo(2L);
    // the DRA socket removed too
    Files.delete(draSocket());
    DraTestBed.await("DRA socket re-created", () -> Files.exists(draSocket()));
    ResourceClaim c = claimOn("after", "77777777-2222-3333-4444-555555555555", "npu-0");
    String uid = c.getMetadata().getUid();
    assertThat(
            kubelet
                .prepareV1(draSocket(), claim("demo", uid, "after"))
                .getClaimsOrThrow(uid)
                .getError())
        .isEmpty();
  }

  @Test
  void rebootWithAnEmptyCdiDirectoryRecreatesTheSpecs() throws Exception {
    ResourceClaim c = claimOn("r", "88888888-2222-3333-4444-555555555555", "npu-6");
    String uid = c.getMetadata().getUid();
    kubelet.prepareV1(draSocket(), claim("demo", uid, "r"));
    Path spec = bed.cdi.resolve("npu.huawei.com-npu_" + uid + ".json");
    byte[] bytes = Files.readAllBytes(spec);
    plugin.close();
    Files.delete(spec); // /var/run/cdi is a tmpfs: empty after a reboot
    bed.bootId = "boot-2";
    plugin = bed.startedPlugin();
    assertThat(Files.readAllBytes(spec)).isEqualTo(bytes);
    assertThat(plugin.state().snapshot().nodeBootId()).isEqualTo("boot-2");
    // and a prepare that finds the file gone writes it again before answering
    Files.delete(spec);
    assertThat(
            kubelet
                .prepareV1(draSocket(), claim("demo", uid, "r"))
                .getClaimsOrThrow(uid)
                .getDevices(0)
                .getDeviceName())
        .isEqualTo("npu-6");
    assertThat(Files.readAllBytes(spec)).isEqualTo(bytes);
  }

  @Test
  void livenessChecksBothSocketsThroughGrpcHealth() throws Exception {
    plugin.close();
    bed.healthcheckPort = 0;
    plugin = bed.startedPlugin();
    int port = plugin.livenessPort().orElseThrow();
    io.grpc.ManagedChannel ch =
        io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      var health =
          io.vnpu.kube.dra.proto.health.HealthGrpc.newBlockingStub(ch)
              .withDeadlineAfter(20, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(
              health
                  .check(
                      io.vnpu.kube.dra.proto.health.HealthCheckRequest.newBuilder()
                          .setService("liveness")
                          .build())
                  .getStatus()
                  .name())
          .isEqualTo("SERVING");
      assertThat(
              health
                  .check(
                      io.vnpu.kube.dra.proto.health.HealthCheckRequest.newBuilder()
                          .setService("readiness")
                          .build())
                  .getStatus()
                  .name())
          .isEqualTo("SERVICE_UNKNOWN");
    } finally {
      ch.shutdownNow();
    }
  }

  @Test
  void emptyPrepareIsAnsweredWithoutAnything() {
    assertThat(kubelet.prepareV1(draSocket()).getClaimsMap()).isEmpty();
  }
}
