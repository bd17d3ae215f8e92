package io.vnpu.kube.dra.state;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.config.TemplateChoice;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Units;
import io.vnpu.kube.dra.slices.NpuSliceDevices;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
import io.vnpu.kube.dra.vnpu.VnpuRecord;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.checkpoint.ClaimState;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Decides what preparing an allocated ResourceClaim means on this node; pure (no I/O), so the
 * same claim and devices always give the same plan. This is the one place where a claim's
 * allocation ({@code status.allocation.devices}) is mapped to what the node must set up.
 *
 * <p>Rules: only results with {@code driver} = this driver and {@code pool} = this node's pool are
 * ours (a claim may span drivers); each names a device we publish, else the claim fails; a request
 * name {@code main/sub} (prioritized list) is reported as {@code main}; the CDI device of a result
 * is {@code <claim UID>-<device>} ({@code -<shareID>} appended for a share), unique on the node so
 * two specs never define the same name. Whole-NPU allocation takes no opaque configuration: any
 * config entry for this driver fails the claim, naming it.
 */
public final class ClaimPlanner {

  private final String driverName;
  private final String poolName;
  private final CdiKind cdiKind;
  private final HardVnpuChips hardVnpu;

  public ClaimPlanner(String driverName, String poolName, CdiKind cdiKind) {
    this(driverName, poolName, cdiKind, HardVnpuChips.OFF);
  }

  /**
   * @param hardVnpu which chips are split into hard vNPUs by {@code memCapacity}
   */
  public ClaimPlanner(String driverName, String poolName, CdiKind cdiKind,
      HardVnpuChips hardVnpu) {
    this.driverName = Objects.requireNonNull(driverName, "driverName");
    this.poolName = Objects.requireNonNull(poolName, "poolName");
    this.cdiKind = Objects.requireNonNull(cdiKind, "cdiKind");
    this.hardVnpu = Objects.requireNonNull(hardVnpu, "hardVnpu");
  }

  /** Which chips this planner splits into hard vNPUs (the claim state checks their vNPUs). */
  public HardVnpuChips hardVnpu() {
    return hardVnpu;
  }

  /**
   * The plan for {@code claim} in state {@code PrepareStarted}.
   *
   * @param devices the devices this node publishes now, by device name
   * @throws PlanException naming the result or config entry that cannot be prepared
   */
  public PreparedClaim plan(ResourceClaim claim, Map<String, Npu> devices) throws PlanException {
    String uid = claim.getMetadata().getUid();
    String where = "ResourceClaim " + claim.getMetadata().getNamespace() + "/"
        + claim.getMetadata().getName();
    DeviceAllocationResult alloc = claim.getStatus().getAllocation().getDevices();
    List<PreparedDevice> out = new ArrayList<>();
    if (alloc != null) {
      List<DeviceAllocationConfiguration> configs = alloc.getConfig();
      for (int i = 0; i < configs.size(); i++) {
        DeviceAllocationConfiguration c = configs.get(i);
        if (c.getOpaque() == null) {
          // a config kind newer than this build: refusing is safer than ignoring it
          throw new PlanException(where + ": status.allocation.devices.config[" + i
              + "]: no opaque configuration (unsupported configuration kind)");
        }
        if (driverName.equals(c.getOpaque().getDriver())) {
          throw new PlanException(where + ": status.allocation.devices.config[" + i
              + "].opaque.driver = " + driverName + ": whole-NPU devices take no configuration"
              + " (source " + c.getSource() + ")");
        }
      }
      List<DeviceRequestAllocationResult> results = alloc.getResults();
      for (int i = 0; i < results.size(); i++) {
        DeviceRequestAllocationResult r = results.get(i);
        if (!driverName.equals(r.getDriver()) || !poolName.equals(r.getPool())) {
          continue;
        }
        Npu npu = devices.get(r.getDevice());
        if (npu == null) {
          throw new PlanException(where + ": status.allocation.devices.results[" + i
              + "].device = " + r.getDevice() + ": not a device this node offers in pool "
              + poolName + " (offered: " + String.join(", ", devices.keySet()) + ")");
        }
        String shareId = r.getShareID();
        String cdiName = uid + "-" + r.getDevice() + (shareId == null ? "" : "-" + shareId);
        VnpuRecord vnpu = null;
        java.util.Optional<ChipConfig> chip =
            shareId == null ? java.util.Optional.empty() : hardVnpu.templatesFor(npu);
        if (chip.isPresent()) {
          vnpu = vnpuFor(where, i, r, npu, chip.get()).orElse(null);
        }
        out.add(new PreparedDevice(List.of(requestName(r.getRequest())), r.getPool(),
            r.getDevice(), shareId, npu.phyId(), Boolean.TRUE.equals(r.getAdminAccess()),
            List.of(cdiKind.qualify(cdiName)), vnpu));
      }
    }
    return new PreparedClaim(uid, claim.getMetadata().getNamespace(),
        claim.getMetadata().getName(), ClaimState.PrepareStarted, out, false);
  }

  /**
   * The vNPU a shared result of a hard-split chip needs: {@code consumedCapacity.memCapacity}
   * (bytes, rounded up to MiB) trimmed with {@link ChipConfig#trim}, the rule the HAMi plugin
   * uses. No consumed capacity, or a template-less fit (the chip's full size), is the whole chip.
   */
  private java.util.Optional<VnpuRecord> vnpuFor(String where, int i,
      DeviceRequestAllocationResult r, Npu npu, ChipConfig chip) throws PlanException {
    Map<String, Quantity> consumed = r.getConsumedCapacity();
    Quantity q = consumed == null ? null : consumed.get(NpuSliceDevices.MEM_CAPACITY);
    if (q == null) {
      return java.util.Optional.empty();
    }
    long bytes;
    try {
      bytes = Quantity.getAmountInBytes(q).longValueExact();
    } catch (RuntimeException e) {
      throw new PlanException(where + ": status.allocation.devices.results[" + i
          + "].consumedCapacity.memCapacity = " + q + ": not a byte quantity");
    }
    long mib = Math.max(1, (bytes + Units.MIB - 1) / Units.MIB);
    TemplateChoice choice = chip.trim(mib);
    if (choice instanceof TemplateChoice.Template t) {
      return java.util.Optional.of(new VnpuRecord(npu.logicId(), t.templateName(),
          t.memoryMib(), null));
    }
    if (choice instanceof TemplateChoice.WholeCard) {
      return java.util.Optional.empty();
    }
    throw new PlanException(where + ": status.allocation.devices.results[" + i
        + "].consumedCapacity.memCapacity = " + q + ": more than chip " + npu.chipName()
        + " holds (" + chip.memoryCapacityMib() + " MiB)");
  }

  /** {@code main/sub} → {@code main}: the kubelet matches container requests by the main name. */
  static String requestName(String request) {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }
}
