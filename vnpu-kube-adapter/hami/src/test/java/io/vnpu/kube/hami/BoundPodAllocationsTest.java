package io.vnpu.kube.hami;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.kube.hami.cleanup.LiveAllocations;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.DecodeVariant;
import io.vnpu.kube.hami.codec.DevicesToAllocateCodec;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.PodDevices;
import io.vnpu.kube.hami.kube.BoundPodAllocations;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The live pods of the node and the NPUs they hold, as the idle vNPU cleanup reads them. */
@EnableKubernetesMockClient(crud = true)
class BoundPodAllocationsTest {
  KubernetesClient client;

  private static final HamiNames NAMES = new HamiNames("Ascend910B3");

  private static String allocated(String... uuids) {
    return DevicesToAllocateCodec.encode(
        new PodDevices(
            List.of(
                List.of(uuids).stream()
                    .map(u -> new ContainerDevice(u, "Ascend910B3", 16384, 5))
                    .toList())));
  }

  private void pod(String name, String node, String phase, Map<String, String> annotations) {
    Pod p =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .withAnnotations(annotations)
            .addToLabels(HamiNames.VGPU_NODE, node)
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .addNewContainer()
            .withName("c")
            .withImage("busybox")
            .endContainer()
            .endSpec()
            .withNewStatus()
            .withPhase(phase)
            .endStatus()
            .build();
    client.pods().inNamespace("default").resource(p).create();
  }

  private String uid(String name) {
    return client.pods().inNamespace("default").withName(name).get().getMetadata().getUid();
  }

  @Test
  void livePodsOfThisNodeAndTheNpusTheyHold() throws Exception {
    pod("sidecar", KubeFixtures.NODE, "Running", Map.of(NAMES.devicesAllocated(), allocated("U0")));
    pod(
        "starting",
        KubeFixtures.NODE,
        "Pending",
        Map.of(NAMES.devicesAllocated(), allocated("U3", "U4")));
    pod("done", KubeFixtures.NODE, "Succeeded", Map.of(NAMES.devicesAllocated(), allocated("U5")));
    pod("crashed", KubeFixtures.NODE, "Failed", Map.of());
    pod("elsewhere", "node-2", "Running", Map.of(NAMES.devicesAllocated(), allocated("U6")));
    pod(
        "broken",
        KubeFixtures.NODE,
        "Running",
        Map.of(NAMES.devicesAllocated(), "not,an;annotation"));

    LiveAllocations.Holders h =
        new BoundPodAllocations(
                client,
                KubeFixtures.NODE,
                NAMES,
                new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY))
            .read();

    assertThat(h.podUids())
        .containsExactlyInAnyOrder(uid("sidecar"), uid("starting"), uid("broken"));
    assertThat(h.npuUuids()).containsExactlyInAnyOrder("U0", "U3", "U4");
  }

  @Test
  void theTemplatesLivePodsNeedComeFromTheirRuntimeInfo() throws Exception {
    String info = "[{\"UUID\":\"U1\",\"temp\":\"vir05_1c_16g\"},{\"UUID\":\"U2\",\"temp\":\"\"}]";
    pod(
        "a",
        KubeFixtures.NODE,
        "Running",
        Map.of(NAMES.devicesAllocated(), allocated("U1", "U2"), NAMES.runtimeInfo(), info));
    pod(
        "b",
        KubeFixtures.NODE,
        "Running",
        Map.of(
            NAMES.devicesAllocated(),
            allocated("U1"),
            NAMES.runtimeInfo(),
            "[{\"UUID\":\"U1\",\"temp\":\"vir10_3c_32g\"}]"));
    pod("c", KubeFixtures.NODE, "Running", Map.of(NAMES.devicesAllocated(), allocated("U1")));

    LiveAllocations.Holders h =
        new BoundPodAllocations(
                client,
                KubeFixtures.NODE,
                NAMES,
                new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY))
            .read();

    // U2 is a whole NPU (no template, no vNPU); pod c says nothing about U1's template
    assertThat(h.templates()).isEqualTo(Map.of("U1", Map.of("vir05_1c_16g", 1, "vir10_3c_32g", 1)));
    assertThat(h.npuUuids()).containsExactly("U1");
  }
}
