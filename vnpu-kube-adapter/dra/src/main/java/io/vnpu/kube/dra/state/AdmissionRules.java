package io.vnpu.kube.dra.state;

import io.vnpu.kube.dra.checkpoint.Checkpoint;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.dra.devices.NpuInventory;
import java.util.List;
import java.util.Objects;

/**
 * What a plan may take on this node next to the claims already prepared, checked again here
 * although the scheduler guarantees it (a stale allocation, a scheduler bug or capacities published
 * differently before a restart must not hand one chip out twice): one sharing mode per chip at a
 * time, soft shares within the chip's HBM and 100 % of AI-core time, vNPU templates within the
 * chip's memory, and a chip held whole held by nothing else. Admin access is monitoring only and
 * never conflicts. Pure: reads the plan, the prepared claims and the NPUs' sizes.
 */
final class AdmissionRules {
  private final NpuInventory inventory;

  AdmissionRules(NpuInventory inventory) {
    this.inventory = Objects.requireNonNull(inventory, "inventory");
  }

  /**
   * Checks {@code plan} against itself and against the claims {@code prepared} holds.
   *
   * @throws PlanException naming the claim, device and the claim it collides with
   */
  void check(PreparedClaim plan, Checkpoint prepared) throws PlanException {
    checkOneDevicePerChip(plan, prepared);
    checkSoftFits(plan, prepared);
    java.util.Map<String, Long> mine = new java.util.HashMap<>();
    for (PreparedDevice d : plan.devices()) {
      if (d.vnpu() == null || d.adminAccess()) {
        continue;
      }
      long chipMib = inventory.find(d.deviceName()).map(n -> n.hbmMib()).orElse(0L);
      long want = mine.merge(d.deviceName(), d.vnpu().memoryMib(), Long::sum);
      long used = sharedMib(prepared, d.deviceName(), plan.uid(), chipMib);
      if (used + want > chipMib) {
        throw new PlanException(
            name(plan)
                + ": device "
                + d.deviceName()
                + " share "
                + d.shareId()
                + ": vNPU template "
                + d.vnpu().template()
                + " ("
                + d.vnpu().memoryMib()
                + " MiB) does not fit: "
                + used
                + " of "
                + chipMib
                + " MiB already held by prepared claims");
      }
    }
    checkWholeChipsExclusive(plan, prepared);
  }

  /**
   * A device held whole (no shareID, or a share that took the whole chip: neither vNPU nor soft
   * share, so no limit at all) is held by nothing else, in this claim or another; the scheduler
   * guarantees it, a stale allocation or a scheduler bug must not hand one chip unlimited to one
   * container and shared to others. Entries rebuilt from CDI specs without their amounts are only
   * judged when they are whole devices (their shares' sizes are unknown until prepared again).
   */
  private static void checkWholeChipsExclusive(PreparedClaim plan, Checkpoint prepared)
      throws PlanException {
    List<PreparedDevice> mine = plan.devices();
    for (int i = 0; i < mine.size(); i++) {
      PreparedDevice d = mine.get(i);
      if (d.adminAccess()) {
        continue;
      }
      for (int j = 0; j < i; j++) {
        PreparedDevice e = mine.get(j);
        if (e.deviceName().equals(d.deviceName())
            && !e.adminAccess()
            && (heldWhole(plan, d) || heldWhole(plan, e))) {
          throw new PlanException(
              name(plan)
                  + ": device "
                  + d.deviceName()
                  + " is allocated twice (shareID "
                  + e.shareId()
                  + " and "
                  + d.shareId()
                  + ") and one of them is the whole chip");
        }
      }
      for (Held h : heldByOthers(prepared, plan.uid())) {
        PreparedDevice o = h.device();
        if (!o.deviceName().equals(d.deviceName())) {
          continue;
        }
        if (d.shareId() == null && o.shareId() == null) {
          throw new PlanException(
              "device " + d.deviceName() + " is already prepared for " + holder(h.claim()) + ")");
        }
        if (heldWhole(plan, d) || heldWhole(h.claim(), o)) {
          throw new PlanException(
              name(plan)
                  + ": device "
                  + d.deviceName()
                  + " shareID "
                  + d.shareId()
                  + ": the device is held by "
                  + holder(h.claim())
                  + ", shareID "
                  + o.shareId()
                  + ") and one of them is the whole chip");
        }
      }
    }
  }

  /** Whether {@code d} of {@code c} is the whole device without any limit. */
  private static boolean heldWhole(PreparedClaim c, PreparedDevice d) {
    if (d.shareId() == null) {
      return true;
    }
    return d.soft() == null && d.vnpu() == null && !c.rebuilt();
  }

  /**
   * A chip offered through two devices (hard {@code npu-<phy>} and soft {@code npu-<phy>-soft},
   * exclusive through the chip's shared counters) is used through one of them at a time: the
   * scheduler guarantees it, this checks it again on the node, because a scheduler that does not
   * count a shared device's counters across scheduling cycles (before kubernetes#139040) could
   * allocate both. Admin access is monitoring only and never conflicts.
   */
  private static void checkOneDevicePerChip(PreparedClaim plan, Checkpoint prepared)
      throws PlanException {
    java.util.Map<Integer, String> mine = new java.util.HashMap<>();
    for (PreparedDevice d : plan.devices()) {
      if (d.adminAccess()) {
        continue;
      }
      String before = mine.putIfAbsent(d.physicalId(), d.deviceName());
      if (before != null && !before.equals(d.deviceName())) {
        throw new PlanException(
            name(plan)
                + ": devices "
                + before
                + " and "
                + d.deviceName()
                + " are the same chip (phy ID "
                + d.physicalId()
                + ") in different sharing modes");
      }
      for (Held h : heldByOthers(prepared, plan.uid())) {
        PreparedDevice o = h.device();
        if (o.physicalId() == d.physicalId() && !o.deviceName().equals(d.deviceName())) {
          throw new PlanException(
              name(plan)
                  + ": device "
                  + d.deviceName()
                  + ": its chip (phy ID "
                  + d.physicalId()
                  + ") is held through device "
                  + o.deviceName()
                  + " by "
                  + holder(h.claim())
                  + "); one sharing mode per chip at a time");
        }
      }
    }
  }

  /**
   * The scheduler never charges a chip more than its capacities; this checks it again on the node
   * (a stale allocation, or capacities published differently before a restart, must not make two
   * limiters promise the same memory): the soft shares prepared on a device, with the plan's, hold
   * at most its HBM and 100 % of AI-core time.
   */
  private void checkSoftFits(PreparedClaim plan, Checkpoint prepared) throws PlanException {
    java.util.Map<String, long[]> want = new java.util.TreeMap<>();
    for (PreparedDevice d : plan.devices()) {
      if (d.soft() != null && !d.adminAccess()) {
        long[] w = want.computeIfAbsent(d.deviceName(), k -> new long[2]);
        w[0] += d.soft().memoryBytes();
        w[1] += d.soft().cores();
      }
    }
    for (var e : want.entrySet()) {
      long mem = e.getValue()[0];
      long cores = e.getValue()[1];
      for (Held h : heldByOthers(prepared, plan.uid())) {
        PreparedDevice o = h.device();
        if (o.deviceName().equals(e.getKey()) && o.soft() != null) {
          mem += o.soft().memoryBytes();
          cores += o.soft().cores();
        }
      }
      long hbm = inventory.find(e.getKey()).map(n -> n.hbmBytes()).orElse(0L);
      if (mem > hbm || cores > 100) {
        throw new PlanException(
            name(plan)
                + ": device "
                + e.getKey()
                + ": soft shares would hold "
                + mem / (1 << 20)
                + " of "
                + hbm / (1 << 20)
                + " MiB and "
                + cores
                + " of 100 % AI-core time with the ones"
                + " already prepared");
      }
    }
  }

  /**
   * The memory (MiB) of chip {@code deviceName} that prepared claims other than {@code uid} hold
   * through shares: a vNPU's template memory, a share without vNPU the whole chip.
   */
  private static long sharedMib(Checkpoint prepared, String deviceName, String uid, long chipMib) {
    long used = 0;
    for (Held h : heldByOthers(prepared, uid)) {
      PreparedDevice o = h.device();
      if (o.deviceName().equals(deviceName) && o.shareId() != null) {
        used += o.vnpu() != null ? o.vnpu().memoryMib() : chipMib;
      }
    }
    return used;
  }

  /** A device a prepared claim holds. */
  private record Held(PreparedClaim claim, PreparedDevice device) {}

  /**
   * The devices the claims in {@code prepared} other than {@code uid} hold, admin access left out
   * (monitoring only, it never conflicts).
   */
  private static List<Held> heldByOthers(Checkpoint prepared, String uid) {
    List<Held> held = new java.util.ArrayList<>();
    for (PreparedClaim other : prepared.preparedClaims().values()) {
      if (other.uid().equals(uid)) {
        continue;
      }
      for (PreparedDevice o : other.devices()) {
        if (!o.adminAccess()) {
          held.add(new Held(other, o));
        }
      }
    }
    return held;
  }

  /** {@code ResourceClaim <namespace>/<name>}. */
  private static String name(PreparedClaim c) {
    return "ResourceClaim " + c.namespace() + "/" + c.name();
  }

  /** {@code ResourceClaim <namespace>/<name> (uid <uid>}: the caller closes the parenthesis. */
  private static String holder(PreparedClaim c) {
    return name(c) + " (uid " + c.uid();
  }
}
