package io.vnpu.kube.dra.state;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.config.TemplateChoice;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Priority;
import io.vnpu.api.model.Units;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.checkpoint.ClaimState;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.dra.config.ClaimConfigs;
import io.vnpu.kube.dra.config.ConfigDecodeException;
import io.vnpu.kube.dra.config.NpuConfig;
import io.vnpu.kube.dra.config.NpuConfigDecoder;
import io.vnpu.kube.dra.devices.NpuDeviceNames;
import io.vnpu.kube.dra.modes.ChipMode;
import io.vnpu.kube.dra.modes.ChipModes;
import io.vnpu.kube.dra.modes.SoftCapacityNames;
import io.vnpu.kube.dra.slices.NpuSliceDevices;
import io.vnpu.kube.dra.soft.SoftShareRecord;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
import io.vnpu.kube.dra.vnpu.VnpuRecord;
import io.vnpu.kube.softslice.SoftAsk;
import io.vnpu.kube.softslice.SoftCharge;
import io.vnpu.kube.softslice.SoftSliceLayout;
import io.vnpu.kube.softslice.SoftSliceRefusedException;
import io.vnpu.kube.softslice.SoftSliceRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Decides what preparing an allocated ResourceClaim means on this node; pure (no I/O), so the same
 * claim and devices always give the same plan. This is the one place where a claim's allocation
 * ({@code status.allocation.devices}) is mapped to what the node must set up.
 *
 * <p>Rules: only results with {@code driver} = this driver are ours (a claim may span drivers);
 * each must name this node's pool and a device we publish, else the claim fails; a result of a
 * shared device (hard or soft) that consumes capacity must carry a {@code shareID}; a request name
 * {@code main/sub} (prioritized list) is reported as {@code main}; the CDI device of a result is
 * {@code <claim UID>-<device>} ({@code -<shareID>} appended for a share), unique on the node so two
 * specs never define the same name.
 *
 * <p>By the chip's {@link ChipMode} ({@link ChipModes}): a share of a hard-vNPU chip gets the
 * template for its {@code consumedCapacity.memCapacity}; a share of a soft chip gets a {@link
 * SoftShareRecord}: memory and AI-core percent from {@code consumedCapacity} (exact, per device),
 * weight, ceiling, priority and memory-only from the claim's {@link NpuConfig} within what {@code
 * consumedCapacity} charged ({@link SoftSliceRule}: default both = the cores charged; the
 * configuration may lower, never raise), and its place in the quota region of its request (one
 * region per request, entries in {@code ASCEND_VISIBLE_DEVICES} order). Opaque configuration of
 * this driver is decoded strictly ({@link NpuConfigDecoder}); a {@code sharing} that does not match
 * the chip's mode fails the claim.
 */
public final class ClaimPlanner {

  private final String driverName;
  private final String poolName;
  private final CdiKind cdiKind;
  private final ChipModes modes;
  private final SoftSliceLayout soft;
  private final NpuConfigDecoder decoder = new NpuConfigDecoder();

  public ClaimPlanner(String driverName, String poolName, CdiKind cdiKind) {
    this(driverName, poolName, cdiKind, HardVnpuChips.OFF);
  }

  /**
   * @param hardVnpu which chips are split into hard vNPUs by {@code memCapacity}
   */
  public ClaimPlanner(String driverName, String poolName, CdiKind cdiKind, HardVnpuChips hardVnpu) {
    this(driverName, poolName, cdiKind, ChipModes.hardOnly(hardVnpu), null);
  }

  /**
   * @param modes each chip's mode
   * @param soft where soft shares' regions go; null when no chip is soft (a soft chip's share is
   *     then a per-claim error)
   */
  public ClaimPlanner(
      String driverName, String poolName, CdiKind cdiKind, ChipModes modes, SoftSliceLayout soft) {
    this.driverName = Objects.requireNonNull(driverName, "driverName");
    this.poolName = Objects.requireNonNull(poolName, "poolName");
    this.cdiKind = Objects.requireNonNull(cdiKind, "cdiKind");
    this.modes = Objects.requireNonNull(modes, "modes");
    this.soft = soft;
  }

  /** Each chip's mode (the claim state checks the vNPUs of hard-vNPU chips). */
  public ChipModes modes() {
    return modes;
  }

  /**
   * The plan for {@code claim} in state {@code PrepareStarted}.
   *
   * @param devices the devices this node publishes now, by device name
   * @throws PlanException naming the result or config entry that cannot be prepared
   */
  public PreparedClaim plan(ResourceClaim claim, Map<String, Npu> devices) throws PlanException {
    String uid = claim.getMetadata().getUid();
    String where =
        "ResourceClaim " + claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
    DeviceAllocationResult alloc = claim.getStatus().getAllocation().getDevices();
    List<PreparedDevice> out = new ArrayList<>();
    if (alloc != null) {
      ClaimConfigs configs;
      try {
        configs = ClaimConfigs.decode(alloc.getConfig(), driverName, where, decoder);
      } catch (ConfigDecodeException e) {
        throw new PlanException(e.getMessage());
      }
      List<DeviceRequestAllocationResult> results = alloc.getResults();
      for (int i = 0; i < results.size(); i++) {
        DeviceRequestAllocationResult r = results.get(i);
        String at = where + ": status.allocation.devices.results[" + i + "]";
        if (!driverName.equals(r.getDriver())) {
          continue; // another driver's device: that driver's plugin prepares it
        }
        if (!poolName.equals(r.getPool())) {
          // every pool of this driver is one node's: the kubelet asked the wrong node, or the
          // allocation is stale; preparing the rest as if complete would hide it
          throw new PlanException(
              at
                  + ".pool = "
                  + r.getPool()
                  + ": a pool of driver "
                  + driverName
                  + " on another"
                  + " node; this node's pool is "
                  + poolName);
        }
        Npu npu = devices.get(r.getDevice());
        if (npu == null && NpuDeviceNames.isSoft(r.getDevice())) {
          // npu-<phy>-soft: the soft device of a chip also offered hard, behind shared counters
          npu = devices.get(NpuDeviceNames.of(NpuDeviceNames.phyIdOf(r.getDevice()).getAsInt()));
        }
        if (npu == null) {
          throw new PlanException(
              at
                  + ".device = "
                  + r.getDevice()
                  + ": not a device this node offers in pool "
                  + poolName
                  + " (offered: "
                  + String.join(", ", devices.keySet())
                  + ")");
        }
        String shareId = r.getShareID();
        String cdiName = uid + "-" + r.getDevice() + (shareId == null ? "" : "-" + shareId);
        NpuConfig config = configs.forRequest(r.getRequest());
        ChipMode mode = modes.modeOf(npu, r.getDevice());
        VnpuRecord vnpu = null;
        SoftShareRecord share = null;
        if (Boolean.TRUE.equals(r.getAdminAccess())) {
          // monitoring access: the scheduler charges no capacity for it, so it gets the plain
          // chip, never a vNPU or a quota region of its own (and is not counted against shares)
          expectSharing(at, config, NpuConfig.Sharing.WHOLE, "allocated for admin access");
        } else if (shareId == null) {
          if (mode != ChipMode.WHOLE
              && r.getConsumedCapacity() != null
              && !r.getConsumedCapacity().isEmpty()) {
            // the scheduler gives every allocation of a shareable device a shareID: capacity
            // consumed without one is a stale or forged allocation, never the whole chip unlimited
            throw new PlanException(
                at
                    + ": device "
                    + r.getDevice()
                    + " is shared ("
                    + mode.name().toLowerCase(java.util.Locale.ROOT)
                    + ") and the result consumes "
                    + new TreeMap<>(r.getConsumedCapacity())
                    + " but has no shareID");
          }
          expectSharing(at, config, NpuConfig.Sharing.WHOLE, "allocated whole (no shareID)");
        } else if (mode == ChipMode.HARD_VNPU) {
          vnpu = vnpuFor(at, r, npu, modes.templatesFor(npu).orElseThrow()).orElse(null);
          if (vnpu == null) {
            expectSharing(
                at,
                config,
                NpuConfig.Sharing.WHOLE,
                "a share of the whole" + " hard-vNPU chip " + r.getDevice());
          } else {
            expectSharing(
                at, config, NpuConfig.Sharing.HARD, "a hard vNPU share of " + r.getDevice());
          }
        } else if (mode == ChipMode.SOFT) {
          share = softShare(at, r, npu, config, configs);
        } else {
          expectSharing(
              at,
              config,
              NpuConfig.Sharing.WHOLE,
              "a share of " + r.getDevice() + ", which is published whole");
        }
        if (share == null) {
          refuseSoftOnlySettings(
              at,
              config,
              vnpu != null
                  ? "a hard vNPU share of " + r.getDevice()
                  : "prepared whole (" + r.getDevice() + ")");
        }
        PreparedDevice d =
            new PreparedDevice(
                List.of(requestName(r.getRequest())),
                r.getPool(),
                r.getDevice(),
                shareId,
                npu.phyId(),
                Boolean.TRUE.equals(r.getAdminAccess()),
                List.of(cdiKind.qualify(cdiName)),
                vnpu);
        out.add(share == null ? d : d.withSoft(share));
      }
    }
    out = placeInRegions(where, uid, out);
    return new PreparedClaim(
        uid,
        claim.getMetadata().getNamespace(),
        claim.getMetadata().getName(),
        ClaimState.PrepareStarted,
        out,
        false);
  }

  /**
   * The vNPU a shared result of a hard-split chip needs: {@code consumedCapacity.memCapacity}
   * (bytes, rounded up to MiB) trimmed with {@link ChipConfig#trim}, the rule the HAMi plugin uses.
   * No consumed capacity, or a template-less fit (the chip's full size), is the whole chip.
   */
  private java.util.Optional<VnpuRecord> vnpuFor(
      String at, DeviceRequestAllocationResult r, Npu npu, ChipConfig chip) throws PlanException {
    Map<String, Quantity> consumed = r.getConsumedCapacity();
    Quantity q = consumed == null ? null : consumed.get(NpuSliceDevices.MEM_CAPACITY);
    if (q == null) {
      return java.util.Optional.empty();
    }
    long bytes;
    try {
      bytes = Quantity.getAmountInBytes(q).longValueExact();
    } catch (RuntimeException e) {
      throw new PlanException(
          at + ".consumedCapacity.memCapacity = " + q + ": not a byte quantity");
    }
    if (bytes < 1) {
      // never what the scheduler charges (validValues are template sizes); rounding it up would
      // hand out the smallest template for a forged or stale amount
      throw new PlanException(
          at + ".consumedCapacity.memCapacity = " + q + ": not a positive byte quantity");
    }
    long mib = (bytes + Units.MIB - 1) / Units.MIB;
    TemplateChoice choice = chip.trim(mib);
    if (choice instanceof TemplateChoice.Template t) {
      return java.util.Optional.of(
          new VnpuRecord(npu.logicId(), t.templateName(), t.memoryMib(), null));
    }
    if (choice instanceof TemplateChoice.WholeCard) {
      return java.util.Optional.empty();
    }
    throw new PlanException(
        at
            + ".consumedCapacity.memCapacity = "
            + q
            + ": more than chip "
            + npu.chipName()
            + " holds ("
            + chip.memoryCapacityMib()
            + " MiB)");
  }

  /** A sharing the config asks for that differs from what the result is: a per-claim error. */
  private static void expectSharing(
      String at, NpuConfig config, NpuConfig.Sharing actual, String what) throws PlanException {
    if (config.sharing() != null && config.sharing() != actual) {
      throw new PlanException(
          at
              + ": NpuConfig sharing = "
              + NpuConfigDecoder.name(config.sharing())
              + ": the device is "
              + what
              + ", which is sharing "
              + NpuConfigDecoder.name(actual));
    }
  }

  /**
   * Weight, ceiling and priority are enforced by the limiter of a soft share only: set on a result
   * prepared whole or as a hard vNPU they would be dropped without a word, so they fail the claim.
   */
  private static void refuseSoftOnlySettings(String at, NpuConfig config, String what)
      throws PlanException {
    String field = null;
    Object value = null;
    if (config.computeWeight() != null) {
      field = "computeWeight";
      value = config.computeWeight();
    } else if (config.computeCap() != null) {
      field = "computeCap";
      value = config.computeCap();
    } else if (config.priority() != null) {
      field = "priority";
      value = config.priority().name().toLowerCase(java.util.Locale.ROOT);
    }
    if (field != null) {
      throw new PlanException(
          at
              + ": NpuConfig "
              + field
              + " = "
              + value
              + ": applies to soft"
              + " shares only, and the device is "
              + what);
    }
  }

  /**
   * The soft share of a result on a soft chip: {@code consumedCapacity} memory (bytes) and cores
   * (percent) exactly as the scheduler charged them; a share of the whole chip with {@code sharing:
   * whole} is the plain chip without limiter.
   */
  private SoftShareRecord softShare(
      String at, DeviceRequestAllocationResult r, Npu npu, NpuConfig config, ClaimConfigs configs)
      throws PlanException {
    SoftCapacityNames names = modes.capacityNames();
    Map<String, Quantity> consumed =
        r.getConsumedCapacity() == null ? Map.of() : r.getConsumedCapacity();
    long memory = amount(at, consumed, names.memory(), 1, npu.hbmBytes());
    if (memory % Units.MIB != 0) {
      // the published validRange has step 1Mi: an amount off the step is not one the scheduler
      // made from our slice (a stale or forged allocation), so it is refused, not rounded
      throw new PlanException(
          at
              + ".consumedCapacity."
              + names.memory()
              + " = "
              + consumed.get(names.memory())
              + ": not a multiple of 1Mi ("
              + memory
              + " bytes)");
    }
    long cores = amount(at, consumed, names.cores(), 1, 100);
    boolean whole = memory >= npu.hbmBytes() / Units.MIB * Units.MIB && cores == 100;
    if (config.sharing() == NpuConfig.Sharing.WHOLE && whole) {
      return null; // the whole chip, asked for as such: no limiter
    }
    expectSharing(
        at,
        config,
        NpuConfig.Sharing.SOFT,
        "a soft share of "
            + r.getDevice()
            + " ("
            + names.memory()
            + " "
            + consumed.get(names.memory())
            + ", "
            + names.cores()
            + " "
            + consumed.get(names.cores())
            + ")");
    if (soft == null) {
      throw new PlanException(
          at
              + ": device "
              + r.getDevice()
              + " is soft-shared but soft"
              + " slicing is not set up on this plugin");
    }
    // a DeviceClass configuration is the administrator's: it may grant high priority; the
    // claim's own configuration may only lower what consumedCapacity charged (SoftSliceRule)
    NpuConfig fromClass = configs.fromClassForRequest(r.getRequest());
    Priority ceiling = fromClass.priority() == Priority.HIGH ? Priority.HIGH : Priority.NORMAL;
    SliceShare.SoftQuota q;
    try {
      SoftCharge charge =
          SoftCharge.of(
              "consumedCapacity {"
                  + names.memory()
                  + ": "
                  + consumed.get(names.memory())
                  + ", "
                  + names.cores()
                  + ": "
                  + consumed.get(names.cores())
                  + "}",
              memory,
              (int) cores,
              ceiling,
              npu.hbmBytes());
      // likewise the sharing policy: elastic (borrowing idle time) only where the class grants it
      if (fromClass.policy() != null) charge = charge.withPolicy(fromClass.policy());
      SoftAsk ask = SoftAsk.none("NpuConfig");
      if (config.policy() != null) ask = ask.policy("policy", config.policy());
      if (config.computeWeight() != null) ask = ask.weight("computeWeight", config.computeWeight());
      if (config.computeCap() != null) ask = ask.cap("computeCap", config.computeCap());
      if (config.priority() != null) ask = ask.priority("priority", config.priority());
      if (config.memoryOnly() != null) ask = ask.memoryOnly("memoryOnly", config.memoryOnly());
      q = SoftSliceRule.grant(charge, ask);
    } catch (SoftSliceRefusedException e) {
      throw new PlanException(
          at
              + " (request "
              + r.getRequest()
              + ", device "
              + r.getDevice()
              + "): "
              + e.getMessage());
    }
    return new SoftShareRecord(
        q.memoryLimitBytes(),
        (int) cores,
        q.computeWeight(),
        q.computeCapPct(),
        q.priority(),
        "",
        0,
        null,
        q.policy().orElse(null));
  }

  /** A consumed capacity as a whole number in {@code min..max}, else a per-claim error. */
  private static long amount(
      String at, Map<String, Quantity> consumed, String name, long min, long max)
      throws PlanException {
    Quantity q = consumed.get(name);
    if (q == null) {
      throw new PlanException(
          at
              + ".consumedCapacity."
              + name
              + ": missing (the soft share"
              + " needs it; consumed: "
              + new TreeMap<>(consumed).keySet()
              + ")");
    }
    long v;
    try {
      v = Quantity.getAmountInBytes(q).longValueExact();
    } catch (RuntimeException e) {
      throw new PlanException(
          at + ".consumedCapacity." + name + " = " + q + ": not a whole number");
    }
    if (v < min || v > max) {
      throw new PlanException(
          at + ".consumedCapacity." + name + " = " + q + ": outside " + min + ".." + max);
    }
    return v;
  }

  /**
   * Gives every soft device its request's region directory and its entry in it: the position of its
   * phy ID among the sorted phy IDs of all devices of the request (the container's {@code
   * ASCEND_VISIBLE_DEVICES} order). Two shares of one chip in one request are refused: the
   * container would see one device with two regions' entries.
   */
  private List<PreparedDevice> placeInRegions(String where, String uid, List<PreparedDevice> in)
      throws PlanException {
    Map<String, String> seen = new java.util.HashMap<>();
    List<PreparedDevice> out = new ArrayList<>();
    for (PreparedDevice d : in) {
      if (d.soft() == null) {
        out.add(d);
        continue;
      }
      String request = d.requestNames().get(0);
      String prior = seen.put(request + "/" + d.physicalId(), d.shareId());
      if (prior != null) {
        throw new PlanException(
            where
                + ": request "
                + request
                + " got device "
                + d.deviceName()
                + " twice (shares "
                + prior
                + " and "
                + d.shareId()
                + "): one share per device per"
                + " request (add a distinctAttribute constraint on physicalId)");
      }
      int index = deviceOrder(in, request).indexOf(d.physicalId());
      SoftShareRecord s = d.soft();
      String dir;
      try {
        dir = soft.dirOf(uid, request).toString();
      } catch (IllegalArgumentException e) {
        throw new PlanException(where + ": " + e.getMessage());
      }
      out.add(
          d.withSoft(
              new SoftShareRecord(
                  s.memoryBytes(),
                  s.cores(),
                  s.weight(),
                  s.capPct(),
                  s.priority(),
                  dir,
                  index,
                  null,
                  s.policy())));
    }
    return out;
  }

  /**
   * The container's device order of {@code request}: the phy IDs of the devices that serve it,
   * ascending, each once. The one place that orders a request's devices: the CDI spec lists them in
   * this order in {@code ASCEND_VISIBLE_DEVICES} ({@link ClaimSpecBuilder}), the container sees
   * them as devices 0, 1, ... in it, and the request's quota region has its entries in it (a soft
   * share's device index, set here; the region written by {@code SoftShares}).
   *
   * @param devices the devices of one claim
   * @return empty when no device serves {@code request}
   */
  public static List<Integer> deviceOrder(List<PreparedDevice> devices, String request) {
    return devices.stream()
        .filter(d -> d.requestNames().contains(request))
        .map(PreparedDevice::physicalId)
        .distinct()
        .sorted()
        .toList();
  }

  /** {@code main/sub} → {@code main}: the kubelet matches container requests by the main name. */
  static String requestName(String request) {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }
}
