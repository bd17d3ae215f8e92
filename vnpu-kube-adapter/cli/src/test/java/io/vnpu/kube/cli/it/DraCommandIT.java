package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.vnpu.kube.dra.proto.registration.PluginInfo;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.testing.DraClaims;
import io.vnpu.kube.testing.DraKubeletStandIn;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vnpu dra --simulate} from the shaded jar, as a user runs it (README "vnpu dra"), against
 * the mock API server and the kubelet stand-in: registration, the published slice, a prepared and
 * unprepared claim, and a clean stop on SIGTERM that removes the registration socket.
 */
class DraCommandIT {

  @TempDir Path tmp;

  @Test
  void simulatedNodeRegistersPublishesAndPreparesAClaim() throws Exception {
    KubernetesMockServer api =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    api.init(InetAddress.getLoopbackAddress(), 0);
    KubernetesClient client = api.createClient();
    CliJar cli = new CliJar(tmp);
    Process p = null;
    try (DraKubeletStandIn kubelet = new DraKubeletStandIn()) {
      client
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build())
          .create();
      Path kubeconfig =
          Files.writeString(
              tmp.resolve("kubeconfig"),
              String.join(
                  "\n",
                  "apiVersion: v1",
                  "kind: Config",
                  "current-context: t",
                  "clusters:",
                  "- name: t",
                  "  cluster:",
                  "    server: http://127.0.0.1:" + api.getPort(),
                  "contexts:",
                  "- name: t",
                  "  context:",
                  "    cluster: t",
                  "    user: t",
                  "users:",
                  "- name: t",
                  "  user:",
                  "    token: t",
                  ""));
      Path reg = tmp.resolve("plugins_registry");
      p =
          cli.start(
              "dra",
              List.of(
                  "dra",
                  "--simulate",
                  "--node-name",
                  "node-1",
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "--kubelet-registrar-directory-path",
                  reg.toString(),
                  "--kubelet-plugins-directory-path",
                  tmp.resolve("plugins").toString(),
                  "--cdi-root",
                  tmp.resolve("cdi").toString()));
      Path regSocket = reg.resolve("npu.huawei.com-reg.sock");
      CliJar.await(regSocket, 120);
      PluginInfo info = kubelet.getInfo(regSocket);
      assertThat(info.getSupportedVersionsList())
          .containsExactly(
              "v1.DRAPlugin",
              "v1beta1.DRAPlugin",
              "v1.DRAResourceHealth",
              "v1alpha1.DRAResourceHealth");
      kubelet.notifyRegistered(regSocket, true, "");

      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      List<ResourceSlice> slices;
      while ((slices = client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems())
              .isEmpty()
          && System.nanoTime() < end) {
        Thread.sleep(100);
      }
      assertThat(slices)
          .singleElement()
          .satisfies(s -> assertThat(s.getSpec().getDevices()).hasSize(8));

      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build())
          .create();
      ResourceClaim c =
          client
              .dynamicResourceAllocation()
              .v1()
              .resourceClaims()
              .inNamespace("demo")
              .resource(
                  DraClaims.allocated(
                      "demo",
                      "npu-claim",
                      "u",
                      List.of(DraClaims.result("npu", "npu.huawei.com", "node-1", "npu-3"))))
              .create();
      String uid = c.getMetadata().getUid();
      Path draSocket = Path.of(info.getEndpoint());
      NodePrepareResourceResponse r =
          kubelet
              .prepareV1(draSocket, DraKubeletStandIn.claim("demo", uid, "npu-claim"))
              .getClaimsOrThrow(uid);
      assertThat(r.getError()).isEmpty();
      assertThat(r.getDevices(0).getCdiDeviceIdsList())
          .containsExactly("npu.huawei.com/npu=" + uid + "-npu-3");
      Path spec = tmp.resolve("cdi").resolve("npu.huawei.com-npu_" + uid + ".json");
      assertThat(Files.readString(spec))
          .contains(
              "\"path\" : \"/dev/davinci3\"",
              "\"hostPath\" : \"" + cli.simRoot().resolve("dev/davinci3") + "\"");
      assertThat(
              kubelet
                  .unprepareV1(draSocket, DraKubeletStandIn.claim("demo", uid, "npu-claim"))
                  .getClaimsOrThrow(uid)
                  .getError())
          .isEmpty();
      assertThat(spec).doesNotExist();

      p.destroy(); // SIGTERM
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue())
          .isEqualTo(143); // the JVM's status after SIGTERM and the shutdown hook
      assertThat(regSocket).doesNotExist();
      assertThat(cli.err("dra"))
          .contains("published ResourceSlice pool node-1 generation 1")
          .doesNotContain("ERROR", "Exception");
    } finally {
      if (p != null && p.isAlive()) {
        p.destroyForcibly();
      }
      client.close();
      api.destroy();
    }
  }
}
