package io.vnpu.kube.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every chart value the README and docs/ set ({@code --set key=value}) is one of the chart's
 * values.yaml: the chart has no schema, so Helm renders a misspelt key without a word and the
 * setting silently does nothing.
 */
class DocumentedChartValuesTest {
  /** The repository root: this test runs in vnpu-kube-adapter/cli. */
  private static final Path REPO = Path.of("").toAbsolutePath().getParent().getParent();

  private static final Pattern SET =
      Pattern.compile("--set(?:-string)?[ =]([A-Za-z0-9_.\\[\\]]+)=");
  private static final Pattern INDEX = Pattern.compile("(\\w+)\\[\\d+\\]");

  @Test
  void everyDocumentedSetKeyIsAChartValue() throws IOException {
    @SuppressWarnings("unchecked")
    Map<String, Object> values =
        Serialization.unmarshal(
            Files.readString(REPO.resolve("deploy/helm/vnpu/values.yaml")), Map.class);
    List<Path> pages = new ArrayList<>(List.of(REPO.resolve("README.md")));
    try (Stream<Path> docs = Files.list(REPO.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    int keys = 0;
    List<String> unknown = new ArrayList<>();
    for (Path page : pages) {
      List<String> lines = Files.readAllLines(page);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = SET.matcher(lines.get(i));
        while (m.find()) {
          keys++;
          if (!present(values, m.group(1))) {
            unknown.add(REPO.relativize(page) + ":" + (i + 1) + ": " + m.group(1));
          }
        }
      }
    }
    assertThat(keys).as("--set keys found in the docs").isGreaterThan(10);
    assertThat(unknown).as("--set keys the chart's values.yaml does not have").isEmpty();
  }

  /** Whether {@code a.b[0].c} names a value: a list index walks into the list's element type. */
  private static boolean present(Map<String, Object> values, String key) {
    Object at = values;
    for (String part : key.split("\\.")) {
      Matcher index = INDEX.matcher(part);
      String name = index.matches() ? index.group(1) : part;
      if (!(at instanceof Map<?, ?> map) || !map.containsKey(name)) return false;
      at = map.get(name);
      if (index.matches()) {
        if (!(at instanceof List<?> list)) return false;
        // an empty default list: its entries' keys are the chart's to document, not checkable here
        if (list.isEmpty()) return true;
        at = list.get(0);
      }
    }
    return true;
  }
}
