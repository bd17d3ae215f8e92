package io.vnpu.kube.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Help texts, version and usage errors of every {@code vnpu} command, as a user sees them. */
class CliUsageTest {

  /** What a run printed. */
  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    // the command line main builds for these arguments (only the subcommand they name)
    CommandLine cl = VnpuCli.commandLine(args);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static List<CommandLine> everyCommand(CommandLine cl) {
    List<CommandLine> all = new ArrayList<>(List.of(cl));
    for (CommandLine sub : cl.getSubcommands().values()) {
      if (!all.contains(sub)) all.addAll(everyCommand(sub));
    }
    return all;
  }

  @Test
  void everyHelpTextRendersWithoutAPicocliWarning() {
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    List<String> names = new ArrayList<>();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (CommandLine cl : everyCommand(VnpuCli.commandLine())) {
        String help = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertThat(help)
            .as(cl.getCommandSpec().qualifiedName())
            .contains("Usage: " + cl.getCommandSpec().qualifiedName())
            .doesNotContain("%n")
            .doesNotContain("%%");
        names.add(cl.getCommandSpec().qualifiedName());
      }
    } finally {
      System.setErr(stderr);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(names)
        .contains(
            "vnpu",
            "vnpu run",
            "vnpu top",
            "vnpu demo",
            "vnpu devices",
            "vnpu plugin",
            "vnpu config",
            "vnpu config check",
            "vnpu slices",
            "vnpu slices rm");
  }

  @Test
  void aCommandLineNamingASubcommandBuildsOnlyThatOneWithTheSameHelp() {
    CommandLine full = VnpuCli.commandLine();
    assertThat(full.getSubcommands().keySet())
        .containsExactlyElementsOf(VnpuCli.SUBCOMMANDS.keySet());
    for (String name : VnpuCli.SUBCOMMANDS.keySet()) {
      CommandLine one = VnpuCli.commandLine(name, "--help");
      if (name.equals("help")) {
        // "vnpu help X" names another command: every one is there
        assertThat(one.getSubcommands().keySet()).as(name).hasSize(VnpuCli.SUBCOMMANDS.size());
        continue;
      }
      assertThat(one.getSubcommands().keySet()).as(name).containsExactly(name);
      for (CommandLine sub : everyCommand(one.getSubcommands().get(name))) {
        String qualified = sub.getCommandSpec().qualifiedName();
        CommandLine same = full;
        for (String word : qualified.split(" ")) {
          if (!word.equals("vnpu")) same = same.getSubcommands().get(word);
        }
        assertThat(sub.getUsageMessage(CommandLine.Help.Ansi.OFF))
            .as(qualified)
            .isEqualTo(same.getUsageMessage(CommandLine.Help.Ansi.OFF));
      }
    }
    assertThat(VnpuCli.commandLine("dra", "--help").getSubcommands()).doesNotContainKey("run");
    assertThat(VnpuCli.commandLine("--help").getSubcommands()).containsKey("dra");
    assertThat(VnpuCli.commandLine("dar").getSubcommands()).containsKey("dra");
  }

  @Test
  void runStopsAtItsFirstPositionalWhenBuiltAlone() {
    // "vnpu run --memory 1Gi python train.py --epochs 3": --epochs belongs to the workload
    assertThat(VnpuCli.commandLine("run").getSubcommands().get("run").isStopAtPositional())
        .isTrue();
  }

  @Test
  void resizeHelpSaysWhatCoreDoesToAnElasticSlice() {
    assertThat(run("slices", "resize", "--help").out().replaceAll("\\s+", " "))
        .contains("weight PCT (as vnpu run --core)")
        .contains("A slice of --policy elastic or best-effort gets the cap too");
  }

  @Test
  void runHelpSaysPercent() {
    // the wrapping of the help text is picocli's: compare the words only
    assertThat(run("run", "--help").out().replaceAll("\\s+", " "))
        .contains(
            "Hard cap: at most PCT % of the NPU's AI-core time (1..100), and share weight PCT");
  }

  @Test
  void versionIsTheBuildVersion() {
    String expected = System.getProperty("vnpu.project.version");
    assertThat(expected).as("surefire passes the project version").isNotBlank();
    Run r = run("--version");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).isEqualTo("vnpu " + expected + System.lineSeparator());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "run --core 0 -- true | vnpu run: invalid value for option '--core': '0': a percent of the AI-core time must be in 1..100 (see 'vnpu run --help')",
        "run --core 150 -- true | vnpu run: invalid value for option '--core': '150': a percent of the AI-core time must be in 1..100 (see 'vnpu run --help')",
        "run --weight 0 -- true | vnpu run: invalid value for option '--weight': '0': a share weight must be in 1..10000 (see 'vnpu run --help')",
        "run --weight lots -- true | vnpu run: invalid value for option '--weight': 'lots': expected a share weight (1..10000) (see 'vnpu run --help')",
        "run --device -1 -- true | vnpu run: invalid value for option '--device': '-1': expected a logic ID (0 or more), phy:N or a die UUID as 'vnpu devices' prints it (see 'vnpu run --help')",
        "run --priority urgent -- true | vnpu run: invalid value for option '--priority': 'urgent': expected high or normal (see 'vnpu run --help')",
        "top -n 0 | vnpu top: invalid value for option '--iterations': '0': a count must be 1 or more (see 'vnpu top --help')",
        "top --interval 0 | vnpu top: invalid value for option '--interval': '0': a number of seconds must be in 0.1..3600 (see 'vnpu top --help')",
        "demo --seconds 1 | vnpu demo: invalid value for option '--seconds': '1': a number of seconds must be in 2..3600 (see 'vnpu demo --help')",
        "run --core 25 --weight 3 -- true | vnpu run: --core=PCT, --weight=W are mutually exclusive (specify only one) (see 'vnpu run --help')",
        "run --bogus -- true | vnpu run: unknown option: '--bogus' (see 'vnpu run --help')",
        "dra --simulate --kubelet-dir /tmp/x | vnpu dra: unknown options: '--kubelet-dir', '/tmp/x' (see 'vnpu dra --help')",
        "dra --simulate --bogus | vnpu dra: unknown option: '--bogus' (see 'vnpu dra --help')",
        "plugin --simulate --bogus x | vnpu plugin: unknown options: '--bogus', 'x' (see 'vnpu plugin --help')",
        "plugin --mode mindcluster -volcanoType -bogus | vnpu plugin: unknown option: '-bogus' (see 'vnpu plugin --help')",
        "plugin --simulate | vnpu plugin: --config_file is required: the HAMi device config (device-config.yaml); --mode mindcluster runs without it",
        "plugin --simulate --node_name n --config_file /nonexistent/device-config.yaml | vnpu plugin: --config_file /nonexistent/device-config.yaml: no such file",
        "plugin --simulate --node_name n --config_file pom.xml --node_config_file /nonexistent/node-config.yaml | vnpu plugin: --node_config_file /nonexistent/node-config.yaml: no such file",
        "plugin --simulate --config_file c.yaml --metrics-port 99999 | vnpu plugin: --metrics-port = 99999: not a TCP port (0 turns metrics off)",
        "frobnicate | vnpu: unknown command: 'frobnicate' (see 'vnpu --help')",
        "config chek x.yaml | vnpu config: unknown command: 'chek' (see 'vnpu config --help')",
        "run --memory -1 -- true | vnpu run: invalid value for option '--memory': '-1': a size must be larger than 0: write a quantity such as 8Gi or 512Mi, or an integer number of MiB (see 'vnpu run --help')",
        "run --memory 0 -- true | vnpu run: invalid value for option '--memory': '0': a size must be larger than 0: write a quantity such as 8Gi or 512Mi, or an integer number of MiB (see 'vnpu run --help')",
      })
  void aUsageErrorIsOneLineNamingTheOptionAndTheRange(String args, String expected) {
    Run r = run(args.trim().split(" "));
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).isEqualTo(expected.trim() + System.lineSeparator());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "dra --simulate --node-name n | 910B3x8",
        "dra --simulate A3x8 --node-name n | A3x8",
        "dra --simulate=310P3x4 --node-name n | 310P3x4",
        "plugin --simulate --kubelet-dir /tmp/x | 910B3x8",
        "plugin --simulate 310P3x4 | 310P3x4",
      })
  void simulateTakesAProfileOrItsDefaultButNeverAnOption(String args, String profile) {
    String[] argv = args.trim().split(" ");
    CommandLine cl = VnpuCli.commandLine(argv);
    cl.parseArgs(argv);
    // the flags' field, which the command reads
    Object value =
        cl.getSubcommands().get(argv[0]).getCommandSpec().findOption("--simulate").getValue();
    assertThat(value).isEqualTo(profile.trim());
  }

  @Test
  void aBadSizeIsOneLineWithoutJavaTypeNames() {
    Run r = run("run", "--memory", "-1", "--", "true");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err().lines().toList())
        .singleElement()
        .asString()
        .startsWith("vnpu run: invalid value for option '--memory': ")
        .endsWith(" (see 'vnpu run --help')")
        .doesNotContain("java.")
        .doesNotContain("Long")
        .doesNotContain("Exception");
  }

  @Test
  void configCheckOnADirectoryIsOneLine(@TempDir Path dir) {
    Run r = run("config", "check", dir.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "vnpu config check: "
                + dir
                + ": is a directory, not a config file"
                + System.lineSeparator());
  }

  @Test
  void demoToAnUnwritableOutIsOneLine(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("file"), "x");
    Run r = run("demo", "--out", file.resolve("out").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err().lines().toList())
        .singleElement()
        .asString()
        .startsWith("vnpu demo: --out " + file.resolve("out") + ": cannot write there: ")
        .doesNotContain("java.")
        .doesNotContain("Exception");
  }

  @Test
  void draWithAMissingKubeconfigIsOneLine(@TempDir Path dir) {
    Path missing = dir.resolve("kubeconfig");
    Run r = run("dra", "--node-name", "n1", "--kubeconfig", missing.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo("vnpu dra: --kubeconfig " + missing + ": no such file" + System.lineSeparator());
  }

  @Test
  void pluginWithAMissingKubeconfigIsOneLine(@TempDir Path dir) {
    Path missing = dir.resolve("kubeconfig");
    StringWriter err = new StringWriter();
    CommandLine cl =
        new CommandLine(new PluginCommand(null, null, Map.of("KUBECONFIG", missing.toString())));
    cl.setErr(new PrintWriter(err, true));
    assertThat(cl.execute("--mode", "mindcluster", "--simulate")).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "vnpu plugin: KUBECONFIG=" + missing + ": no such file" + System.lineSeparator());
  }

  @Test
  void topWithAMissingKubeDirIsOneLine(@TempDir Path dir) throws Exception {
    Path missing = dir.resolve("nonexistent");
    Run r = run("top", "--kube-dir", missing.toString(), "--once");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .isEqualTo(
            "vnpu top: invalid value for option '--kube-dir': '"
                + missing
                + "': no such directory (see 'vnpu top --help')"
                + System.lineSeparator());
    Path file = Files.writeString(dir.resolve("file"), "x");
    assertThat(run("top", "--kube-dir", dir.toString(), "--kube-dir", file.toString()).err())
        .isEqualTo(
            "vnpu top: invalid value for option '--kube-dir': '"
                + file
                + "': not a directory (see 'vnpu top --help')"
                + System.lineSeparator());
  }

  /** Every command that takes a simulator profile refuses an unknown one while parsing. */
  @ParameterizedTest
  @CsvSource({
    "plugin, --simulate=bogus",
    "dra, --simulate=bogus",
    "top, --sim-profile=bogus",
    "run, --sim-profile=bogus",
    "devices, --sim-profile=bogus",
    "demo, --sim-profile=bogus"
  })
  void anUnknownSimulatorProfileIsOneUsageLine(String command, String option) {
    Run r = command.equals("run") ? run(command, option, "--", "true") : run(command, option);
    String name = option.substring(0, option.indexOf('='));
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .isEqualTo(
            "vnpu "
                + command
                + ": invalid value for option '"
                + name
                + "': 'bogus': unknown simulator profile; built-in: "
                + String.join(", ", io.vnpu.dcmi.DcmiNodeSelector.SIMULATOR_PROFILES)
                + " (see 'vnpu "
                + command
                + " --help')"
                + System.lineSeparator());
  }

  @Test
  void usageLinesTakeOnlyTheFirstLineOfAMessage() {
    assertThat(
            UsageErrorHandler.line(
                "vnpu x",
                "Invalid value for option '--m': cannot convert '-1' to Long "
                    + "(java.lang.IllegalArgumentException: '-1' is not a size)"))
        .isEqualTo(
            "vnpu x: invalid value for option '--m': '-1' is not a size (see 'vnpu x --help')");
    assertThat(UsageErrorHandler.line("vnpu x", "Missing required option: '--a'\nmore"))
        .isEqualTo("vnpu x: missing required option: '--a' (see 'vnpu x --help')");
  }
}
