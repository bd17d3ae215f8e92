package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.kube.deploy.PrometheusRulesTest;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.testing.DraClaims;
import io.vnpu.kube.testing.DraKubeletStandIn;
import io.vnpu.kube.testing.prometheus.PrometheusServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A real Prometheus (Debian package, loopback only) scrapes the HAMi node agent ({@code vnpu plugin
 * --simulate} with soft slicing) and the DRA plugin ({@code vnpu dra --simulate}), both the shaded
 * jar as a user runs it, and evaluates the chart's recording and alerting rules. Checked with
 * PromQL through its HTTP API: both targets are up and registered, a soft slice's series appear
 * after its Allocate (and the chart's recording rule over them) and are gone once its pod is
 * deleted, and every metric a query of the chart's Grafana dashboard reads is in the scrape.
 * Skipped with one line in the log where Prometheus is not installed.
 */
class PrometheusScrapeIT {
  private static final long MIB = 1L << 20;

  @TempDir Path tmp;

  @Test
  void prometheusScrapesBothAgentsAndASliceSeriesGoWithItsPod() throws Exception {
    if (PrometheusServer.binary().isEmpty()) {
      String why = "prometheus is not installed (Debian package prometheus; .ci/run installs it)";
      System.err.println("[vnpu] PrometheusScrapeIT skipped: " + why);
      org.junit.jupiter.api.Assumptions.abort(why);
    }
    ClusterStandIn cluster = ClusterStandIn.start(tmp, "demo");
    KubernetesClient client = cluster.client();
    CliJar hamiCli = new CliJar(Files.createDirectories(tmp.resolve("hami")));
    CliJar draCli = new CliJar(Files.createDirectories(tmp.resolve("dra")));
    Process hami = null;
    ClusterStandIn.Dra dra = null;
    try (KubeletStandIn kubelet = KubeletStandIn.start(tmp.resolve("device-plugins"));
        DraKubeletStandIn draKubelet = new DraKubeletStandIn()) {
      // the HAMi node agent with soft slicing on the simulated 910B3x8
      Path config =
          Files.writeString(
              tmp.resolve("device-config.yaml"),
              Files.readString(repo().resolve("config/device-config.yaml"))
                  .replace("hamiVnpuCore: false", "hamiVnpuCore: true"));
      int hamiPort = PrometheusServer.freePort();
      hami =
          hamiCli.start(
              "plugin",
              List.of(
                  "plugin",
                  "--simulate",
                  "--node_name",
                  "node-1",
                  "--config_file",
                  config.toString(),
                  "--kubelet-dir",
                  kubelet.pluginDir().toString(),
                  "--limiter-dir",
                  tmp.resolve("limiter").toString(),
                  "--limiter-assets",
                  hamiCli.nativeDir().toString(),
                  "--metrics-port",
                  Integer.toString(hamiPort),
                  "--metrics-host",
                  "127.0.0.1"),
              Map.of(
                  "KUBECONFIG",
                  cluster.kubeconfig().toString(),
                  "HOOK_PATH",
                  tmp.resolve("hook").toString()));
      RegisterRequest reg = kubelet.awaitRegistration(Duration.ofSeconds(120));
      assertThat(reg)
          .as("device plugin registration; agent log: %s", hamiCli.err("plugin"))
          .isNotNull();
      assertThat(reg.getResourceName()).isEqualTo("huawei.com/Ascend910B3");

      // the DRA plugin with its metrics
      int draPort = PrometheusServer.freePort();
      dra =
          cluster.startDra(
              draCli,
              draKubelet,
              tmp,
              "--metrics-port",
              Integer.toString(draPort),
              "--metrics-address",
              "127.0.0.1");

      Path rules =
          Files.writeString(
              tmp.resolve("vnpu-rules.yaml"),
              PrometheusRulesTest.rulesFile(Map.of("metrics.prometheusRule.enabled", "true")));
      try (PrometheusServer prom =
          PrometheusServer.start(
              Files.createDirectories(tmp.resolve("prometheus")),
              Map.of("vnpu-agent", "127.0.0.1:" + hamiPort, "vnpu-dra", "127.0.0.1:" + draPort),
              List.of(rules))) {
        prom.await("up == 1", r -> r.size() == 2, 60);
        assertThat(
                labels(
                    prom.await("vnpu_plugin_registered == 1", r -> r.size() == 2, 60), "resource"))
            .containsExactly("huawei.com/Ascend910B3", "npu.huawei.com");

        // a soft slice: Allocate of a pod the HAMi scheduler bound with 1024 MiB and 40 % of a chip
        String device;
        try (PluginClient plugin = kubelet.connect(reg);
            PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
          device = law.next(Duration.ofSeconds(60)).getDevices(0).getID();
          String uuid = device.substring(0, device.lastIndexOf('-'));
          hamiPod(client, uuid);
          assertThat(plugin.allocate(List.of(List.of(device))).getContainerResponsesCount())
              .isEqualTo(1);
          // a refused request, so the error series exists as on any real node
          org.assertj.core.api.Assertions.assertThatThrownBy(
                  () -> plugin.allocate(List.of(List.of("no-such-device"))))
              .isInstanceOf(io.grpc.StatusRuntimeException.class);
        }
        // and a DRA prepare
        assertThat(
                cluster
                    .prepare(
                        draKubelet,
                        dra.draSocket(),
                        "demo",
                        "whole",
                        "u",
                        DraClaims.result(
                            "npu", ClusterStandIn.DRIVER, ClusterStandIn.NODE, "npu-1"))
                    .response()
                    .getError())
            .isEmpty();

        String slice = "{namespace=\"default\",pod=\"train\",container=\"main\"}";
        List<JsonNode> limit =
            prom.await("vnpu_slice_memory_limit_bytes" + slice, r -> r.size() == 1, 60);
        assertThat(value(limit.get(0))).isEqualTo(1024.0 * MIB);
        assertThat(limit.get(0).get("metric").get("node").asString()).isEqualTo("node-1");
        prom.await("vnpu_slice_aicore_target_ratio" + slice, r -> r.size() == 1, 30);
        // issue 23: the tenant writes 64 GiB into its own region; the scrape keeps the 1024 MiB it
        // was charged and flags the field
        Path region;
        try (var dirs = Files.list(tmp.resolve("hook").resolve("containers"))) {
          region =
              dirs.filter(d -> d.getFileName().toString().endsWith("_main"))
                  .findFirst()
                  .orElseThrow()
                  .resolve("vnpu_local_shmem");
        }
        try (io.vnpu.quota.region.QuotaRegion tenant =
            new io.vnpu.quota.region.QuotaRegions().open(region)) {
          io.vnpu.quota.model.RegionConfig c = tenant.readConfig();
          io.vnpu.quota.model.DeviceQuota q = c.devices().get(0);
          tenant.updateConfig(
              c.withDevices(
                  List.of(
                      new io.vnpu.quota.model.DeviceQuota(
                          64L << 30,
                          q.computeWeight(),
                          q.computeCapPct(),
                          q.priority(),
                          q.physId(),
                          q.uuid()))));
        }
        prom.await(
            "vnpu_slice_region_mismatch{namespace=\"default\",pod=\"train\",container=\"main\","
                + "field=\"memory_limit\"} == 1",
            r -> r.size() == 1,
            60);
        assertThat(
                value(
                    prom.await("vnpu_slice_memory_limit_bytes" + slice, r -> r.size() == 1, 30)
                        .get(0)))
            .isEqualTo(1024.0 * MIB);
        // the chart's recording rule over the slice's series
        assertThat(
                value(
                    prom.await("vnpu:slice_memory_used:ratio" + slice, r -> r.size() == 1, 30)
                        .get(0)))
            .isZero();
        prom.await(
            "vnpu_plugin_requests_total{job=\"vnpu-dra\",operation=\"prepare\"}",
            r -> r.size() == 1 && value(r.get(0)) == 1.0,
            30);
        prom.await("vnpu_plugin_request_errors_total{job=\"vnpu-agent\"}", r -> !r.isEmpty(), 30);

        // every metric the dashboard reads is in the scrape
        List<String> names = prom.metricNames();
        TreeSet<String> missing = new TreeSet<>();
        for (String q : PrometheusRulesTest.dashboardQueries(PrometheusRulesTest.dashboard())) {
          PrometheusRulesTest.metricNames(q).stream()
              .filter(n -> !names.contains(n))
              .forEach(missing::add);
          prom.query(q.replace("$node", ".*")); // valid PromQL: the API answers success
        }
        assertThat(missing).as("dashboard metrics not in the scrape of %s", names).isEmpty();

        // the pod is deleted: its series go with it (stale after the next scrape); the NPUs stay
        client.pods().inNamespace("default").withName("train").delete();
        prom.await("{__name__=~\"vnpu_slice_.+\",pod=\"train\"}", List::isEmpty, 60);
        prom.await("vnpu:slice_memory_used:ratio" + slice, List::isEmpty, 30);
        assertThat(prom.query("vnpu_npu_hbm_total_bytes{job=\"vnpu-agent\"}")).hasSize(8);
      }
      // (a scrape Prometheus gave up on shows as the exporter's broken pipe: not ours)
      assertThat(hamiCli.err("plugin")).doesNotContain(" ERROR ");
      assertThat(draCli.err("dra")).doesNotContain(" ERROR ");
    } finally {
      ClusterStandIn.stop(hami);
      if (dra != null) {
        dra.close();
      }
      cluster.close();
    }
  }

  /** A Pending pod as the HAMi scheduler leaves it at Bind: 1024 MiB and 40 % of chip uuid. */
  private static void hamiPod(KubernetesClient client, String uuid) {
    client
        .nodes()
        .withName("node-1")
        .edit(
            n ->
                new NodeBuilder(n)
                    .editMetadata()
                    .addToAnnotations("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,train")
                    .endMetadata()
                    .build());
    Map<String, String> a = new LinkedHashMap<>();
    a.put("hami.io/bind-time", "1");
    a.put("hami.io/bind-phase", "allocating");
    a.put("hami.io/vgpu-node", "node-1");
    a.put("huawei.com/vnpu-mode", "hami-core");
    a.put("hami.io/Ascend910B3-devices-to-allocate", uuid + ",Ascend910B3,1024,40:;");
    a.put("huawei.com/Ascend910B3", "[{\"UUID\":\"" + uuid + "\",\"memory\":1024,\"core\":40}]");
    client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("train")
                .withNamespace("default")
                .withAnnotations(a)
                .addToLabels("hami.io/vgpu-node", "node-1")
                .endMetadata()
                .withNewSpec()
                .withNodeName("node-1")
                .withContainers(
                    new ContainerBuilder()
                        .withName("main")
                        .withImage("busybox")
                        .withNewResources()
                        .withLimits(Map.of("huawei.com/Ascend910B3", new Quantity("1")))
                        .endResources()
                        .build())
                .endSpec()
                .withNewStatus()
                .withPhase("Pending")
                .endStatus()
                .build())
        .create();
  }

  private static List<String> labels(List<JsonNode> result, String label) {
    return result.stream().map(r -> r.get("metric").get(label).asString()).sorted().toList();
  }

  private static double value(JsonNode sample) {
    return Double.parseDouble(sample.get("value").get(1).asString());
  }

  /** The repository root: the directory above holding {@code config/device-config.yaml}. */
  static Path repo() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("config/device-config.yaml"))
          && Files.isDirectory(d.resolve("deploy"))) {
        return d;
      }
    }
    throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
  }
}
