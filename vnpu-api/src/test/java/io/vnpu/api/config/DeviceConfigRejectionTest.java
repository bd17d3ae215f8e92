package io.vnpu.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.vnpu.api.testing.HamiFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every rejection rule with its exact error text: file, line, YAML path, value, reason. Each case
 * replaces one line of a valid config.
 */
class DeviceConfigRejectionTest {

  /** Valid; line numbers below refer to this text. */
  private static final String BASE =
      """
      vnpus:
        hamiVnpuCore: false
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
            - name: vir05_1c_16g
              memory: 16384
              aiCore: 5
              aiCPU: 1
            - name: vir10_3c_32g
              memory: 32768
              aiCore: 10
              aiCPU: 3
      """;

  private final DeviceConfigLoader loader = new DeviceConfigLoader(w -> {});

  @Test
  void baseIsValid() {
    assertThat(loader.parse(BASE, "bad.yaml").value().chips()).hasSize(1);
  }

  @ParameterizedTest(name = "line {0}: {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
      14 | `        memory: 0`                | bad.yaml:14: vnpus.configs[0].templates[0].memory = 0: must be > 0 MiB
      9  | `    memoryCapacity: -65536`       | bad.yaml:9: vnpus.configs[0].memoryCapacity = -65536: must be > 0 MiB
      14 | `        memory: -16Gi`            | bad.yaml:14: vnpus.configs[0].templates[0].memory = -16Gi: must be > 0 MiB
      10 | `    aiCore: 0`                    | bad.yaml:10: vnpus.configs[0].aiCore = 0: must be > 0
      16 | `        aiCPU: -1`                | bad.yaml:16: vnpus.configs[0].templates[0].aiCPU = -1: must be >= 0
      18 | `        memory: 32k8`             | bad.yaml:18: vnpus.configs[0].templates[1].memory = 32k8: not an integer number of MiB nor a quantity such as 16Gi or 16384Mi
      8  | `    memoryAllocatable: 65536.5`   | bad.yaml:8: vnpus.configs[0].memoryAllocatable = 65536.5: not an integer number of MiB nor a quantity such as 16Gi or 16384Mi
      15 | `        aiCore: five`             | bad.yaml:15: vnpus.configs[0].templates[0].aiCore = five: not an integer
      15 | `        aiCore: 2.5`              | bad.yaml:15: vnpus.configs[0].templates[0].aiCore = 2.5: not an integer
      14 | `        memory: 16G`              | bad.yaml:14: vnpus.configs[0].templates[0].memory = 16G: is 15258.7890625 MiB, not a whole number of MiB; use a binary suffix (Mi, Gi) or an integer of MiB
      8  | `    memoryAllocatable: 70000`     | bad.yaml:8: vnpus.configs[0].memoryAllocatable = 70000: larger than memoryCapacity (65536 MiB)
      18 | `        memory: 65537`            | bad.yaml:18: vnpus.configs[0].templates[1].memory = 65537: larger than the chip's memoryCapacity (65536 MiB)
      19 | `        aiCore: 21`               | bad.yaml:19: vnpus.configs[0].templates[1].aiCore = 21: more AI Cores than the chip (aiCore 20)
      20 | `        aiCPU: 8`                 | bad.yaml:20: vnpus.configs[0].templates[1].aiCPU = 8: more AI CPUs than the chip (aiCPU 7)
      17 | `      - name: vir05_1c_16g`       | bad.yaml:17: vnpus.configs[0].templates[1].name = vir05_1c_16g: duplicate template name (first at line 13)
      5  | `    # commonWord removed`         | bad.yaml:4: vnpus.configs[0].commonWord: required key is missing
      14 | `        # memory removed`         | bad.yaml:13: vnpus.configs[0].templates[0].memory: required key is missing
      10 | `    # aiCore removed`             | bad.yaml:4: vnpus.configs[0].aiCore: required key is missing
      4  | `  - chipName: ""`                 | bad.yaml:4: vnpus.configs[0].chipName = "": must not be empty
      9  | `    memoryCapacity: 68719476736`  | bad.yaml:9: vnpus.configs[0].memoryCapacity = 68719476736: is surely bytes, not MiB (sizes are MiB as in HAMi); 68719476736 bytes = 65536 MiB: write 65536 or 64Gi
      14 | `        memory: 17179869185`      | bad.yaml:14: vnpus.configs[0].templates[0].memory = 17179869185: is surely bytes, not MiB (sizes are MiB as in HAMi); write the size in MiB or as a quantity such as 16Gi
      10 | `    aiCore: 4294967296`           | bad.yaml:10: vnpus.configs[0].aiCore = 4294967296: overflows the 32-bit integer HAMi uses (-2147483648..2147483647)
      9  | `    memoryCapacity: 4Pi`          | bad.yaml:9: vnpus.configs[0].memoryCapacity = 4Pi: is 4294967296 MiB, which overflows the 32-bit MiB field HAMi uses (max 2147483647)
      2  | `  hamiVnpuCore: maybe`           | bad.yaml:2: vnpus.hamiVnpuCore = maybe: not a boolean (true or false)
      11 | `    AICORE: 20`                   | bad.yaml:11: vnpus.configs[0].AICORE: duplicate key (first at line 10; keys are case-insensitive, as HAMi reads them)
      4  | `  - chipName: [910B3]`           | bad.yaml:4: vnpus.configs[0].chipName: expected a string, got a list
      """)
  void rejects(int line, String replacement, String expected) {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> loader.parse(replaceLine(BASE, line, replacement), "bad.yaml"));

    assertThat(e).as("no ConfigException for line %d: %s", line, replacement).isNotNull();
    assertThat(e.errors()).extracting(ConfigProblem::toString).containsExactly(expected);
    assertThat(e.getMessage()).isEqualTo(expected);
  }

  @ParameterizedTest(name = "line 7: {0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
      `    # resourceMemoryName removed` | bad.yaml:4: vnpus.configs[0].resourceMemoryName: is missing; only the HAMi scheduler reads it (this device plugin does not), so pods cannot request it
      `    resourceMemoryName:`          | bad.yaml:7: vnpus.configs[0].resourceMemoryName: has no value; only the HAMi scheduler reads it (this device plugin does not), so pods cannot request it
      `    resourceMemoryName: [a, b]`   | bad.yaml:7: vnpus.configs[0].resourceMemoryName: expected a string, got a list; only the HAMi scheduler reads it (this device plugin does not)
      """)
  void schedulerOnlyKeysAreWarningsNotErrors(String replacement, String expected) {
    Loaded<DeviceConfig> loaded = loader.parse(replaceLine(BASE, 7, replacement), "bad.yaml");

    assertThat(loaded.warnings()).extracting(ConfigProblem::toString).containsExactly(expected);
    assertThat(loaded.value().chips())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.resourceMemoryName()).isEmpty();
              assertThat(c.resourceName()).isEqualTo("huawei.com/Ascend910B3");
            });
  }

  @Test
  void duplicateCommonWord() {
    String yaml =
        BASE
            + """
          - chipName: 910B3-bis
            commonWord: Ascend910B3
            resourceName: huawei.com/Ascend910B3
            resourceMemoryName: huawei.com/Ascend910B3-memory
            memoryAllocatable: 65536
            memoryCapacity: 65536
            aiCore: 20
        """;

    assertThatThrownBy(() -> loader.parse(yaml, "bad.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "bad.yaml:22: vnpus.configs[1].commonWord = Ascend910B3: duplicate commonWord"
                + " (first at vnpus.configs[0], line 5)");
  }

  @Test
  void reportsEveryErrorNotOnlyTheFirst() {
    String yaml =
        replaceLine(
            replaceLine(
                replaceLine(
                    replaceLine(BASE, 8, "    memoryAllocatable: 70000"), 14, "        memory: 0"),
                17,
                "      - name: vir05_1c_16g"),
            19,
            "        aiCore: 99");

    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> loader.parse(yaml, "bad.yaml"));

    assertThat(e.errors())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "bad.yaml:8: vnpus.configs[0].memoryAllocatable = 70000: larger than memoryCapacity"
                + " (65536 MiB)",
            "bad.yaml:14: vnpus.configs[0].templates[0].memory = 0: must be > 0 MiB",
            "bad.yaml:17: vnpus.configs[0].templates[1].name = vir05_1c_16g: duplicate template name"
                + " (first at line 13)",
            "bad.yaml:19: vnpus.configs[0].templates[1].aiCore = 99: more AI Cores than the chip"
                + " (aiCore 20)");
    assertThat(e.getMessage().lines()).hasSize(4);
  }

  @Test
  void misspeltKeyGivesMissingErrorAndUnknownKeyWarning() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> loader.parse(replaceLine(BASE, 9, "    memoryCapcity: 65536"), "bad.yaml"));

    assertThat(e.errors())
        .extracting(ConfigProblem::toString)
        .containsExactly("bad.yaml:4: vnpus.configs[0].memoryCapacity: required key is missing");
    assertThat(e.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly("bad.yaml:9: vnpus.configs[0].memoryCapcity: unknown key, ignored");
  }

  @Test
  void errorsInAConfigMapNameTheManifestLine() throws IOException {
    String manifest = Files.readString(HamiFixtures.file("ascend-device-configmap.yaml"));
    // lines 67 and 72 of the shipped manifest: 910B3 (configs[2]) template memory and aiCore
    assertThat(manifest.lines().skip(66).findFirst().orElseThrow())
        .isEqualTo("            memory: 16384");
    String bad =
        replaceLine(
            replaceLine(manifest, 67, "            memory: 0"), 72, "            aiCore: 21");

    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> loader.parse(bad, "cm.yaml"));

    assertThat(e.errors())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "cm.yaml:67: vnpus.configs[2].templates[0].memory = 0: must be > 0 MiB",
            "cm.yaml:72: vnpus.configs[2].templates[1].aiCore = 21: more AI Cores than the chip"
                + " (aiCore 20)");
  }

  @Test
  void loadNamesTheFileAsGiven(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("device-config.yaml");
    Files.writeString(file, replaceLine(BASE, 14, "        memory: 0"));

    assertThatThrownBy(() -> loader.load(file))
        .isInstanceOf(ConfigException.class)
        .hasMessage(file + ":14: vnpus.configs[0].templates[0].memory = 0: must be > 0 MiB");
  }

  @Test
  void missingFile(@TempDir Path dir) {
    Path file = dir.resolve("nope.yaml");

    assertThatThrownBy(() -> loader.load(file))
        .isInstanceOf(ConfigException.class)
        .hasMessage(file + ": no such file");
  }

  @Test
  void yamlSyntaxErrorNamesTheLine() {
    String yaml = replaceLine(BASE, 15, "        aiCore: [5");

    assertThatThrownBy(() -> loader.parse(yaml, "bad.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("bad.yaml:16: YAML syntax error: ");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
      `vnpus: 3`                         | bad.yaml:1: vnpus = 3: expected {hamiVnpuCore, configs: [...]} or a list of chip configs
      `vnpus: []`                        | bad.yaml:1: vnpus: no chip configs; at least one is required
      `vnpus:\n  hamiVnpuCore: true`     | bad.yaml:2: vnpus.configs: required key is missing
      `nvidia: {}`                       | bad.yaml:1: vnpus: required key is missing
      `- vnpus`                          | bad.yaml:1: expected a mapping, got a list
      """)
  void rejectsWrongShape(String yaml, String expected) {
    assertThatThrownBy(() -> loader.parse(yaml.replace("\\n", "\n"), "bad.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(expected);
  }

  @Test
  void configMapWithoutTheKey() throws IOException {
    String nodeCm = Files.readString(HamiFixtures.file("ascend-device-node-configmap.yaml"));

    assertThatThrownBy(() -> loader.parse(nodeCm, "cm.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "cm.yaml:1: data: the ConfigMap has no key device-config.yaml (it has:"
                + " node-config.yaml)");
  }

  static String replaceLine(String text, int line, String replacement) {
    List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
    lines.set(line - 1, replacement);
    return String.join("\n", lines);
  }
}
