package io.vnpu.kube.dra.slices;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A gated {@code resource.k8s.io/v1} ResourceSlice field that an API server drops silently when its
 * feature gate is off (the API server clears disabled fields on create instead of refusing the
 * object): what it is, which gate it needs, what the node loses without it and whether the
 * scheduler could then over-commit a chip.
 *
 * <p>Gates and stages are those of the feature table in the developers' notes (Kubernetes
 * 1.34–1.37): {@code DRAPartitionableDevices} beta from 1.36, {@code DRAConsumableCapacity} beta
 * from 1.36, {@code DRADeviceTaints} beta 1.36 / GA 1.37. Only fields this plugin writes are
 * listed.
 */
public enum DroppedField {
  /** {@code spec.sharedCounters}: the per-chip counter sets of a counter slice. */
  SHARED_COUNTERS(
      "spec.sharedCounters",
      "DRAPartitionableDevices",
      true,
      "the per-chip counters that keep sharing modes of one chip exclusive are gone") {
    @Override
    boolean in(ResourceSliceSpec spec) {
      return spec.getSharedCounters() != null && !spec.getSharedCounters().isEmpty();
    }
  },
  /** {@code spec.devices[].consumesCounters}: what a device draws from its chip's counters. */
  CONSUMES_COUNTERS(
      "spec.devices[].consumesCounters",
      "DRAPartitionableDevices",
      true,
      "devices no longer draw from their chip's counters",
      d -> d.getConsumesCounters() != null && !d.getConsumesCounters().isEmpty(),
      d -> new DeviceBuilder(d).withConsumesCounters(new ArrayList<>()).build()),
  /** {@code spec.devices[].allowMultipleAllocations}: a device shared by several claims. */
  ALLOW_MULTIPLE_ALLOCATIONS(
      "spec.devices[].allowMultipleAllocations",
      "DRAConsumableCapacity",
      false,
      "shared devices (hard vNPU by memCapacity, soft shares) are allocated whole, one"
          + " claim per chip",
      d -> d.getAllowMultipleAllocations() != null,
      d -> new DeviceBuilder(d).withAllowMultipleAllocations(null).build()),
  /** {@code spec.devices[].capacity.*.requestPolicy}: valid sizes of a share. */
  CAPACITY_REQUEST_POLICY(
      "spec.devices[].capacity[].requestPolicy",
      "DRAConsumableCapacity",
      false,
      "requests are no longer rounded to valid sizes (vNPU templates); a share that"
          + " fits no template fails at prepare",
      d ->
          d.getCapacity() != null
              && d.getCapacity().values().stream().anyMatch(c -> c.getRequestPolicy() != null),
      DroppedField::withoutRequestPolicies),
  /** {@code spec.devices[].taints}: chip faults as device taints. */
  TAINTS(
      "spec.devices[].taints",
      "DRADeviceTaints",
      false,
      "faulty chips are not tainted and stay schedulable",
      d -> d.getTaints() != null && !d.getTaints().isEmpty(),
      d -> new DeviceBuilder(d).withTaints(new ArrayList<>()).build());

  private final String path;
  private final String featureGate;
  private final boolean overCommits;
  private final String consequence;
  private final Predicate<Device> inDevice;
  private final UnaryOperator<Device> without;

  DroppedField(String path, String featureGate, boolean overCommits, String consequence) {
    this(path, featureGate, overCommits, consequence, d -> false, d -> d);
  }

  DroppedField(
      String path,
      String featureGate,
      boolean overCommits,
      String consequence,
      Predicate<Device> inDevice,
      UnaryOperator<Device> without) {
    this.path = path;
    this.featureGate = featureGate;
    this.overCommits = overCommits;
    this.consequence = consequence;
    this.inDevice = inDevice;
    this.without = without;
  }

  /** The field's path in the ResourceSlice, e.g. {@code spec.devices[].consumesCounters}. */
  public String path() {
    return path;
  }

  /** The API server feature gate that keeps the field, e.g. {@code DRAPartitionableDevices}. */
  public String featureGate() {
    return featureGate;
  }

  /**
   * Whether publishing without the field lets the scheduler give one chip to more claims than it
   * holds (the plugin must then publish a layout that does not rely on it).
   */
  public boolean overCommits() {
    return overCommits;
  }

  /** What the node loses without the field, one clause. */
  public String consequence() {
    return consequence;
  }

  /**
   * The warning logged the first time the API server drops the field, e.g. {@code the API server
   * dropped ResourceSlice field spec.devices[].taints (slice node-1-npu.huawei.com-x2k9p): feature
   * gate DRADeviceTaints is probably off on the API server; faulty chips are not tainted and stay
   * schedulable}.
   */
  public String warning(String sliceName) {
    return "the API server dropped ResourceSlice field "
        + path
        + " (slice "
        + sliceName
        + "): feature gate "
        + featureGate
        + " is probably off on the API server; "
        + consequence;
  }

  /** Whether the slice-level part of {@code spec} carries the field. */
  boolean in(ResourceSliceSpec spec) {
    return false;
  }

  /** Whether {@code device} carries the field. */
  boolean in(Device device) {
    return inDevice.test(device);
  }

  /** {@code device} without the field (as the API server stores it with the gate off). */
  Device strip(Device device) {
    return in(device) ? without.apply(device) : device;
  }

  /**
   * The fields {@code sent} carried that {@code stored} (what the API server returned for it)
   * lacks; devices are matched by name. Only presence is compared: the API server may rewrite
   * values (quantities to canonical form, a taint's {@code timeAdded}) without dropping anything.
   */
  public static Set<DroppedField> between(ResourceSliceSpec sent, ResourceSliceSpec stored) {
    Set<DroppedField> out = EnumSet.noneOf(DroppedField.class);
    if (sent == null) {
      return out;
    }
    for (DroppedField f : values()) {
      if (f.in(sent) && (stored == null || !f.in(stored))) {
        out.add(f);
      }
    }
    Map<String, Device> kept = new HashMap<>();
    if (stored != null && stored.getDevices() != null) {
      stored.getDevices().forEach(d -> kept.put(d.getName(), d));
    }
    for (Device d : sent.getDevices() == null ? List.<Device>of() : sent.getDevices()) {
      Device k = kept.get(d.getName());
      if (k == null) {
        continue; // never a gate's doing; the next sync rewrites the slice
      }
      for (DroppedField f : values()) {
        if (f.in(d) && !f.in(k)) {
          out.add(f);
        }
      }
    }
    return out;
  }

  /** {@code devices}, each without every field in {@code dropped}. */
  static List<Device> strip(Collection<DroppedField> dropped, List<Device> devices) {
    if (dropped.isEmpty() || devices == null) {
      return devices;
    }
    return devices.stream()
        .map(
            d -> {
              Device out = d;
              for (DroppedField f : dropped) {
                out = f.strip(out);
              }
              return out;
            })
        .toList();
  }

  private static Device withoutRequestPolicies(Device d) {
    Map<String, DeviceCapacity> caps = new LinkedHashMap<>();
    d.getCapacity()
        .forEach(
            (k, v) -> caps.put(k, new DeviceCapacityBuilder(v).withRequestPolicy(null).build()));
    return new DeviceBuilder(d).withCapacity(caps).build();
  }
}
