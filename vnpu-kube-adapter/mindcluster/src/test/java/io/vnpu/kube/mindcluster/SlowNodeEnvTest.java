package io.vnpu.kube.mindcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.kube.mindcluster.alloc.SlowNodeEnv;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code -enableSlowNode}: PERF_DUMP_PATH / PERF_DUMP_CONFIG from ConfigMap steptime-dtpgroup. */
@EnableKubernetesMockClient(crud = true)
class SlowNodeEnvTest {
  KubernetesClient client;

  @Test
  void theJobsConfigMapGivesBothVariables() {
    client
        .configMaps()
        .inNamespace("train")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("steptime-dtpgroup")
                .withNamespace("train")
                .endMetadata()
                .addToData("PerfDumpPath", "/job/perf")
                .addToData("PerfDumpConfig", "on")
                .build())
        .create();
    assertThat(new SlowNodeEnv(client).forNamespace("train"))
        .containsExactly(
            Map.entry("PERF_DUMP_PATH", "/job/perf"), Map.entry("PERF_DUMP_CONFIG", "on"));
  }

  @Test
  void noConfigMapNoVariables() {
    assertThat(new SlowNodeEnv(client).forNamespace("other")).isEmpty();
  }

  @Test
  void aValueWithANewlineIsLeftOut() {
    client
        .configMaps()
        .inNamespace("evil")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("steptime-dtpgroup")
                .withNamespace("evil")
                .endMetadata()
                .addToData("PerfDumpPath", "/a\nB=c")
                .addToData("PerfDumpConfig", "x".repeat(5000))
                .build())
        .create();
    assertThat(new SlowNodeEnv(client).forNamespace("evil")).isEmpty();
  }
}
