package io.vnpu.kube.dra.slices;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Units;
import io.vnpu.kube.dra.devices.NpuDeviceFacts;
import io.vnpu.kube.dra.devices.NpuDeviceNames;
import io.vnpu.kube.dra.modes.ChipMode;
import io.vnpu.kube.dra.modes.ChipModes;
import io.vnpu.kube.dra.modes.SoftCapacityNames;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The ResourceSlice devices ({@code resource.k8s.io/v1} {@code Device}) of whole NPUs; pure.
 *
 * <p>Name {@code npu-<phy ID>}. Attributes in the driver's domain: {@code chipName} (string, DCMI
 * chip name, e.g. {@code 910B3}), {@code numaNode} (int, omitted when unknown), {@code physicalId}
 * (int), {@code topologyGroup} (string {@code ring-<n>}, omitted without HCCS), {@code uuid} (die
 * ID), {@code logicId} (int), {@code aiCore} (int, AI Cores of the chip); the standard {@code
 * resource.kubernetes.io/pciBusID} when known. Capacity {@code memCapacity} = HBM, as a
 * binary-suffixed quantity ({@code 64Gi}).
 *
 * <p>By the chip's {@link ChipMode}: whole chips as above; hard-vNPU chips with {@code
 * allowMultipleAllocations} and {@code memCapacity} valid values; soft chips with {@code
 * allowMultipleAllocations} and the two consumable capacities of {@link SoftCapacityNames} instead
 * of {@code memCapacity} (every capacity of such a device is consumable, and one without a request
 * policy would be consumed whole by every share):
 *
 * <ul>
 *   <li>memory: value = HBM bytes; {@code requestPolicy{default: HBM, validRange{min: 1Mi, max: HBM
 *       rounded down to 1Mi, step: 1Mi}}};
 *   <li>cores: value = 100 (percent of AI-core time); {@code requestPolicy{default: 100,
 *       validRange{min: 1, max: 100, step: 1}}}.
 * </ul>
 *
 * The defaults are the whole chip: a claim naming no capacity (written for whole NPUs) gets the
 * chip to itself instead of a silent share, and a claim naming only memory is not charged less
 * AI-core time than it may use; HAMi's ascend-dra-driver uses the same defaults, so its claims
 * consume the same amounts here.
 */
public final class NpuSliceDevices {
  /** Attribute names, one place for the publisher, the tests and the shipped DeviceClasses. */
  public static final String CHIP_NAME = "chipName";

  public static final String NUMA_NODE = "numaNode";
  public static final String PHYSICAL_ID = "physicalId";
  public static final String TOPOLOGY_GROUP = "topologyGroup";
  public static final String UUID = "uuid";
  public static final String LOGIC_ID = "logicId";
  public static final String AI_CORE = "aiCore";
  public static final String PCI_BUS_ID = "resource.kubernetes.io/pciBusID";
  public static final String MEM_CAPACITY = "memCapacity";

  /**
   * The device's sharing mode, {@code whole}, {@code hard} or {@code soft} (the words of {@code
   * --chip-modes} and of the opaque configuration's {@code sharing}): a claim selects a mode with
   * {@code device.attributes["<driver>"].sharing == "soft"} where a chip is offered in two.
   */
  public static final String SHARING = "sharing";

  private final NpuDeviceFacts facts;
  private final ChipModes modes;

  public NpuSliceDevices(NpuDeviceFacts facts) {
    this(facts, ChipModes.WHOLE);
  }

  /**
   * @param hardVnpu chips offered as hard vNPUs: such a device is published with {@code
   *     allowMultipleAllocations: true} and a {@code memCapacity} {@code requestPolicy} whose
   *     {@code validValues} are the chip's template sizes plus the whole chip, default the whole
   *     chip (a claim naming no capacity gets the chip; the scheduler rounds a request up to the
   *     next valid value)
   */
  public NpuSliceDevices(NpuDeviceFacts facts, HardVnpuChips hardVnpu) {
    this(facts, ChipModes.hardOnly(hardVnpu));
  }

  /**
   * @param modes how each chip is offered
   */
  public NpuSliceDevices(NpuDeviceFacts facts, ChipModes modes) {
    this.facts = Objects.requireNonNull(facts, "facts");
    this.modes = Objects.requireNonNull(modes, "modes");
  }

  /** The node's chips ordered by phy ID; a {@code --chip-modes} entry that pins none is logged. */
  private java.util.stream.Stream<Npu> byPhyId(Collection<Npu> npus) {
    modes.warnUnmatchedPins(npus);
    return npus.stream().sorted((a, b) -> Integer.compare(a.phyId(), b.phyId()));
  }

  /** Devices for {@code npus}, ordered by phy ID, untainted. */
  public List<Device> devices(Collection<Npu> npus) {
    List<Device> out = new ArrayList<>();
    byPhyId(npus).forEach(n -> out.add(device(n)));
    return out;
  }

  /**
   * Devices for {@code npus}, ordered by phy ID, each with the taints of its chip's health (by
   * logic ID); an unhealthy chip is never left out.
   */
  public List<Device> devices(
      Collection<Npu> npus, Map<Integer, ChipHealth> health, NpuDeviceTaints taints) {
    List<Device> out = new ArrayList<>();
    byPhyId(npus)
        .forEach(
            n -> {
              Device d = device(n);
              ChipHealth h = health.get(n.logicId());
              List<DeviceTaint> t = h == null ? List.of() : taints.of(h);
              out.add(t.isEmpty() ? d : new DeviceBuilder(d).withTaints(t).build());
            });
    return out;
  }

  /**
   * Each chip of {@code npus} with its devices, ordered by phy ID: one device per mode {@link
   * ChipModes#offered} gives it ({@code npu-<phy>} in its own mode, {@code npu-<phy>-soft} for a
   * second, soft mode), each with the taints of the chip's health (by logic ID).
   *
   * @param counters whether shared counters are available to keep modes of one chip exclusive
   */
  public List<ChipCounters.ChipDevices> chips(
      Collection<Npu> npus,
      Map<Integer, ChipHealth> health,
      NpuDeviceTaints taints,
      boolean counters) {
    List<ChipCounters.ChipDevices> out = new ArrayList<>();
    byPhyId(npus)
        .forEach(
            n -> {
              ChipHealth h = health.get(n.logicId());
              List<DeviceTaint> t = h == null ? List.of() : taints.of(h);
              List<Device> devices = new ArrayList<>();
              List<ChipMode> offered = modes.offered(n, counters);
              for (int i = 0; i < offered.size(); i++) {
                Device d =
                    device(
                        n,
                        offered.get(i),
                        i == 0 ? NpuDeviceNames.of(n.phyId()) : NpuDeviceNames.soft(n.phyId()));
                devices.add(t.isEmpty() ? d : new DeviceBuilder(d).withTaints(t).build());
              }
              out.add(new ChipCounters.ChipDevices(n, devices));
            });
    return out;
  }

  /** The device of one NPU in its own mode ({@link ChipModes#modeOf}). */
  public Device device(Npu npu) {
    return device(npu, modes.modeOf(npu), NpuDeviceNames.of(npu.phyId()));
  }

  /** The device {@code name} of {@code npu} offered in {@code mode}. */
  Device device(Npu npu, ChipMode mode, String name) {
    Map<String, DeviceAttribute> attrs = new LinkedHashMap<>();
    attrs.put(CHIP_NAME, new DeviceAttributeBuilder().withString(npu.chipName()).build());
    if (npu.numaNode() >= 0) {
      attrs.put(NUMA_NODE, new DeviceAttributeBuilder().withInt((long) npu.numaNode()).build());
    }
    attrs.put(PHYSICAL_ID, new DeviceAttributeBuilder().withInt((long) npu.phyId()).build());
    NpuDeviceFacts.topologyGroup(npu)
        .ifPresent(
            g -> attrs.put(TOPOLOGY_GROUP, new DeviceAttributeBuilder().withString(g).build()));
    attrs.put(UUID, new DeviceAttributeBuilder().withString(npu.uuid()).build());
    attrs.put(LOGIC_ID, new DeviceAttributeBuilder().withInt((long) npu.logicId()).build());
    attrs.put(AI_CORE, new DeviceAttributeBuilder().withInt((long) npu.aiCores()).build());
    facts
        .pciBusId(npu)
        .ifPresent(b -> attrs.put(PCI_BUS_ID, new DeviceAttributeBuilder().withString(b).build()));
    attrs.put(
        SHARING,
        new DeviceAttributeBuilder()
            .withString(
                switch (mode) {
                  case WHOLE -> "whole";
                  case HARD_VNPU -> "hard";
                  case SOFT -> "soft";
                })
            .build());
    Map<String, io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity> capacity =
        new LinkedHashMap<>();
    if (mode == ChipMode.SOFT) {
      SoftCapacityNames names = modes.capacityNames();
      long maxBytes = npu.hbmBytes() / Units.MIB * Units.MIB;
      capacity.put(
          names.memory(),
          new DeviceCapacityBuilder()
              .withValue(quantity(npu.hbmBytes()))
              .withRequestPolicy(
                  new CapacityRequestPolicyBuilder()
                      .withDefault(quantity(maxBytes))
                      .withNewValidRange()
                      .withMin(quantity(Units.MIB))
                      .withMax(quantity(maxBytes))
                      .withStep(quantity(Units.MIB))
                      .endValidRange()
                      .build())
              .build());
      capacity.put(
          names.cores(),
          new DeviceCapacityBuilder()
              .withValue(new Quantity("100"))
              .withRequestPolicy(
                  new CapacityRequestPolicyBuilder()
                      .withDefault(new Quantity("100"))
                      .withNewValidRange()
                      .withMin(new Quantity("1"))
                      .withMax(new Quantity("100"))
                      .withStep(new Quantity("1"))
                      .endValidRange()
                      .build())
              .build());
    } else {
      DeviceCapacityBuilder mem = new DeviceCapacityBuilder().withValue(quantity(npu.hbmBytes()));
      if (mode == ChipMode.HARD_VNPU) {
        ChipConfig c = modes.templatesFor(npu).orElseThrow();
        TreeSet<Long> sizes = new TreeSet<>();
        c.templates().forEach(t -> sizes.add(t.memoryMib() * Units.MIB));
        sizes.removeIf(b -> b > npu.hbmBytes());
        sizes.add(npu.hbmBytes());
        List<Quantity> valid = new ArrayList<>();
        sizes.forEach(b -> valid.add(quantity(b)));
        mem.withRequestPolicy(
            new CapacityRequestPolicyBuilder()
                .withDefault(quantity(npu.hbmBytes()))
                .withValidValues(valid)
                .build());
      }
      capacity.put(MEM_CAPACITY, mem.build());
    }
    DeviceBuilder b =
        new DeviceBuilder().withName(name).withAttributes(attrs).withCapacity(capacity);
    if (mode.shared()) {
      b.withAllowMultipleAllocations(true);
    }
    return b.build();
  }

  /** Bytes as a Kubernetes quantity with the largest exact binary suffix. */
  static Quantity quantity(long bytes) {
    String[] suffix = {"", "Ki", "Mi", "Gi", "Ti"};
    long v = bytes;
    int i = 0;
    while (i < suffix.length - 1 && v != 0 && v % 1024 == 0) {
      v /= 1024;
      i++;
    }
    return new Quantity(v + suffix[i]);
  }
}
