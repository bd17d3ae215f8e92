package io.vnpu.api.config;

import io.vnpu.api.model.ChipModel;
import io.vnpu.api.model.VnpuTemplate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One chip model's entry of HAMi's {@code device-config.yaml} ({@code vnpus.configs[]}).
 *
 * @param chip chip facts: {@code chipName}, {@code commonWord}, {@code memoryCapacity} (as {@link
 *     ChipModel#hbmMib()}, MiB), {@code aiCore}, {@code aiCPU} (0 when not configured)
 * @param resourceName kubelet extended resource, e.g. {@code huawei.com/Ascend910B3}
 * @param resourceMemoryName scheduler-only memory resource (MiB), e.g. {@code
 *     huawei.com/Ascend910B3-memory}, when set (the plugin does not need it: a missing one is a
 *     load warning)
 * @param resourceCoreName scheduler-only AI-core percent resource (hami-core mode), when set
 * @param memoryAllocatableMib memory advertised per NPU ({@code devmem}) and charged for a whole
 *     card, in MiB; at most the capacity
 * @param templates vNPU templates, sorted by memory ascending (ties keep file order), as HAMi sorts
 *     them at load
 * @param memoryFactor HAMi scheduler's {@code memoryFactor} (request multiplier), 1 when not
 *     configured; the plugin does not use it
 */
public record ChipConfig(
    ChipModel chip,
    String resourceName,
    Optional<String> resourceMemoryName,
    Optional<String> resourceCoreName,
    long memoryAllocatableMib,
    List<VnpuTemplate> templates,
    int memoryFactor) {

  public ChipConfig {
    Objects.requireNonNull(chip, "chip");
    Objects.requireNonNull(resourceName, "resourceName");
    Objects.requireNonNull(resourceMemoryName, "resourceMemoryName");
    Objects.requireNonNull(resourceCoreName, "resourceCoreName");
    if (memoryAllocatableMib <= 0 || memoryAllocatableMib > chip.hbmMib()) {
      throw new IllegalArgumentException(
          "memoryAllocatableMib must be in 1.." + chip.hbmMib() + ": " + memoryAllocatableMib);
    }
    if (memoryFactor < 1) throw new IllegalArgumentException("memoryFactor must be >= 1");
    List<VnpuTemplate> sorted = new ArrayList<>(templates);
    sorted.sort(Comparator.comparingLong(VnpuTemplate::memoryMib));
    templates = List.copyOf(sorted);
  }

  /** Chip name the driver reports ({@code chipName}), e.g. {@code 910B3}. */
  public String chipName() {
    return chip.name();
  }

  /** HAMi naming root ({@code commonWord}), e.g. {@code Ascend910B3}. */
  public String commonWord() {
    return chip.commonWord();
  }

  /** Largest memory request accepted ({@code memoryCapacity}), in MiB. */
  public long memoryCapacityMib() {
    return chip.hbmMib();
  }

  /** The template of that exact name. */
  public Optional<VnpuTemplate> template(String name) {
    return templates.stream().filter(t -> t.name().equals(name)).findFirst();
  }

  /**
   * Template selection ("trim", HAMi {@code trimMemory}): the smallest template with memory &ge;
   * the request; else the whole card when the request &le; {@code memoryCapacity}; else rejected.
   *
   * @param requestMib requested device memory in MiB, at least 1 (a container that names no memory
   *     gets the whole card; callers decide that before trimming)
   * @throws IllegalArgumentException when {@code requestMib < 1}
   */
  public TemplateChoice trim(long requestMib) {
    if (requestMib < 1)
      throw new IllegalArgumentException("requestMib must be >= 1: " + requestMib);
    for (VnpuTemplate t : templates) {
      if (requestMib <= t.memoryMib()) return new TemplateChoice.Template(t);
    }
    if (requestMib <= memoryCapacityMib())
      return new TemplateChoice.WholeCard(memoryAllocatableMib);
    return new TemplateChoice.Rejected(requestMib, memoryCapacityMib());
  }

  /**
   * Fake devices advertised to kubelet per physical NPU (HAMi plugin {@code VDeviceCount}) without
   * a node override: floor({@code memoryAllocatable} / smallest template memory), 1 without
   * templates.
   */
  public int vDeviceCount() {
    return vDeviceCount(0);
  }

  /**
   * VDeviceCount for a node: the node's {@code vDeviceCount} when &gt; 0, else floor({@code
   * memoryAllocatable} / smallest template memory), else 1 when there are no templates.
   *
   * <p>Where HAMi would compute 0 (smallest template larger than {@code memoryAllocatable}, which
   * leaves kubelet with no devices) this returns 1; the loader warns about such a config.
   *
   * @param nodeVDeviceCount {@code nodes[].vDeviceCount} of this node's entry, 0 when unset
   */
  public int vDeviceCount(int nodeVDeviceCount) {
    return vDeviceCount(nodeVDeviceCount, memoryAllocatableMib, templates);
  }

  /**
   * The VDeviceCount rule (HAMi protocol spec section 6.2), the one place it is written; every
   * caller (device plugin, register annotation, {@code vnpu config check}) goes through it.
   *
   * @param nodeVDeviceCount {@code nodes[].vDeviceCount}, 0 when unset
   * @param memoryAllocatableMib the chip's {@code memoryAllocatable}, MiB
   * @param templates the chip's templates, smallest memory first
   */
  public static int vDeviceCount(
      int nodeVDeviceCount, long memoryAllocatableMib, List<VnpuTemplate> templates) {
    if (nodeVDeviceCount > 0) return nodeVDeviceCount;
    if (templates.isEmpty()) return 1;
    return (int) Math.max(1, memoryAllocatableMib / templates.get(0).memoryMib());
  }

  /** VDeviceCount for a node's settings, or without override when the node has no entry. */
  public int vDeviceCount(Optional<NodeSettings> node) {
    return vDeviceCount(node.map(NodeSettings::vDeviceCount).orElse(0));
  }
}
