package io.vnpu.kube.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.testing.HamiFixtures;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code vnpu config check} run in-process with captured stdout and stderr. */
class ConfigCommandTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = VnpuCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void goodFilePrintsTheChipTableAndExitsZero(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("device-config.yaml");
    Files.writeString(
        file,
        """
        vnpus:
          hamiVnpuCore: true
          configs:
          - chipName: 910B3
            commonWord: Ascend910B3
            resourceName: huawei.com/Ascend910B3
            resourceMemoryName: huawei.com/Ascend910B3-memory
            memoryAllocatable: 65536
            memoryCapacity: 65536
            aiCore: 20
            aiCPU: 7
            templates:
            - {name: vir10_3c_32g, memory: 32768, aiCore: 10, aiCPU: 3}
            - {name: vir05_1c_16g, memory: 16Gi, aiCore: 5, aiCPU: 1}
          - chipName: Ascend910
            commonWord: Ascend910C
            resourceName: huawei.com/Ascend910C
            resourceMemoryName: huawei.com/Ascend910C-memory
            memoryAllocatable: 65536
            memoryCapacity: 65536
            aiCore: 20
            colour: blue
        """);

    int exit = run("config", "check", file.toString());

    assertThat(exit).isZero();
    assertThat(err.toString()).isEmpty();
    assertThat(out.toString())
        .isEqualTo(
            String.join(
                "\n",
                "device config " + file + ": 2 chip configs, hamiVnpuCore true",
                "CHIP       COMMONWORD   MEMORY MiB  ALLOCATABLE MiB  AI CORES  AI CPUS"
                    + "  TEMPLATES (name:MiB:aiCore:aiCPU)                VDEVICECOUNT",
                "910B3      Ascend910B3  65536       65536            20        7      "
                    + "  vir05_1c_16g:16384:5:1, vir10_3c_32g:32768:10:3  4",
                "Ascend910  Ascend910C   65536       65536            20        0      "
                    + "  -                                                1",
                "warning: "
                    + file
                    + ":14: vnpus.configs[0].templates[1].memory = 16Gi: read as 16384 MiB;"
                    + " HAMi's scheduler reads only integers of MiB here, write 16384 if it shares this"
                    + " file",
                "warning: " + file + ":22: vnpus.configs[1].colour: unknown key, ignored",
                ""));
  }

  @Test
  void badFilePrintsEveryErrorAndExitsOne(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("bad.yaml");
    Files.writeString(
        file,
        """
        vnpus:
        - chipName: 910B3
          commonWord: Ascend910B3
          resourceName: huawei.com/Ascend910B3
          resourceMemoryName: huawei.com/Ascend910B3-memory
          memoryAllocatable: 68719476736
          memoryCapcity: 65536
          aiCore: 20
          templates:
          - {name: vir05_1c_16g, memory: 16384, aiCore: 25}
        """);

    int exit = run("config", "check", file.toString());

    assertThat(exit).isEqualTo(1);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString().lines())
        .containsExactly(
            "error: " + file + ":2: vnpus[0].memoryCapacity: required key is missing",
            "error: "
                + file
                + ":6: vnpus[0].memoryAllocatable = 68719476736: is surely bytes, not MiB"
                + " (sizes are MiB as in HAMi); 68719476736 bytes = 65536 MiB: write 65536 or 64Gi",
            "error: "
                + file
                + ":10: vnpus[0].templates[0].aiCore = 25: more AI Cores than the chip"
                + " (aiCore 20)",
            "warning: " + file + ":7: vnpus[0].memoryCapcity: unknown key, ignored");
  }

  @Test
  void missingFileIsAnError(@TempDir Path dir) {
    Path file = dir.resolve("absent.yaml");

    assertThat(run("config", "check", file.toString())).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("error: " + file + ": no such file\n");
  }

  @Test
  void shippedHamiConfigMapWithNodeConfig() {
    Path devices = HamiFixtures.file("ascend-device-configmap.yaml");
    Path nodes = HamiFixtures.file("ascend-device-node-configmap.yaml");

    int exit =
        run(
            "config",
            "check",
            devices.toString(),
            "--node-config",
            nodes.toString(),
            "--node",
            "worker-1");

    assertThat(exit).isZero();
    assertThat(err.toString()).isEmpty();
    assertThat(out.toString())
        .contains("device config " + devices + ": 7 chip configs, hamiVnpuCore false\n")
        .containsPattern(
            "\\n910B3 +Ascend910B3 +65536 +65536 +20 +7 +vir05_1c_16g:16384:5:1,"
                + " vir10_3c_32g:32768:10:3 +8\\n")
        .containsPattern(
            "\\n310P3 +Ascend310P +24576 +21527 +8 +7 +vir01:3072:1:1,"
                + " vir02:6144:2:2, vir04:12288:4:4 +8\\n")
        .contains("VDEVICECOUNT (worker-1)")
        .contains("node config " + nodes + ": 1 node\n")
        .containsPattern("\\nworker-1 +true +8 +- +-\\n");
  }

  @Test
  void shippedHamiConfigMapWithoutNodeOverride() {
    Path devices = HamiFixtures.file("ascend-device-configmap.yaml");

    assertThat(run("config", "check", devices.toString())).isZero();
    assertThat(out.toString())
        .containsPattern(
            "\\n910A +Ascend910A +32768 +32768 +30 +0 +vir02:2184:2:0, vir04:4369:4:0,"
                + " vir08:8738:8:0, vir16:17476:16:0 +15\\n")
        .containsPattern("\\n910B3 +Ascend910B3 .* 4\\n")
        .containsPattern("\\n310P3 +Ascend310P .* 7\\n");
  }

  @Test
  void repositorySampleConfigIsValid() {
    Path sample = Path.of("..", "..", "config", "device-config.yaml");
    Path nodes = Path.of("..", "..", "config", "node-config.yaml");

    int exit = run("config", "check", sample.toString(), "--node-config", nodes.toString());

    assertThat(err.toString()).isEmpty();
    assertThat(exit).isZero();
    assertThat(out.toString())
        .contains(": 5 chip configs, hamiVnpuCore false\n")
        .doesNotContain("warning:")
        .containsPattern("\\n910ProB +Ascend910A +32768 +32768 +30 +0 .* 15\\n")
        .containsPattern("\\nvnpu-sim +true +8 +- +-\\n");
  }

  @Test
  void nodeWithoutNodeConfigIsAUsageError() {
    Path devices = HamiFixtures.file("ascend-device-configmap.yaml");

    assertThat(run("config", "check", devices.toString(), "--node", "worker-1")).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "vnpu config check: --node needs --node-config (see 'vnpu config check --help')"
                + System.lineSeparator());
  }

  // the fuzzer's crash inputs (test resources fuzz/, issue 19): one error line with file and line,
  // exit 1, no stack trace and no Java type name
  @Test
  void crashInputsGiveOneErrorLineAndExitOne(@TempDir Path dir) throws IOException {
    for (String name :
        new String[] {
          "config-crash-4377433b.yaml",
          "config-crash-58602f09.yaml",
          "config-crash-803fd099.yaml",
          "config-crash-e1b409a4.yaml"
        }) {
      Path file = dir.resolve(name);
      try (java.io.InputStream in = getClass().getResourceAsStream("/fuzz/" + name)) {
        Files.write(file, in.readAllBytes());
      }
      err.getBuffer().setLength(0);
      assertThat(run("config", "check", file.toString())).as(name).isEqualTo(1);
      assertThat(err.toString().lines())
          .as(name)
          .hasSize(1)
          .allSatisfy(
              l ->
                  assertThat(l)
                      .matches(
                          "error: "
                              + java.util.regex.Pattern.quote(file.toString())
                              + ":[1-9][0-9]*: .*")
                      .doesNotContain("Exception"));
    }
  }
}
