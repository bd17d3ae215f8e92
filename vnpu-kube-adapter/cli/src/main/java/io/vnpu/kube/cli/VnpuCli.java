package io.vnpu.kube.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code vnpu} command line: the example node agent and host tools.
 *
 * <p>Each subcommand is a class of its own in this package; add it to {@code subcommands}.
 */
@Command(
    name = "vnpu",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Slice Huawei Ascend NPUs: memory quotas and AI-core shares per container, "
            + "DCMI vNPU templates, and a kubelet device plugin speaking the HAMi protocol.",
    subcommands = {
      CommandLine.HelpCommand.class,
      PluginCommand.class,
      ConfigCommand.class,
      DevicesCommand.class,
      RunCommand.class,
      TopCommand.class,
      SlicesCommand.class,
      DemoCommand.class,
      DraCommand.class,
    })
public final class VnpuCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Builds the command line with its subcommands; tests use this to run commands in-process. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new VnpuCli());
    cl.setParameterExceptionHandler(new UsageErrorHandler());
    // everything after the command's first word belongs to the command, also without "--"
    cl.getSubcommands().get("run").setStopAtPositional(true);
    return cl;
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
