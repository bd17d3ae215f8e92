package io.vnpu.kube.cli;

import io.vnpu.kube.app.ParserRules;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code vnpu} command line: the example node agent and host tools.
 *
 * <p>Each subcommand is a class of its own in this package; add it to {@link #SUBCOMMANDS}. A
 * command line naming one of them as its first word ({@code vnpu dra ...}) builds only that one:
 * picocli's model of every other command (their options, mixins and converters, ~100 classes) is
 * not loaded into an agent that never runs them (docs/benchmarks.md, "Issue 29: DRA plugin RSS").
 */
@Command(
    name = "vnpu",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Slice Huawei Ascend NPUs: memory quotas and AI-core shares per container, "
            + "DCMI vNPU templates, and a kubelet device plugin speaking the HAMi protocol.")
public final class VnpuCli implements Runnable {

  /** The subcommands by name, in the order {@code vnpu --help} lists them. */
  static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

  private static Map<String, Class<?>> subcommands() {
    Map<String, Class<?>> m = new LinkedHashMap<>();
    m.put("help", CommandLine.HelpCommand.class);
    m.put("plugin", PluginCommand.class);
    m.put("config", ConfigCommand.class);
    m.put("devices", DevicesCommand.class);
    m.put("run", RunCommand.class);
    m.put("top", TopCommand.class);
    m.put("slices", SlicesCommand.class);
    m.put("demo", DemoCommand.class);
    m.put("dra", DraCommand.class);
    return Collections.unmodifiableMap(m);
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Builds the command line with every subcommand; tests use this to run commands in-process. */
  public static CommandLine commandLine() {
    return commandLine(SUBCOMMANDS.keySet());
  }

  /**
   * The command line for {@code args}: with only the subcommand its first word names (the help
   * command excepted: it lists the others), else with all of them, so {@code vnpu --help}, {@code
   * vnpu help X} and a misspelt command ("Did you mean") see every command.
   */
  public static CommandLine commandLine(String... args) {
    if (args.length > 0 && SUBCOMMANDS.containsKey(args[0]) && !args[0].equals("help")) {
      return commandLine(List.of(args[0]));
    }
    return commandLine();
  }

  private static CommandLine commandLine(java.util.Collection<String> names) {
    CommandLine cl = new CommandLine(new VnpuCli());
    for (String name : names) {
      // built on its own: picocli applies a command's model transformers (GoFlagSpelling) only to
      // a CommandLine it constructs, not to a subcommand added by class
      cl.addSubcommand(name, new CommandLine(SUBCOMMANDS.get(name)));
    }
    ParserRules.apply(cl);
    cl.setParameterExceptionHandler(new UsageErrorHandler());
    CommandLine run = cl.getSubcommands().get("run");
    if (run != null) {
      // everything after the command's first word belongs to the command, also without "--"
      run.setStopAtPositional(true);
    }
    return cl;
  }

  public static void main(String[] args) {
    System.exit(commandLine(args).execute(args));
  }
}
