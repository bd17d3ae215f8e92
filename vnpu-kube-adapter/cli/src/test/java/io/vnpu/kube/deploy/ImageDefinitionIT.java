package io.vnpu.kube.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/image/Dockerfile} copies only what exists after {@code mvn package}: every {@code
 * COPY --from=<stage> /src/<path>} names a file the build produced in this checkout, every plain
 * {@code COPY} a file of the repository. Runs as a failsafe IT, after the package phase.
 */
class ImageDefinitionIT {
  private static final Pattern COPY =
      Pattern.compile("^COPY\\s+(--from=(\\S+)\\s+)?(\\S+)\\s+(\\S+)\\s*$");

  @Test
  void everyCopiedFileIsProducedByThePackageOrTracked() throws Exception {
    Path root = DeployManifestsTest.deployDir().getParent();
    List<String> copies = new ArrayList<>();
    for (String line : Files.readAllLines(root.resolve("deploy/image/Dockerfile"))) {
      Matcher m = COPY.matcher(line.strip());
      if (!m.matches()) continue;
      String source = m.group(3);
      Path inRepo =
          m.group(2) == null
              ? root.resolve(source)
              : root.resolve(source.replaceFirst("^/src/", ""));
      copies.add(source);
      assertThat(source)
          .as("COPY --from sources live under the build stages' /src")
          .satisfiesAnyOf(
              s -> assertThat(m.group(2)).isNull(), s -> assertThat(s).startsWith("/src/"));
      if (m.group(2) == null || !source.endsWith("/")) {
        assertThat(inRepo).as("Dockerfile: %s (in %s)", line.strip(), root).exists();
      }
    }
    assertThat(copies)
        .contains(
            "/src/vnpu-kube-adapter/cli/target/vnpu-cli-0.1.0-SNAPSHOT-all.jar",
            "/src/native/build/libvnpu.so",
            "config/device-config.yaml",
            "deploy/image/vnpu");
    // the jar the image runs is the one failsafe's other ITs run
    assertThat(root.resolve("vnpu-kube-adapter/cli/target/vnpu-cli-0.1.0-SNAPSHOT-all.jar"))
        .isEqualTo(Path.of(System.getProperty("shaded.jar")).toAbsolutePath().normalize());
    assertThat(Files.isExecutable(root.resolve("deploy/image/vnpu"))).isTrue();
  }
}
