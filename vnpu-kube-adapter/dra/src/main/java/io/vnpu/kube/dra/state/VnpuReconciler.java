package io.vnpu.kube.dra.state;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.kube.dra.checkpoint.Checkpoint;
import io.vnpu.kube.dra.checkpoint.ClaimState;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.dra.modes.ChipModes;
import io.vnpu.kube.dra.vnpu.VnpuDriver;
import io.vnpu.kube.dra.vnpu.VnpuRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the hard vNPU records of prepared claims agree with the vNPUs DCMI lists ({@code
 * dcmi_get_vdevice_info} through {@link VnpuDriver#list}), once DCMI is open after the checkpoint
 * was rebuilt from CDI specs or the node rebooted ({@link Checkpoint#vnpuCheckPending}). Every
 * action is logged at INFO (WARN for what is left alone).
 *
 * <p>A record's chip is found by its device name ({@code npu-<phy>}): logic IDs may change across a
 * reboot, phy IDs do not. For each recorded vNPU of a completed claim:
 *
 * <ol>
 *   <li>DCMI lists the recorded ID with the recorded template on that chip: <b>kept</b> (a record
 *       rebuilt from a CDI spec gets its logic ID and template memory here).
 *   <li>Otherwise (a reboot removes vNPUs unless the driver's configuration recovery restores
 *       them): <b>re-created</b> with the same template after the sweep below; the record takes the
 *       new ID and the claim's CDI spec is rewritten (same CDI device names, so the IDs the kubelet
 *       holds stay valid).
 *   <li>The chip is gone, or DCMI refuses the creation: the claim is <b>dropped</b> (its other
 *       vNPUs destroyed where no container uses them, its CDI spec and entry removed); the
 *       kubelet's next NodePrepareResources prepares it again or reports why it cannot.
 * </ol>
 *
 * Sweep (before re-creating): on every chip this plugin splits into hard vNPUs ({@link
 * ChipModes#templatesFor}), a vNPU no record holds may be one of ours whose record was lost (a
 * prepare that crashed between DCMI's answer and the checkpoint write, a corrupt checkpoint). It is
 * <b>destroyed</b> when no container uses it and its template is one the chip is offered with;
 * otherwise it is left and logged. A chip the plugin splits belongs to it: static vNPUs made there
 * by hand are treated the same.
 */
final class VnpuReconciler {

  private static final Logger log = LoggerFactory.getLogger(VnpuReconciler.class);

  /**
   * @param checkpoint the reconciled checkpoint, {@link Checkpoint#vnpuCheckPending} cleared
   * @param rewrite UIDs of claims whose CDI spec must be written again (a vNPU ID changed or a
   *     record was resolved)
   * @param dropped UIDs of claims removed from the checkpoint (their CDI spec must go)
   */
  record Outcome(Checkpoint checkpoint, Set<String> rewrite, Set<String> dropped) {}

  private final VnpuDriver vnpus;
  private final ChipModes chips;

  VnpuReconciler(VnpuDriver vnpus, ChipModes chips) {
    this.vnpus = Objects.requireNonNull(vnpus, "vnpus");
    this.chips = Objects.requireNonNull(chips, "chips");
  }

  /**
   * @param devices the NPUs DCMI reports now, by device name
   * @throws DeviceException when DCMI cannot list the vNPUs of a chip (nothing was changed then)
   */
  Outcome reconcile(Checkpoint cp, Map<String, Npu> devices) {
    // every listing first: a DCMI failure changes nothing
    Map<Integer, List<Vnpu>> listed = new TreeMap<>();
    for (PreparedClaim c : cp.preparedClaims().values()) {
      for (PreparedDevice d : c.devices()) {
        Npu npu = devices.get(d.deviceName());
        if (d.vnpu() != null && npu != null) {
          listed.computeIfAbsent(npu.logicId(), vnpus::list);
        }
      }
    }
    for (Npu npu : devices.values()) {
      if (chips.templatesFor(npu).isPresent()) {
        listed.computeIfAbsent(npu.logicId(), vnpus::list);
      }
    }

    Set<String> held = new HashSet<>(); // "<logic>/<vnpu>"
    Map<String, PreparedClaim> claims = new LinkedHashMap<>(cp.preparedClaims());
    Set<String> rewrite = new LinkedHashSet<>();
    Map<String, String> drop = new LinkedHashMap<>(); // uid -> why
    List<Runnable> recreate = new ArrayList<>();

    // 1. keep what DCMI still has
    for (PreparedClaim c : cp.preparedClaims().values()) {
      if (c.state() != ClaimState.PrepareCompleted) {
        // being prepared (or rolled back) under the same lock: never swept
        for (PreparedDevice d : c.devices()) {
          Npu npu = devices.get(d.deviceName());
          if (d.vnpu() != null && d.vnpu().vnpuId() != null && npu != null) {
            held.add(npu.logicId() + "/" + d.vnpu().vnpuId());
          }
        }
        continue;
      }
      List<PreparedDevice> next = new ArrayList<>(c.devices());
      for (int i = 0; i < next.size(); i++) {
        PreparedDevice d = next.get(i);
        VnpuRecord v = d.vnpu();
        if (v == null) {
          continue;
        }
        Npu npu = devices.get(d.deviceName());
        if (npu == null) {
          drop.putIfAbsent(
              c.uid(), "its chip " + d.deviceName() + " is no longer reported by DCMI");
          continue;
        }
        Optional<Vnpu> found =
            v.vnpuId() == null
                ? Optional.empty()
                : listed.get(npu.logicId()).stream()
                    .filter(x -> x.vnpuId() == v.vnpuId() && x.templateName().equals(v.template()))
                    .findFirst();
        if (found.isPresent()) {
          held.add(npu.logicId() + "/" + v.vnpuId());
          VnpuRecord resolved = v.on(npu.logicId(), memoryMib(npu, v.template(), found.get()));
          if (!resolved.equals(v)) {
            next.set(i, d.withVnpu(resolved));
            rewrite.add(c.uid());
          }
          log.info(
              "vNPU {} ({}) on {} of ResourceClaim {}: present, kept",
              v.vnpuId(),
              v.template(),
              d.deviceName(),
              describe(c));
        } else {
          int index = i;
          recreate.add(
              () -> {
                PreparedClaim now = claims.get(c.uid());
                if (now == null || drop.containsKey(c.uid())) {
                  return;
                }
                try {
                  Vnpu made = vnpus.create(npu.logicId(), v.template());
                  held.add(npu.logicId() + "/" + made.vnpuId());
                  List<PreparedDevice> ds = new ArrayList<>(now.devices());
                  ds.set(
                      index,
                      ds.get(index)
                          .withVnpu(
                              new VnpuRecord(
                                  npu.logicId(),
                                  v.template(),
                                  memoryMib(npu, v.template(), made),
                                  made.vnpuId())));
                  claims.put(c.uid(), now.withDevices(ds));
                  rewrite.add(c.uid());
                  log.info(
                      "vNPU {} ({}) on {} of ResourceClaim {} was gone; re-created as vNPU {}",
                      v.vnpuId(),
                      v.template(),
                      d.deviceName(),
                      describe(c),
                      made.vnpuId());
                } catch (DeviceException e) {
                  drop.put(
                      c.uid(),
                      "re-creating vNPU "
                          + v.vnpuId()
                          + " ("
                          + v.template()
                          + ") on "
                          + d.deviceName()
                          + " failed: "
                          + e.getMessage());
                }
              });
        }
      }
      claims.put(c.uid(), c.withDevices(next));
    }

    // 2. sweep what no record holds, then 3. re-create what is missing
    for (Npu npu : devices.values()) {
      Optional<ChipConfig> offered = chips.templatesFor(npu);
      if (offered.isEmpty()) {
        continue;
      }
      for (Vnpu x : listed.get(npu.logicId())) {
        if (held.contains(npu.logicId() + "/" + x.vnpuId())) {
          continue;
        }
        String where =
            "vNPU "
                + x.vnpuId()
                + " ("
                + x.templateName()
                + ") on logic ID "
                + npu.logicId()
                + " (phy ID "
                + npu.phyId()
                + ")";
        if (x.inUse()) {
          log.warn("{} is held by no prepared claim but a container uses it; left", where);
        } else if (offered.get().templates().stream()
            .noneMatch(t -> t.name().equals(x.templateName()))) {
          log.warn(
              "{} is held by no prepared claim and is not a template this plugin offers;" + " left",
              where);
        } else {
          try {
            vnpus.destroy(npu.logicId(), x.vnpuId());
            log.info("{} is held by no prepared claim (its record was lost); destroyed", where);
          } catch (DeviceException e) {
            log.warn(
                "{} is held by no prepared claim; destroying it failed: {}", where, e.getMessage());
          }
        }
      }
    }
    recreate.forEach(Runnable::run);

    // 4. drop the claims that cannot have their vNPUs
    Set<String> dropped = new LinkedHashSet<>();
    for (Map.Entry<String, String> e : drop.entrySet()) {
      PreparedClaim c = claims.remove(e.getKey());
      if (c == null) {
        continue;
      }
      for (PreparedDevice d : c.devices()) {
        VnpuRecord v = d.vnpu();
        Npu npu = devices.get(d.deviceName());
        if (v == null
            || v.vnpuId() == null
            || npu == null
            || !held.contains(npu.logicId() + "/" + v.vnpuId())) {
          continue;
        }
        try {
          vnpus.destroy(npu.logicId(), v.vnpuId());
          log.info("destroyed vNPU {} of dropped ResourceClaim {}", v.vnpuId(), describe(c));
        } catch (DeviceException ex) {
          log.warn(
              "vNPU {} of dropped ResourceClaim {} left: {}",
              v.vnpuId(),
              describe(c),
              ex.getMessage());
        }
      }
      rewrite.remove(c.uid());
      dropped.add(c.uid());
      log.warn(
          "dropped prepared ResourceClaim {}: {}; the kubelet's next NodePrepareResources"
              + " prepares it again",
          describe(c),
          e.getValue());
    }
    Checkpoint out = new Checkpoint(cp.nodeBootId(), claims, false);
    return new Outcome(out, Set.copyOf(rewrite), Set.copyOf(dropped));
  }

  /** The template's memory as configured for the chip, else what DCMI says the vNPU has. */
  private long memoryMib(Npu npu, String template, Vnpu dcmi) {
    return chips
        .templatesFor(npu)
        .flatMap(
            c ->
                c.templates().stream()
                    .filter(t -> t.name().equals(template))
                    .map(VnpuTemplate::memoryMib)
                    .findFirst())
        .orElse(dcmi.memoryMib());
  }

  private static String describe(PreparedClaim c) {
    return c.namespace().isEmpty()
        ? "uid " + c.uid()
        : c.namespace() + "/" + c.name() + " (uid " + c.uid() + ")";
  }
}
