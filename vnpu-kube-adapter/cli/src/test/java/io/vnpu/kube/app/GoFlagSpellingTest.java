package io.vnpu.kube.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.kube.cli.VnpuCli;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/** The one Go-flag spelling rule: what it adds, what it leaves, what it refuses. */
class GoFlagSpellingTest {
  @Command(modelTransformer = GoFlagSpelling.class)
  static final class Flags {
    @GoFlag
    @Option(names = "--on", defaultValue = "false")
    boolean on;

    @GoFlag
    @Option(names = "--period", defaultValue = "5")
    long period;

    @Option(names = "--plain", defaultValue = "false")
    boolean plain;
  }

  @Command(modelTransformer = GoFlagSpelling.class)
  static final class Misdeclared {
    @GoFlag
    @Option(names = {"-x", "--y"})
    String x;
  }

  @Test
  void aGoFlagGetsItsSingleDashNameAndABooleanMayStandAlone() {
    Flags f = new Flags();
    new CommandLine(f).parseArgs("-on", "-period", "7");
    assertThat(f.on).isTrue();
    assertThat(f.period).isEqualTo(7);
    Flags g = new Flags();
    new CommandLine(g).parseArgs("--on=false", "-period=9");
    assertThat(g.on).isFalse();
    assertThat(g.period).isEqualTo(9);
  }

  @Test
  void anOptionWithoutTheMarkIsLeftAsDeclared() {
    CommandLine cl = new CommandLine(new Flags());
    OptionSpec plain = cl.getCommandSpec().findOption("--plain");
    assertThat(plain.names()).containsExactly("--plain");
    assertThatThrownBy(() -> cl.parseArgs("-plain"))
        .isInstanceOf(CommandLine.UnmatchedArgumentException.class);
    // declaration order is kept (the help lists the options as the class declares them)
    assertThat(cl.getCommandSpec().options())
        .extracting(OptionSpec::longestName)
        .containsExactly("--on", "--period", "--plain");
  }

  @Test
  void aGoFlagDeclaredWithASingleDashNameIsRefusedNamingIt() {
    assertThatThrownBy(() -> new CommandLine(new Misdeclared()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("-x")
        .hasMessageContaining("declare its --name only");
  }

  @Test
  void theVnpuCommandLineSpellsThePluginsGoFlags() {
    CommandLine plugin = VnpuCli.commandLine("plugin").getSubcommands().get("plugin");
    assertThat(plugin.getCommandSpec().findOption("-volcanoType")).isNotNull();
    assertThat(plugin.getCommandSpec().findOption("-config_file")).isNotNull();
    assertThat(plugin.getCommandSpec().findOption("-kubelet-dir")).isNull();
  }
}
