package io.vnpu.kube.dra.state;

import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.kube.dra.cdi.CdiDevice;
import io.vnpu.kube.dra.checkpoint.Checkpoint;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.dra.vnpu.VnpuDriver;
import io.vnpu.kube.dra.vnpu.VnpuRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hard-vNPU steps of the claim state (one mechanism of sharing a chip): a DCMI template vNPU
 * per shared allocation, created one by one with each vNPU ID recorded as soon as DCMI returns it,
 * destroyed at unprepare, kept for a claim rebuilt from its CDI spec, found again by template after
 * a crash. {@link DeviceState} runs them under its lock and records each step through the {@link
 * Journal}.
 */
final class HardVnpus {
  private static final Logger log = LoggerFactory.getLogger(HardVnpus.class);

  private final VnpuDriver vnpus;

  HardVnpus(VnpuDriver vnpus) {
    this.vnpus = Objects.requireNonNull(vnpus, "vnpus");
  }

  static String unchecked(String what) {
    return what
        + ": waiting until the hard vNPUs recorded before the restart are checked"
        + " through DCMI (DCMI has not answered yet); retried";
  }

  static boolean holds(PreparedClaim c) {
    return c.devices().stream().anyMatch(d -> d.vnpu() != null);
  }

  /**
   * The plan with the vNPUs of {@code rebuilt} (same claim, rebuilt from its CDI spec) it asks for:
   * same device, share and template. The others are destroyed (an allocation never changes, so
   * there should be none); failures are logged.
   */
  PreparedClaim adopt(PreparedClaim plan, PreparedClaim rebuilt) {
    List<PreparedDevice> held = new ArrayList<>(rebuilt.devices());
    List<PreparedDevice> devices = new ArrayList<>(plan.devices());
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice d = devices.get(i);
      if (d.vnpu() == null) {
        continue;
      }
      for (java.util.Iterator<PreparedDevice> it = held.iterator(); it.hasNext(); ) {
        PreparedDevice h = it.next();
        VnpuRecord v = h.vnpu();
        if (v != null
            && v.vnpuId() != null
            && v.resolved()
            && h.deviceName().equals(d.deviceName())
            && Objects.equals(h.shareId(), d.shareId())
            && v.template().equals(d.vnpu().template())) {
          devices.set(i, d.withVnpu(d.vnpu().created(v.vnpuId())));
          it.remove();
          log.info(
              "ResourceClaim {}/{} (uid {}) keeps vNPU {} ({}) on {}",
              plan.namespace(),
              plan.name(),
              plan.uid(),
              v.vnpuId(),
              v.template(),
              d.deviceName());
          break;
        }
      }
    }
    for (PreparedDevice h : held) {
      VnpuRecord v = h.vnpu();
      if (v == null || v.vnpuId() == null || !v.resolved()) {
        continue;
      }
      try {
        vnpus.destroy(v.logicId(), v.vnpuId());
        log.info(
            "destroyed vNPU {} of rebuilt ResourceClaim uid {}: its allocation no longer"
                + " asks for it",
            v.vnpuId(),
            plan.uid());
      } catch (DeviceException e) {
        log.warn(
            "vNPU {} of rebuilt ResourceClaim uid {} left: {}",
            v.vnpuId(),
            plan.uid(),
            e.getMessage());
      }
    }
    return plan.withDevices(devices);
  }

  /**
   * Creates the plan's vNPUs one by one, recording each vNPU ID in the checkpoint as soon as DCMI
   * returns it, so a crash leaves at most the one being created unrecorded (found again at start by
   * its template, see {@code DeviceState}'s start-up).
   */
  PreparedClaim create(PreparedClaim plan, Journal journal) throws StateUnavailableException {
    List<PreparedDevice> devices = new ArrayList<>(plan.devices());
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice d = devices.get(i);
      if (d.vnpu() == null || d.vnpu().vnpuId() != null) {
        continue;
      }
      Vnpu v = vnpus.create(d.vnpu().logicId(), d.vnpu().template());
      devices.set(i, d.withVnpu(d.vnpu().created(v.vnpuId())));
      plan = plan.withDevices(devices);
      try {
        journal.save(journal.current().with(plan));
      } catch (StateUnavailableException e) {
        // not recorded: destroyed now rather than left for the start-up sweep
        try {
          vnpus.destroy(d.vnpu().logicId(), v.vnpuId());
        } catch (DeviceException again) {
          log.warn(
              "vNPU {} on {} created but neither recorded nor destroyed: {}",
              v.vnpuId(),
              d.deviceName(),
              again.getMessage());
        }
        throw e;
      }
      log.info(
          "created vNPU {} ({}) on {} for ResourceClaim {}/{} share {}",
          v.vnpuId(),
          d.vnpu().template(),
          d.deviceName(),
          plan.namespace(),
          plan.name(),
          d.shareId());
    }
    return plan;
  }

  /**
   * Destroys the vNPUs an entry holds, recording each destruction; the first DCMI refusal (e.g.
   * still in use by a container) stops and is returned, the entry keeping what is left.
   *
   * @return empty when every vNPU is gone, else the error
   */
  String destroy(PreparedClaim entry, Journal journal) throws StateUnavailableException {
    List<PreparedDevice> devices = new ArrayList<>(entry.devices());
    String error = "";
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice d = devices.get(i);
      if (d.vnpu() == null || d.vnpu().vnpuId() == null) {
        continue;
      }
      try {
        vnpus.destroy(d.vnpu().logicId(), d.vnpu().vnpuId());
        log.info(
            "destroyed vNPU {} on {} (ResourceClaim uid {})",
            d.vnpu().vnpuId(),
            d.deviceName(),
            entry.uid());
        devices.set(
            i,
            d.withVnpu(
                new VnpuRecord(
                    d.vnpu().logicId(), d.vnpu().template(), d.vnpu().memoryMib(), null)));
      } catch (DeviceException e) {
        error =
            "destroying vNPU "
                + d.vnpu().vnpuId()
                + " on "
                + d.deviceName()
                + ": "
                + e.getMessage();
        break;
      }
    }
    if (!devices.equals(entry.devices())
        && journal.current().preparedClaims().containsKey(entry.uid())) {
      journal.save(journal.current().with(entry.withDevices(devices)));
    }
    return error;
  }

  /**
   * Destroys the vNPUs of a half-prepared entry: recorded ones by ID, and for a device whose
   * creation was not recorded, a vNPU of its template on its chip that no other entry holds and no
   * container uses (the one a crash left between DCMI's answer and the checkpoint write). Lenient:
   * DCMI problems are logged.
   *
   * @return false when DCMI could not be asked (a vNPU may be left for the sweep)
   */
  boolean releaseHalfPrepared(PreparedClaim c, Checkpoint checkpoint) {
    boolean done = true;
    for (PreparedDevice d : c.devices()) {
      VnpuRecord v = d.vnpu();
      if (v == null) {
        continue;
      }
      try {
        if (v.vnpuId() != null) {
          vnpus.destroy(v.logicId(), v.vnpuId());
          log.info("destroyed vNPU {} of half-prepared ResourceClaim uid {}", v.vnpuId(), c.uid());
          continue;
        }
        java.util.Set<Integer> held = new java.util.HashSet<>();
        for (PreparedClaim o : checkpoint.preparedClaims().values()) {
          for (PreparedDevice od : o.devices()) {
            if (od.vnpu() != null && od.vnpu().vnpuId() != null) {
              held.add(od.vnpu().vnpuId());
            }
          }
        }
        for (Vnpu found : vnpus.list(v.logicId())) {
          if (found.templateName().equals(v.template())
              && !found.inUse()
              && !held.contains(found.vnpuId())) {
            vnpus.destroy(v.logicId(), found.vnpuId());
            log.info(
                "destroyed unrecorded vNPU {} ({}) of half-prepared ResourceClaim uid {}",
                found.vnpuId(),
                v.template(),
                c.uid());
            break;
          }
        }
      } catch (DeviceException e) {
        done = false;
        log.warn(
            "releasing the vNPU of half-prepared ResourceClaim uid {} on {}: {}",
            c.uid(),
            d.deviceName(),
            e.getMessage());
      }
    }
    return done;
  }

  /**
   * The hard vNPU a CDI device of ours injects ({@link ClaimSpecBuilder}: host node {@code
   * vdavinci<id>}, {@code ASCEND_VNPU_TEMPLATE=<template>}), recorded with its chip {@link
   * VnpuRecord#UNRESOLVED} until checked through DCMI; {@code device} unchanged for a whole NPU.
   */
  static PreparedDevice fromCdi(PreparedDevice device, CdiDevice d) {
    String template =
        d.containerEdits().env().stream()
            .filter(e -> e.startsWith("ASCEND_VNPU_TEMPLATE="))
            .map(e -> e.substring(21))
            .findFirst()
            .orElse(null);
    Integer id = null;
    for (var n : d.containerEdits().deviceNodes()) {
      String host = n.hostPath() == null ? n.path() : n.hostPath();
      java.util.regex.Matcher m = VDAVINCI.matcher(host);
      if (m.find()) {
        id = Integer.valueOf(m.group(1));
      }
    }
    if (template == null || template.isEmpty() || id == null) {
      return device;
    }
    return device.withVnpu(new VnpuRecord(VnpuRecord.UNRESOLVED, template, 0, id));
  }

  private static final java.util.regex.Pattern VDAVINCI =
      java.util.regex.Pattern.compile("/vdavinci([0-9]{1,9})$");

  /** Destroys the vNPUs {@code created} records (a prepare abandoned); problems are logged. */
  void destroyQuietly(PreparedClaim created) {
    for (PreparedDevice d : created.devices()) {
      VnpuRecord v = d.vnpu();
      if (v != null && v.vnpuId() != null) {
        try {
          vnpus.destroy(v.logicId(), v.vnpuId());
        } catch (DeviceException e) {
          log.warn(
              "ResourceClaim uid {}: destroying vNPU {} on {}: {}",
              created.uid(),
              v.vnpuId(),
              d.deviceName(),
              e.getMessage());
        }
      }
    }
  }
}
