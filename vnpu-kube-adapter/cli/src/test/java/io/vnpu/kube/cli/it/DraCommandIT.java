package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.vnpu.kube.dra.proto.registration.PluginInfo;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.testing.DraClaims;
import io.vnpu.kube.testing.DraKubeletStandIn;
import java.nio.file.Files;
import java.nio.file.Path;
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
    CliJar cli = new CliJar(tmp);
    try (ClusterStandIn cluster = ClusterStandIn.start(tmp, "demo");
        DraKubeletStandIn kubelet = new DraKubeletStandIn();
        ClusterStandIn.Dra dra = cluster.startDra(cli, kubelet, tmp)) {
      Process p = dra.process();
      PluginInfo info = dra.info();
      assertThat(info.getSupportedVersionsList())
          .containsExactly(
              "v1.DRAPlugin",
              "v1beta1.DRAPlugin",
              "v1.DRAResourceHealth",
              "v1alpha1.DRAResourceHealth");

      List<ResourceSlice> slices = cluster.awaitSlices();
      assertThat(slices)
          .singleElement()
          .satisfies(s -> assertThat(s.getSpec().getDevices()).hasSize(8));

      ClusterStandIn.Prepared c =
          cluster.prepare(
              kubelet,
              dra.draSocket(),
              "demo",
              "npu-claim",
              "u",
              DraClaims.result("npu", ClusterStandIn.DRIVER, ClusterStandIn.NODE, "npu-3"));
      String uid = c.uid();
      NodePrepareResourceResponse r = c.response();
      assertThat(r.getError()).isEmpty();
      assertThat(r.getDevices(0).getCdiDeviceIdsList())
          .containsExactly("npu.huawei.com/npu=" + uid + "-npu-3");
      Path spec = tmp.resolve("cdi").resolve("npu.huawei.com-npu_" + uid + ".json");
      assertThat(Files.readString(spec))
          .contains(
              "\"path\" : \"/dev/davinci3\"",
              "\"hostPath\" : \"" + cli.simRoot().resolve("dev/davinci3") + "\"");
      cluster.unprepare(kubelet, dra.draSocket(), "demo", c.name(), uid);
      assertThat(spec).doesNotExist();

      p.destroy(); // SIGTERM
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue())
          .isEqualTo(143); // the JVM's status after SIGTERM and the shutdown hook
      assertThat(dra.regSocket()).doesNotExist();
      assertThat(cli.err("dra"))
          .contains("published ResourceSlice pool node-1 generation 1")
          .doesNotContain("ERROR", "Exception");
    }
  }
}
