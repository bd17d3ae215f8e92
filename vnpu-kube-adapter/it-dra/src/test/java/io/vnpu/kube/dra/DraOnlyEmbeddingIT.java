package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraClaims.result;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.kube.dra.proto.registration.PluginInfo;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.testing.ClassPathWalls;
import io.vnpu.kube.testing.DraKubeletStandIn;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator that takes only {@code vnpu-kube-dra}: the DRA kubelet plugin starts against the DRA
 * kubelet stand-in (real unix sockets) and the mock API server, registers, publishes its
 * ResourceSlice and prepares and unprepares a claim, on a class path that has fabric8 and gRPC (the
 * driver needs both) and no picocli, Prometheus client, DCMI binding, device-plugin server, other
 * backend, agent or CLI.
 */
@EnableKubernetesMockClient(crud = true)
class DraOnlyEmbeddingIT {

  KubernetesClient client;

  @TempDir Path tmp;

  @Test
  void startsPublishesAndPreparesWithoutTheOtherBackendsTheAgentOrTheCli() throws Exception {
    assertThat(
            ClassPathWalls.present(
                ClassPathWalls.PICOCLI,
                ClassPathWalls.PROMETHEUS,
                ClassPathWalls.DCMI,
                ClassPathWalls.DEVICEPLUGIN,
                ClassPathWalls.HAMI,
                ClassPathWalls.MINDCLUSTER,
                ClassPathWalls.AGENT,
                ClassPathWalls.CLI))
        .as("parts an embedder of vnpu-kube-dra must not be handed")
        .isEmpty();
    // the check sees what is there: this artifact and the fabric8 client it needs
    assertThat(ClassPathWalls.present(ClassPathWalls.DRA, ClassPathWalls.FABRIC8)).hasSize(2);

    DraTestBed bed = new DraTestBed(tmp, client);
    try (DraKubeletStandIn kubelet = new DraKubeletStandIn();
        DraPlugin plugin = bed.startedPlugin()) {
      Path registration = bed.registrar.resolve(DRIVER + "-reg.sock");
      PluginInfo info = kubelet.getInfo(registration);
      assertThat(info.getType()).isEqualTo("DRAPlugin");
      kubelet.notifyRegistered(registration, true, "");
      DraTestBed.await(
          "the ResourceSlice of 8 NPUs",
          () -> bed.slices().size() == 1 && bed.slices().get(0).getSpec().getDevices().size() == 8);

      String uid =
          bed.create(
                  allocated(
                      "demo",
                      "npu-claim",
                      "6a1c1c7e-0b0e-4c55-8d1e-2f3a4b5c6d7e",
                      List.of(result("npu", DRIVER, NODE, "npu-5"))))
              .getMetadata()
              .getUid();
      Path dra = Path.of(info.getEndpoint());
      NodePrepareResourceResponse prepared =
          kubelet.prepareV1(dra, claim("demo", uid, "npu-claim")).getClaimsOrThrow(uid);
      assertThat(prepared.getError()).isEmpty();
      assertThat(prepared.getDevicesList())
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.getDeviceName()).isEqualTo("npu-5");
                assertThat(d.getCdiDeviceIdsList())
                    .containsExactly(DRIVER + "/npu=" + uid + "-npu-5");
              });
      Path spec = bed.cdi.resolve(DRIVER + "-npu_" + uid + ".json");
      assertThat(spec).exists();

      assertThat(
              kubelet
                  .unprepareV1(dra, claim("demo", uid, "npu-claim"))
                  .getClaimsOrThrow(uid)
                  .getError())
          .isEmpty();
      assertThat(spec).doesNotExist();
    }
  }
}
