package io.vnpu.kube.cli;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.config.ConfigException;
import io.vnpu.api.config.ConfigProblem;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.config.Loaded;
import io.vnpu.api.config.NodeConfig;
import io.vnpu.api.config.NodeConfigLoader;
import io.vnpu.api.config.NodeSettings;
import io.vnpu.api.model.VnpuTemplate;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vnpu config check FILE [--node-config FILE [--node NAME]]}: loads a HAMi device config
 * (file or ConfigMap manifest) and prints its chip table and warnings (exit 0), or every error, one
 * per line on stderr (exit 1).
 */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description =
        "Validate a HAMi device-config.yaml (or a ConfigMap holding it) and print the "
            + "chip table; errors name the file, line, YAML path and value.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the config is valid (warnings may be printed)",
      "1:the config has errors",
      "2:wrong usage"
    })
public final class ConfigCheckCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "FILE",
      description = "device-config.yaml, or a ConfigMap manifest with that data key")
  Path file;

  @Option(
      names = "--node-config",
      paramLabel = "FILE",
      description = "node-config.yaml, or a ConfigMap manifest with that data key")
  Path nodeConfigFile;

  @Option(
      names = "--node",
      paramLabel = "NAME",
      description = "compute VDeviceCount for this node's entry of --node-config")
  String nodeName;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (nodeName != null && nodeConfigFile == null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--node needs --node-config");
    }
    for (Path f : nodeConfigFile == null ? List.of(file) : List.of(file, nodeConfigFile)) {
      if (Files.isDirectory(f)) {
        err.println("vnpu config check: " + f + ": is a directory, not a config file");
        err.flush();
        return 2;
      }
    }
    List<ConfigProblem> errors = new ArrayList<>();
    List<ConfigProblem> warnings = new ArrayList<>();
    // warnings are printed below, so the loaders must not log them as well
    Optional<DeviceConfig> devices =
        load(() -> new DeviceConfigLoader(w -> {}).load(file), errors, warnings);
    Optional<NodeConfig> nodes =
        nodeConfigFile == null
            ? Optional.of(NodeConfig.EMPTY)
            : load(() -> new NodeConfigLoader(w -> {}).load(nodeConfigFile), errors, warnings);
    if (!errors.isEmpty()) {
      errors.forEach(e -> err.println("error: " + e));
      warnings.forEach(w -> err.println("warning: " + w));
      err.flush();
      return 1;
    }
    Optional<NodeSettings> node = Optional.empty();
    if (nodeName != null) {
      node = nodes.orElseThrow().forNode(nodeName);
      if (node.isEmpty()) {
        warnings.add(
            new ConfigProblem(
                nodeConfigFile.toString(),
                0,
                "",
                Optional.empty(),
                "no entry for node " + nodeName + "; VDeviceCount has no node override"));
      }
    }
    printChips(out, devices.orElseThrow(), node);
    if (nodeConfigFile != null) printNodes(out, nodes.orElseThrow());
    warnings.forEach(w -> out.println("warning: " + w));
    out.flush();
    return 0;
  }

  private static <T> Optional<T> load(
      Supplier<Loaded<T>> loader, List<ConfigProblem> errors, List<ConfigProblem> warnings) {
    try {
      Loaded<T> loaded = loader.get();
      warnings.addAll(loaded.warnings());
      return Optional.of(loaded.value());
    } catch (ConfigException e) {
      errors.addAll(e.errors());
      warnings.addAll(e.warnings());
      return Optional.empty();
    }
  }

  private void printChips(PrintWriter out, DeviceConfig config, Optional<NodeSettings> node) {
    out.printf(
        "device config %s: %d chip config%s, hamiVnpuCore %s%n",
        file, config.chips().size(), config.chips().size() == 1 ? "" : "s", config.hamiVnpuCore());
    TextTable table =
        new TextTable(
            "CHIP",
            "COMMONWORD",
            "MEMORY MiB",
            "ALLOCATABLE MiB",
            "AI CORES",
            "AI CPUS",
            "TEMPLATES (name:MiB:aiCore:aiCPU)",
            node.map(n -> "VDEVICECOUNT (" + n.name() + ")").orElse("VDEVICECOUNT"));
    for (ChipConfig c : config.chips()) {
      table.row(
          c.chipName(),
          c.commonWord(),
          c.memoryCapacityMib(),
          c.memoryAllocatableMib(),
          c.chip().aiCores(),
          c.chip().aiCpus(),
          templates(c.templates()),
          c.vDeviceCount(node));
    }
    table.print(out);
  }

  private void printNodes(PrintWriter out, NodeConfig config) {
    out.println();
    out.printf(
        "node config %s: %d node%s%n",
        nodeConfigFile, config.nodes().size(), config.nodes().size() == 1 ? "" : "s");
    if (config.nodes().isEmpty()) return;
    TextTable table =
        new TextTable("NODE", "HAMI-VNPU-CORE", "VDEVICECOUNT", "FILTER INDEX", "FILTER UUID");
    for (NodeSettings n : config.nodes()) {
      table.row(
          n.name(),
          n.hamiVnpuCore().map(String::valueOf).orElse("-"),
          n.vDeviceCount() > 0 ? n.vDeviceCount() : "-",
          list(n.filterDevices().cardIds()),
          list(n.filterDevices().uuids()));
    }
    table.print(out);
  }

  private static String templates(List<VnpuTemplate> templates) {
    if (templates.isEmpty()) return "-";
    return templates.stream()
        .map(t -> t.name() + ":" + t.memoryMib() + ":" + t.aiCores() + ":" + t.aiCpus())
        .collect(Collectors.joining(", "));
  }

  private static String list(List<?> items) {
    return items.isEmpty()
        ? "-"
        : items.stream().map(String::valueOf).collect(Collectors.joining(","));
  }
}
