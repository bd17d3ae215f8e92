package io.vnpu.kube.testing;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The objects {@code deploy/helm/vnpu} renders ({@code helm template}, in-process by helm-java).
 */
public final class ChartObjects {
  private ChartObjects() {}

  /** {@code deploy/helm/vnpu}, found above the working directory. */
  public static Path chart() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("deploy/helm/vnpu/Chart.yaml"))) {
        return d.resolve("deploy/helm/vnpu");
      }
    }
    throw new IllegalStateException(
        "no deploy/helm/vnpu/Chart.yaml above " + Path.of("").toAbsolutePath());
  }

  /** The chart rendered as release {@code vnpu} in {@code kube-system} with {@code values}. */
  public static List<HasMetadata> render(Map<String, Object> values) {
    TemplateCommand t =
        new Helm(chart())
            .template()
            .withName("vnpu")
            .withNamespace("kube-system")
            .withKubeVersion("1.34.0");
    values.forEach(t::set);
    String yaml = t.call();
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      return client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
    }
  }

  /** The one object of {@code type}. */
  public static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    if (found.size() != 1) {
      throw new AssertionError("expected one " + type.getSimpleName() + ", got " + found.size());
    }
    return found.get(0);
  }
}
