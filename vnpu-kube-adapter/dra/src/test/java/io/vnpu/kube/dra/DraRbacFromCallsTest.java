package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraClaims.result;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.slices.ResourceSlicePublisher;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.testing.ChartObjects;
import io.vnpu.kube.testing.DraKubeletStandIn;
import io.vnpu.kube.testing.RbacFromCalls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Least privilege in DRA mode: the calls the plugin makes to the mock API server through its whole
 * life (publish, republish after a foreign slice, prepare with status writes, unprepare, a claim
 * deleted behind its back, a restart after a corrupt checkpoint) give the rules it needs; the
 * chart's DRA ClusterRole grants exactly those, plus the authorization-only verbs a status write is
 * checked against.
 */
@EnableKubernetesMockClient(crud = true)
class DraRbacFromCallsTest {
  static final String AGENT = "vnpu-dra-under-test";

  KubernetesClient client;
  KubernetesMockServer server;

  @TempDir Path tmp;

  DraPlugin plugin;
  KubernetesClient pluginClient;
  final DraKubeletStandIn kubelet = new DraKubeletStandIn();

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.close();
    }
    kubelet.close();
    if (pluginClient != null) {
      pluginClient.close();
    }
  }

  private ResourceClaim create(ResourceClaim c) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build())
        .createOr(n -> n.update());
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("demo")
        .resource(c)
        .create();
  }

  private Path draSocket(DraTestBed bed) {
    return Path.of(kubelet.getInfo(bed.registrar.resolve(DRIVER + "-reg.sock")).getEndpoint());
  }

  private List<io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice> slices() {
    return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
  }

  private DraPlugin start(DraTestBed bed) throws Exception {
    DraPlugin p = bed.startedPlugin();
    DraTestBed.await("NPUs discovered", () -> p.inventory().devices().size() == 8);
    DraTestBed.await("pool published", () -> !slices().isEmpty());
    return p;
  }

  @Test
  void theChartGrantsDraModeExactlyWhatThePluginCalls() throws Exception {
    client
        .nodes()
        .resource(
            new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata()
                .withName(NODE)
                .endMetadata()
                .build())
        .create();
    pluginClient = RbacFromCalls.clientAs(client, AGENT);
    DraTestBed bed = new DraTestBed(tmp, pluginClient);
    bed.softSlicing = true;
    bed.limiter = LimiterFixture.installInto(tmp.resolve("limiter"));
    RbacFromCalls.drain(server, AGENT); // the test bed's own look at the Node
    List<RbacFromCalls.Access> calls = new ArrayList<>();
    plugin = start(bed);

    // a stray slice of this pool (an older generation) is deleted, an edited one rewritten
    client
        .dynamicResourceAllocation()
        .v1()
        .resourcesSlices()
        .resource(
            new ResourceSliceBuilder()
                .withNewMetadata()
                .withName("stray")
                .addToLabels(ResourceSlicePublisher.NODE_LABEL, NODE)
                .endMetadata()
                .withNewSpec()
                .withDriver(DRIVER)
                .withNodeName(NODE)
                .withNewPool()
                .withName(NODE)
                .withGeneration(1L)
                .withResourceSliceCount(1L)
                .endPool()
                .endSpec()
                .build())
        .create();
    DraTestBed.await(
        "stray slice removed",
        () -> slices().stream().noneMatch(s -> s.getMetadata().getName().equals("stray")));
    int devices = 0;
    for (int attempt = 0; ; attempt++) { // the publisher may be writing too: 409, read again
      var mine =
          slices().stream()
              .filter(s -> s.getSpec().getDevices() != null && s.getSpec().getDevices().size() > 3)
              .findFirst()
              .orElseThrow();
      devices = mine.getSpec().getDevices().size();
      try {
        client
            .dynamicResourceAllocation()
            .v1()
            .resourcesSlices()
            .resource(
                new ResourceSliceBuilder(mine)
                    .editSpec()
                    .withDevices(mine.getSpec().getDevices().subList(0, 3))
                    .endSpec()
                    .build())
            .update();
        break;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt > 20) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
    int published = devices;
    DraTestBed.await(
        "the edited slice rewritten",
        () ->
            slices().stream()
                .anyMatch(
                    s ->
                        s.getSpec().getDevices() != null
                            && s.getSpec().getDevices().size() == published));

    // prepare (claim read, status written) and unprepare, soft and whole
    ResourceClaim soft =
        create(
            allocated(
                "demo",
                "soft",
                "x",
                List.of(
                    new DeviceRequestAllocationResultBuilder()
                        .withRequest("npu")
                        .withDriver(DRIVER)
                        .withPool(NODE)
                        .withDevice("npu-1")
                        .withShareID("s1")
                        .withConsumedCapacity(
                            Map.of("memory", new Quantity("4Gi"), "cores", new Quantity("25")))
                        .build())));
    ResourceClaim whole =
        create(allocated("demo", "whole", "y", List.of(result("npu", DRIVER, NODE, "npu-2"))));
    for (ResourceClaim c : List.of(soft, whole)) {
      String uid = c.getMetadata().getUid();
      assertThat(
              kubelet
                  .prepareV1(draSocket(bed), claim("demo", uid, c.getMetadata().getName()))
                  .getClaimsOrThrow(uid)
                  .getError())
          .isEmpty();
    }
    DraTestBed.await(
        "status written",
        () ->
            client
                    .dynamicResourceAllocation()
                    .v1()
                    .resourceClaims()
                    .inNamespace("demo")
                    .withName("soft")
                    .get()
                    .getStatus()
                    .getDevices()
                != null);
    String softUid = soft.getMetadata().getUid();
    assertThat(
            kubelet
                .unprepareV1(draSocket(bed), claim("demo", softUid, "soft"))
                .getClaimsOrThrow(softUid)
                .getError())
        .isEmpty();

    // a claim deleted behind the plugin's back; then a restart after a corrupt checkpoint, where
    // claims known by UID only are looked up across namespaces
    plugin.close();
    Files.writeString(
        bed.plugins.resolve(DRIVER).resolve(CheckpointStore.FILE_NAME),
        "{\"version\":\"v1\",\"checksum\":\"sha256:00\",\"checkpoint\":{}}");
    client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("demo")
        .withName("whole")
        .delete();
    plugin = start(bed);
    String wholeUid = whole.getMetadata().getUid();
    DraTestBed.await(
        "the deleted claim released",
        () -> !plugin.state().snapshot().preparedClaims().containsKey(wholeUid));
    plugin.close();
    plugin = null;
    calls.addAll(RbacFromCalls.drain(server, AGENT));

    Set<String> needed = RbacFromCalls.needed(calls);
    assertThat(needed)
        .contains(
            "resource.k8s.io/resourceslices/create",
            "resource.k8s.io/resourceslices/delete",
            "resource.k8s.io/resourceclaims/get",
            "resource.k8s.io/resourceclaims/list",
            "/nodes/get");
    // a status write is authorized per driver and node as well (Kubernetes >= 1.36); the mock
    // never asks
    Set<String> expected = new TreeSet<>(needed);
    for (String verb : List.of("update", "patch")) {
      if (needed.contains("resource.k8s.io/resourceclaims/status/" + verb)) {
        expected.add("resource.k8s.io/resourceclaims/driver/associated-node:" + verb);
      }
    }
    ClusterRole role =
        ChartObjects.one(
            ChartObjects.render(Map.of("mode", "dra", "dra.softSlicing", "true")),
            ClusterRole.class);
    assertThat(RbacFromCalls.granted(role.getRules()))
        .as("calls seen: %s", needed)
        .isEqualTo(expected);
    assertThat(role.getRules())
        .filteredOn(r -> r.getResources().contains("resourceclaims/driver"))
        .singleElement()
        .satisfies(r -> assertThat(r.getResourceNames()).containsExactly(DRIVER));
  }
}
