package io.vnpu.kube.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The chart's PrometheusRule and Grafana dashboard: rendered with helm-java, the rule groups are
 * checked by Prometheus's own {@code promtool check rules} and exercised by {@code promtool test
 * rules} ({@code src/test/resources/prometheus/vnpu-rules-test.yaml}: every alert fires on the
 * series it is for and stays silent on the near misses), the Debian {@code prometheus} package's
 * tool. Where promtool is not installed the two promtool tests are skipped with one line in the log
 * ({@code .ci/run} installs it). That every dashboard query's metric is exported is checked against
 * a real scrape in {@code PrometheusScrapeIT}.
 */
public class PrometheusRulesTest {
  /** Only parses and serialises (no request is made); also used from the ITs. */
  private static KubernetesClient client;

  @TempDir Path tmp;

  private static synchronized KubernetesClient client() {
    if (client == null) {
      client = new KubernetesClientBuilder().build();
    }
    return client;
  }

  @AfterAll
  static void close() {
    synchronized (PrometheusRulesTest.class) {
      if (client != null) {
        client.close();
        client = null;
      }
    }
  }

  public static String render(Map<String, String> values) {
    TemplateCommand t =
        new Helm(DeployManifestsTest.deployDir().resolve("helm/vnpu"))
            .template()
            .withName("vnpu")
            .withNamespace("kube-system")
            .withKubeVersion("1.34.0");
    values.forEach(t::set);
    return t.call();
  }

  private static List<HasMetadata> objects(String yaml) {
    return client().load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
  }

  /** The rule groups of the chart's PrometheusRule as a Prometheus rules file. */
  public static String rulesFile(Map<String, String> values) {
    GenericKubernetesResource rule =
        objects(render(values)).stream()
            .filter(o -> o.getKind().equals("PrometheusRule"))
            .map(GenericKubernetesResource.class::cast)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no PrometheusRule rendered"));
    return client().getKubernetesSerialization().asYaml(rule.getAdditionalProperties().get("spec"));
  }

  /** The dashboard JSON of the chart's Grafana ConfigMap. */
  public static JsonNode dashboard() {
    ConfigMap cm =
        objects(render(Map.of("metrics.grafanaDashboard.enabled", "true"))).stream()
            .filter(ConfigMap.class::isInstance)
            .map(ConfigMap.class::cast)
            .filter(c -> c.getMetadata().getName().endsWith("-dashboard"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no dashboard ConfigMap rendered"));
    assertThat(cm.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    return new ObjectMapper().readTree(cm.getData().get("vnpu.json"));
  }

  /** Every {@code expr} of the dashboard's panels. */
  public static List<String> dashboardQueries(JsonNode dashboard) {
    List<String> exprs = new ArrayList<>();
    for (JsonNode panel : dashboard.get("panels")) {
      if (panel.has("targets")) {
        for (JsonNode t : panel.get("targets")) {
          exprs.add(t.get("expr").asString());
        }
      }
    }
    return exprs;
  }

  /** The metric names a PromQL expression reads: vnpu's, HAMi's and npu-exporter's. */
  public static List<String> metricNames(String expr) {
    List<String> names = new ArrayList<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\b((?:vnpu|hami|npu_chip_info)_[a-z0-9_]+)\\b")
            .matcher(expr);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  @Test
  void nothingIsRenderedUnlessAsked() {
    List<HasMetadata> o = objects(render(Map.of()));
    assertThat(o).noneMatch(x -> x.getKind().equals("PrometheusRule"));
    assertThat(o).noneMatch(x -> x.getMetadata().getName().endsWith("-dashboard"));
  }

  @Test
  void theRuleHasTheAlertsOperatorsNeedAndItsLabels() {
    String rules =
        rulesFile(
            Map.of(
                "metrics.prometheusRule.enabled",
                "true",
                "metrics.prometheusRule.labels.release",
                "kube-prometheus-stack"));
    assertThat(rules)
        .contains(
            "alert: \"VnpuNpuUnhealthy\"",
            "alert: \"VnpuSliceMemoryRefused\"",
            "alert: \"VnpuShareStarved\"",
            "alert: \"VnpuPluginNotRegistered\"",
            "alert: \"VnpuLimiterNotVerified\"",
            "record: \"vnpu:slice_memory_used:ratio\"");
    GenericKubernetesResource rule =
        objects(
                render(
                    Map.of(
                        "metrics.prometheusRule.enabled",
                        "true",
                        "metrics.prometheusRule.labels.release",
                        "kube-prometheus-stack")))
            .stream()
            .filter(x -> x.getKind().equals("PrometheusRule"))
            .map(GenericKubernetesResource.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(rule.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
    // thresholds come from the values
    assertThat(
            rulesFile(
                Map.of(
                    "metrics.prometheusRule.enabled",
                    "true",
                    "metrics.prometheusRule.oomRejections",
                    "3",
                    "metrics.prometheusRule.oomWindow",
                    "2m")))
        .contains("increase(vnpu_slice_oom_rejections_total[2m]) >= 3");
  }

  @Test
  void promtoolChecksTheRules() throws Exception {
    Path promtool = promtool("promtoolChecksTheRules");
    Path rules =
        Files.writeString(
            tmp.resolve("vnpu-rules.yaml"),
            rulesFile(Map.of("metrics.prometheusRule.enabled", "true")));
    String out = run(promtool, "check", "rules", rules.toString());
    assertThat(out).contains("SUCCESS: 10 rules found");
  }

  @Test
  void promtoolUnitTestsOfEveryAlertPass() throws Exception {
    Path promtool = promtool("promtoolUnitTestsOfEveryAlertPass");
    Files.writeString(
        tmp.resolve("vnpu-rules.yaml"),
        rulesFile(Map.of("metrics.prometheusRule.enabled", "true")));
    Path test = tmp.resolve("vnpu-rules-test.yaml");
    try (InputStream in =
        PrometheusRulesTest.class.getResourceAsStream("/prometheus/vnpu-rules-test.yaml")) {
      Files.write(test, in.readAllBytes());
    }
    String out = run(promtool, "test", "rules", test.toString());
    assertThat(out).contains("SUCCESS");
  }

  @Test
  void theDashboardQueriesOnlyVnpuSeriesAndEveryPanelHasOne() {
    JsonNode d = dashboard();
    assertThat(d.get("title").asString()).isEqualTo("vnpu: Ascend NPUs and soft slices");
    List<String> queries = dashboardQueries(d);
    assertThat(queries).hasSizeGreaterThanOrEqualTo(10);
    assertThat(queries).allSatisfy(q -> assertThat(metricNames(q)).as(q).isNotEmpty());
  }

  /** promtool from the PATH, or the test is skipped with one line in the log. */
  static Path promtool(String test) {
    Optional<Path> p = which("promtool");
    if (p.isEmpty()) {
      String why = "promtool is not installed (Debian package prometheus; .ci/run installs it)";
      System.err.println("[vnpu] PrometheusRulesTest." + test + " skipped: " + why);
      org.junit.jupiter.api.Assumptions.abort(why);
    }
    return p.get();
  }

  static Optional<Path> which(String tool) {
    for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/bin").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
        return Optional.of(Path.of(d, tool));
      }
    }
    return Optional.empty();
  }

  private static String run(Path tool, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(tool.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s did not finish", cmd).isTrue();
    assertThat(p.exitValue()).as("%s: %s", cmd, out).isZero();
    return out;
  }
}
