package io.vnpu.kube.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code vnpu config}: tools for HAMi-compatible configuration files. */
@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    description =
        "Tools for HAMi-compatible configuration files (device-config.yaml, "
            + "node-config.yaml).",
    subcommands = {ConfigCheckCommand.class})
public final class ConfigCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
