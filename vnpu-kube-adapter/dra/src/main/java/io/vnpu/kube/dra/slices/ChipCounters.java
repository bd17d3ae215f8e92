package io.vnpu.kube.dra.slices;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumptionBuilder;
import io.vnpu.api.model.Npu;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-chip shared counters (KEP-4815 partitionable devices) that keep the sharing modes of one chip
 * exclusive; pure.
 *
 * <p>A chip offered through more than one device (say its hard-vNPU device and its soft-share
 * device) gets the counter set {@code npu-<phy ID>-counters} with {@value #MEMORY} = its HBM
 * (bytes, binary-suffixed quantity such as {@code 64Gi}) and {@value #AI_CORE} = its AI Cores, and
 * every one of its devices consumes all of both. The scheduler deducts a device's consumption once,
 * when it first allocates the device (a shared device then takes further shares by its consumable
 * capacity alone), so once any claim holds one of the chip's devices, none of the chip's other
 * devices can be allocated until every claim on it is gone: shares of one mode never meet shares of
 * another on a chip, and each mode's own accounting (template sizes, memory and AI-core percent) is
 * exact for the chip it has to itself.
 *
 * <p>A chip with a single device gets no counters (nothing to exclude; its slice stays at 128
 * devices).
 */
public final class ChipCounters {
  /** Counter of HBM bytes. */
  public static final String MEMORY = "memory";

  /** Counter of AI Cores. */
  public static final String AI_CORE = "aicore";

  private ChipCounters() {}

  /** The name of chip {@code phyId}'s counter set, {@code npu-3-counters}. */
  public static String counterSetName(int phyId) {
    return "npu-" + phyId + "-counters";
  }

  /** One chip and the devices it is offered through (each a different sharing mode). */
  public record ChipDevices(Npu npu, List<Device> devices) {
    public ChipDevices {
      devices = List.copyOf(devices);
    }
  }

  /**
   * The pool of {@code chips}: with {@code counters}, a counter set per chip with two or more
   * devices and those devices consuming all of it; without, the devices as given (the caller must
   * then offer at most one device per chip).
   *
   * @throws IllegalArgumentException without {@code counters} when a chip has several devices:
   *     nothing would stop the scheduler from giving one chip to each of them
   */
  public static PoolContent pool(List<ChipDevices> chips, boolean counters) {
    List<CounterSet> sets = new ArrayList<>();
    List<Device> devices = new ArrayList<>();
    for (ChipDevices c : chips) {
      if (c.devices().size() < 2) {
        devices.addAll(c.devices());
        continue;
      }
      if (!counters) {
        throw new IllegalArgumentException(
            "chip with phy ID "
                + c.npu().phyId()
                + " is offered"
                + " through "
                + c.devices().size()
                + " devices without shared counters");
      }
      String name = counterSetName(c.npu().phyId());
      Map<String, Counter> all = whole(c.npu());
      sets.add(new CounterSetBuilder().withName(name).withCounters(all).build());
      for (Device d : c.devices()) {
        devices.add(
            new DeviceBuilder(d)
                .withConsumesCounters(
                    new DeviceCounterConsumptionBuilder()
                        .withCounterSet(name)
                        .withCounters(whole(c.npu()))
                        .build())
                .build());
      }
    }
    return new PoolContent(sets, devices);
  }

  private static Map<String, Counter> whole(Npu npu) {
    Map<String, Counter> m = new LinkedHashMap<>();
    m.put(MEMORY, new CounterBuilder().withValue(NpuSliceDevices.quantity(npu.hbmBytes())).build());
    m.put(
        AI_CORE,
        new CounterBuilder().withValue(new Quantity(Integer.toString(npu.aiCores()))).build());
    return m;
  }
}
