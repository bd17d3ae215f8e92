package io.vnpu.kube.cli.node;

import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.api.model.Npu;
import io.vnpu.dcmi.DcmiNodeSelector;
import io.vnpu.dcmi.fault.DcmiHealth;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@link NodeAccess} through the DCMI binding, choosing the node with {@link DcmiNodeSelector}. */
public final class DcmiNodeAccess implements NodeAccess {

  private final DcmiNodeSelector selector;

  public DcmiNodeAccess(DcmiNodeSelector selector) {
    this.selector = selector;
  }

  @Override
  public NodeInfo discover(String simProfile, Path simRoot, PrintWriter err) {
    DcmiNodeSelector.Selection sel = selector.select(simProfile);
    List<Npu> npus;
    Optional<DcmiNodeSelector.SimulatedNode> sim;
    try (DcmiNodeSelector.OpenNode node =
        selector.open(
            sel,
            Optional.ofNullable(simRoot),
            line -> {
              err.println(line);
              err.flush();
            })) {
      Map<Integer, ChipHealth> health = healthOnce(node);
      npus =
          node.deviceManager().discover().stream()
              .map(
                  n ->
                      Optional.ofNullable(health.get(n.logicId()))
                          .map(h -> n.withHealth(h.toDeviceHealth()))
                          .orElse(n))
              .toList();
      sim = node.simulator();
    }
    return new NodeInfo(
        npus, sel.library().path() + " (" + sel.library().origin() + ")", sim.orElse(null));
  }

  /**
   * One poll of the fault engine on {@code node}: chip health (levels from the shipped
   * faultCode.json, card drop, link) as every adapter sees it, by logic ID; for the CLI's one-shot
   * views.
   */
  public static Map<Integer, ChipHealth> healthOnce(DcmiNodeSelector.OpenNode node) {
    return DcmiHealth.create(
            node.deviceManager().dcmi(),
            FaultConfigs.shippedDefault(),
            ManualSeparationStore.inMemory(),
            ChipUsage.NONE,
            FaultNotifier.NONE,
            Duration.ofSeconds(1),
            Clock.systemUTC())
        .monitor()
        .pollOnce();
  }
}
