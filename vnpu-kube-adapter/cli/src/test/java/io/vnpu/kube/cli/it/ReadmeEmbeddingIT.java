package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's embedding example, taken from between its markers, compiles against the SDK modules
 * and runs on the simulated node: the README cannot drift from the API.
 */
class ReadmeEmbeddingIT {

  static final String START = "<!-- embedding-example:start -->";
  static final String END = "<!-- embedding-example:end -->";

  @TempDir Path tmp;

  static String example(String readme) {
    int s = readme.indexOf(START);
    int e = readme.indexOf(END);
    if (s < 0 || e < s)
      throw new AssertionError("README.md lacks the " + START + " ... " + END + " markers");
    String block = readme.substring(s + START.length(), e).strip();
    if (!block.startsWith("```java\n") || !block.endsWith("```")) {
      throw new AssertionError("the embedding example is not one ```java block: " + block);
    }
    return block.substring("```java\n".length(), block.length() - 3);
  }

  /**
   * The class path an embedder of vnpu-dcmi and vnpu-quota has: those modules, what they depend on,
   * and the SLF4J backend the README tells them to add; none of the adapter's.
   */
  static String sdkClassPath(String full) {
    List<String> sdk = new ArrayList<>();
    for (String e : full.split(File.pathSeparator)) {
      String name = Path.of(e).toString().replace(File.separatorChar, '/');
      boolean module =
          name.matches(".*/vnpu-(api|dcmi|quota)/target/classes")
              || name.matches(".*/vnpu-(api|dcmi|quota)-[^/]*\\.jar")
                  && !name.endsWith("-tests.jar");
      boolean dependency =
          name.matches(
              ".*/(jna|jackson-[a-z-]+|snakeyaml|slf4j-api|slf4j-simple)-[0-9][^/]*\\.jar");
      if (module || dependency) sdk.add(e);
    }
    return String.join(File.pathSeparator, sdk);
  }

  @Test
  void theReadmeExampleCompilesAndRunsTwiceInARowWithoutWarnings() throws Exception {
    Path readme = Path.of(CliJar.required("vnpu.repo.dir"), "README.md");
    String code = example(Files.readString(readme, StandardCharsets.UTF_8));
    assertThat(code.lines().count()).isLessThanOrEqualTo(30);
    Path src = Files.createDirectories(tmp.resolve("src")).resolve("EmbedVnpu.java");
    Files.writeString(src, code, StandardCharsets.UTF_8);
    Path classes = Files.createDirectories(tmp.resolve("classes"));
    // failsafe runs tests from a manifest-only jar; this property holds the real class path
    String cp =
        sdkClassPath(
            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    assertThat(cp)
        .contains("vnpu-quota")
        .contains("vnpu-dcmi")
        .contains("slf4j-simple")
        .doesNotContain("grpc");

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    java.io.ByteArrayOutputStream diag = new java.io.ByteArrayOutputStream();
    int rc =
        javac.run(
            null,
            diag,
            diag,
            "--release",
            "17",
            "-cp",
            cp,
            "-d",
            classes.toString(),
            src.toString());
    assertThat(rc).as(diag.toString(StandardCharsets.UTF_8)).isZero();

    Path nativeDir = Path.of(CliJar.required("vnpu.native.dir"));
    Path tmpDir = Files.createDirectories(tmp.resolve("java-tmp"));
    Path sim = Files.createDirectories(tmp.resolve("sim"));
    for (int run = 1; run <= 2; run++) { // the second run finds what the first one left: nothing
      ProcessBuilder pb =
          new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp",
              classes + File.pathSeparator + cp,
              "-Djava.io.tmpdir=" + tmpDir,
              "-Dvnpu.dcmi.library=" + nativeDir.resolve("libdcmi.so"),
              "EmbedVnpu");
      pb.environment().put("VNPU_SIM_ROOT", sim.toString());
      pb.environment().remove("VNPU_SIM_PROFILE");
      pb.redirectErrorStream(true);
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("run %d:%n%s", run, out).isZero();
      List<String> lines = out.lines().toList();
      assertThat(lines).as("run %d: every line, no SLF4J or log warnings", run).hasSize(8 + 2);
      assertThat(lines.get(0)).isEqualTo("NPU 0: 910B3, 65536 MiB");
      assertThat(lines.get(7)).isEqualTo("NPU 7: 910B3, 65536 MiB");
      assertThat(lines.get(8)).isEqualTo("6 GiB admitted: true, 4 GiB more admitted: false");
      assertThat(lines.get(9)).isEqualTo("used bytes: " + (6L << 30));
      assertThat(tmpDir.resolve("vnpu-example-region"))
          .as("run %d removed its region", run)
          .doesNotExist();
    }
  }
}
