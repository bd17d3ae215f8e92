package io.vnpu.kube.cli;

import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.NpuUsage;
import io.vnpu.api.model.Units;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.dcmi.DcmiErrorCode;
import io.vnpu.dcmi.DcmiException;
import io.vnpu.dcmi.DcmiNodeSelector;
import io.vnpu.kube.cli.node.DcmiNodeAccess;
import io.vnpu.kube.json.JsonMappers;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vnpu devices}: one row per NPU of this node, from DCMI. */
@Command(
    name = "devices",
    mixinStandardHelpOptions = true,
    description =
        "List the NPUs of this node: logic/phy/card IDs, die UUID, chip, HBM used/total (MiB), "
            + "AI Cores, health with reason, vNPUs. Without an Ascend driver the bundled simulated "
            + "node is used.")
public final class DevicesCommand implements Callable<Integer> {

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  @Option(
      names = "--sim-profile",
      converter = io.vnpu.kube.app.SimulatorProfileConverter.class,
      paramLabel = "NAME",
      description =
          "Use the bundled simulated node with this profile (910B3x8, 910B4x8, 910Ax8, "
              + "310P3x4, 300IDuox2, A3x8, A3Inferx8, 310PMixedx4, 300IA2x4).")
  String simProfile;

  @Spec CommandSpec spec;

  private final DcmiNodeSelector environment;

  public DevicesCommand() {
    this(DcmiNodeSelector.system());
  }

  DevicesCommand(DcmiNodeSelector environment) {
    this.environment = environment;
  }

  /**
   * One NPU as printed.
   *
   * @param hbmUsedMib device memory in use, MiB
   * @param hbmTotalMib device memory capacity, MiB
   */
  record Row(
      int logicId,
      int phyId,
      int cardId,
      int deviceId,
      String uuid,
      String chip,
      long hbmUsedMib,
      long hbmTotalMib,
      int aiCores,
      int aiCpus,
      int aiCorePercent,
      boolean healthy,
      String healthReason,
      long faultCode,
      int numaNode,
      List<VnpuRow> vnpus,
      String faultLevel,
      List<String> faultCodes,
      boolean networkHealthy,
      String networkReason) {}

  /** One vNPU as printed; memory in MiB. */
  record VnpuRow(int id, String template, long memoryMib, int aiCores, boolean inUse) {}

  /** The JSON document. */
  record Report(String library, boolean simulated, List<Row> npus) {}

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    DcmiNodeSelector.Selection selection;
    try {
      selection = environment.select(simProfile);
    } catch (IllegalArgumentException e) {
      err.println("vnpu devices: " + e.getMessage());
      return 2;
    } catch (DeviceException e) {
      err.println("vnpu devices: " + e.getMessage());
      return 1;
    }
    try (DcmiNodeSelector.OpenNode node =
        environment.open(
            selection,
            Optional.empty(),
            line -> {
              err.println(line);
              err.flush();
            })) {
      DeviceManager manager = node.deviceManager();
      List<Row> rows = new ArrayList<>();
      Map<Integer, ChipHealth> health = DcmiNodeAccess.healthOnce(node);
      for (Npu npu : manager.discover()) {
        rows.add(
            row(
                manager,
                npu,
                health.getOrDefault(npu.logicId(), ChipHealth.normal(npu.logicId()))));
      }
      if (json) {
        out.println(
            JsonMappers.indented()
                .writeValueAsString(
                    new Report(
                        selection.library().path().toString(), selection.simulated(), rows)));
      } else {
        printTable(out, rows);
      }
      out.flush();
      return 0;
    } catch (DeviceException e) {
      err.println("vnpu devices: " + e.getMessage());
      return 1;
    }
  }

  private static Row row(DeviceManager manager, Npu npu, ChipHealth chip) {
    NpuUsage usage = manager.usage(npu.logicId());
    List<VnpuRow> vnpus = new ArrayList<>();
    try {
      for (Vnpu v : manager.listVnpus(npu.logicId())) {
        vnpus.add(new VnpuRow(v.vnpuId(), v.templateName(), v.memoryMib(), v.aiCores(), v.inUse()));
      }
    } catch (DcmiException e) {
      if (e.errorCode() != DcmiErrorCode.NOT_SUPPORT) {
        throw e;
      }
    }
    return new Row(
        npu.logicId(),
        npu.phyId(),
        npu.cardId(),
        npu.deviceId(),
        npu.uuid(),
        npu.chipName(),
        usage.hbmUsedBytes() / Units.MIB,
        npu.hbmMib(),
        npu.aiCores(),
        npu.aiCpus(),
        usage.aiCorePercent(),
        chip.healthy(),
        chip.reason(),
        chip.toDeviceHealth().faultCode(),
        npu.numaNode(),
        vnpus,
        chip.level().term(),
        chip.faults().stream().map(f -> f.code().hex()).toList(),
        chip.networkHealthy(),
        chip.networkReason());
  }

  private static void printTable(PrintWriter out, List<Row> rows) {
    int uuidWidth =
        Math.max(
            4,
            rows.stream().mapToInt(r -> r.uuid() == null ? 1 : r.uuid().length()).max().orElse(4));
    String fmt = "%-5s %-4s %-4s %-3s %-" + uuidWidth + "s %-10s %-19s %-7s %-8s %s%n";
    out.printf(
        fmt,
        "LOGIC",
        "PHY",
        "CARD",
        "DEV",
        "UUID",
        "CHIP",
        "HBM-USED/TOTAL(MiB)",
        "AICORE",
        "VNPUS",
        "HEALTH");
    for (Row r : rows) {
      String vnpus =
          r.vnpus().isEmpty()
              ? "-"
              : r.vnpus().stream()
                  .map(v -> v.id() + ":" + v.template() + (v.inUse() ? "(in use)" : ""))
                  .collect(Collectors.joining(","));
      String health = r.healthy() ? "OK" : "UNHEALTHY " + r.faultLevel() + ": " + r.healthReason();
      if (!r.networkHealthy()) health += "; NETWORK UNHEALTHY: " + r.networkReason();
      out.printf(
          fmt,
          r.logicId(),
          r.phyId(),
          r.cardId(),
          r.deviceId(),
          r.uuid() == null ? "-" : r.uuid(),
          r.chip(),
          r.hbmUsedMib() + "/" + r.hbmTotalMib(),
          r.aiCores(),
          vnpus,
          health);
    }
  }
}
