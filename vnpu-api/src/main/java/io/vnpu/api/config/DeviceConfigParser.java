package io.vnpu.api.config;

import io.vnpu.api.model.ChipModel;
import io.vnpu.api.model.VnpuTemplate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Walks a composed {@code device-config.yaml} document and validates it (schema: protocol spec
 * section 5.2), recording every problem in the {@link ConfigReader}.
 */
final class DeviceConfigParser {
  private static final Set<String> ROOT_KEYS = Set.of("vnpus");
  private static final Set<String> NESTED_KEYS = Set.of("hamiVnpuCore", "configs");
  private static final Set<String> CHIP_KEYS =
      Set.of(
          "chipName",
          "commonWord",
          "resourceName",
          "resourceMemoryName",
          "resourceCoreName",
          "memoryAllocatable",
          "memoryCapacity",
          "aiCore",
          "aiCPU",
          "templates",
          "memoryFactor");

  /** Keys only the HAMi scheduler or webhook reads; accepted without a warning. */
  private static final Set<String> HAMI_ONLY_KEYS =
      Set.of("runtimeClassName", "overwriteEnv", "superPod");

  private static final Set<String> TEMPLATE_KEYS = Set.of("name", "memory", "aiCore", "aiCPU");

  private final ConfigReader r;

  DeviceConfigParser(ConfigReader reader) {
    this.r = reader;
  }

  /** The config, or empty when the reader holds errors. */
  Optional<DeviceConfig> parse(Node root) {
    Optional<Fields> top = r.mapping(root, "", ROOT_KEYS, Set.of());
    if (top.isEmpty()) return Optional.empty();
    Optional<Node> vnpus = r.present(top.get(), "vnpus", true);
    if (vnpus.isEmpty()) return Optional.empty();

    boolean hamiVnpuCore = false;
    String listPath;
    Optional<List<Node>> items;
    if (vnpus.get() instanceof SequenceNode) { // legacy flat list (HAMi <= v2.8)
      listPath = "vnpus";
      items = r.sequence(vnpus.get(), listPath);
    } else if (vnpus.get() instanceof MappingNode) {
      Optional<Fields> nested = r.mapping(vnpus.get(), "vnpus", NESTED_KEYS, Set.of());
      if (nested.isEmpty()) return Optional.empty();
      hamiVnpuCore = r.bool(nested.get(), "hamiVnpuCore").orElse(false);
      listPath = "vnpus.configs";
      items = r.sequence(nested.get(), "configs", true);
    } else {
      r.error(
          vnpus.get(),
          "vnpus",
          "expected {hamiVnpuCore, configs: [...]} or a list of chip configs");
      return Optional.empty();
    }
    if (items.isEmpty()) return Optional.empty();
    if (items.get().isEmpty()) {
      r.error(vnpus.get(), listPath, "no chip configs; at least one is required");
    }

    List<ChipConfig> chips = new ArrayList<>();
    Map<String, String> commonWords = new HashMap<>();
    Map<String, String> chipNames = new HashMap<>();
    for (int i = 0; i < items.get().size(); i++) {
      String path = ConfigReader.index(listPath, i);
      Node item = items.get().get(i);
      Optional<ChipConfig> chip = chip(item, path, commonWords, chipNames);
      chip.ifPresent(chips::add);
    }
    return r.errors().isEmpty()
        ? Optional.of(new DeviceConfig(hamiVnpuCore, chips))
        : Optional.empty();
  }

  private Optional<ChipConfig> chip(
      Node node, String path, Map<String, String> commonWords, Map<String, String> chipNames) {
    Optional<Fields> fo = r.mapping(node, path, CHIP_KEYS, HAMI_ONLY_KEYS);
    if (fo.isEmpty()) return Optional.empty();
    Fields f = fo.get();
    Optional<String> chipName = r.string(f, "chipName", true);
    chipName.ifPresent(
        name -> {
          String first =
              chipNames.putIfAbsent(
                  name,
                  f.path("chipName") + " (line " + r.line(f.value("chipName").orElseThrow()) + ")");
          if (first != null) {
            r.warn(
                f.value("chipName").orElseThrow(),
                f.path("chipName"),
                "chip already configured at "
                    + first
                    + "; only the first entry is used, as in HAMi");
          }
        });
    Optional<String> commonWord = r.string(f, "commonWord", true);
    commonWord.ifPresent(
        word -> {
          String first =
              commonWords.putIfAbsent(
                  word, path + ", line " + r.line(f.value("commonWord").orElseThrow()));
          if (first != null) {
            r.error(
                f.value("commonWord").orElseThrow(),
                f.path("commonWord"),
                "duplicate commonWord (first at " + first + ")");
          }
        });
    Optional<String> resourceName = r.string(f, "resourceName", true);
    Optional<String> resourceMemoryName = r.schedulerOnlyString(f, "resourceMemoryName");
    Optional<String> resourceCoreName = r.string(f, "resourceCoreName", false);
    Optional<Long> capacity = r.memoryMib(f, "memoryCapacity", true);
    Optional<Long> allocatable = r.memoryMib(f, "memoryAllocatable", true);
    if (capacity.isPresent() && allocatable.isPresent() && allocatable.get() > capacity.get()) {
      r.error(
          f.value("memoryAllocatable").orElseThrow(),
          f.path("memoryAllocatable"),
          "larger than memoryCapacity (" + capacity.get() + " MiB)");
    }
    Optional<Integer> aiCore = r.int32(f, "aiCore", true, 1);
    Optional<Integer> aiCpu = r.optionalInt32(f, "aiCPU", 0, 0);
    Optional<Integer> memoryFactor = r.optionalInt32(f, "memoryFactor", 1, 1);

    List<VnpuTemplate> templates = new ArrayList<>();
    boolean templatesValid = true;
    Optional<List<Node>> items = r.sequence(f, "templates", false);
    if (items.isPresent()) {
      Map<String, Integer> names = new HashMap<>();
      for (int i = 0; i < items.get().size(); i++) {
        Optional<VnpuTemplate> t =
            template(
                items.get().get(i),
                ConfigReader.index(f.path("templates"), i),
                capacity,
                aiCore,
                aiCpu.orElse(0),
                names);
        if (t.isPresent()) {
          templates.add(t.get());
        } else {
          templatesValid = false;
        }
      }
    }
    warnIfNoFakeDevice(f, allocatable, templates);
    if (chipName.isEmpty()
        || commonWord.isEmpty()
        || resourceName.isEmpty()
        || capacity.isEmpty()
        || allocatable.isEmpty()
        || aiCore.isEmpty()
        || aiCpu.isEmpty()
        || memoryFactor.isEmpty()
        || !templatesValid
        || allocatable.get() > capacity.get()) {
      return Optional.empty();
    }
    ChipModel model =
        new ChipModel(chipName.get(), commonWord.get(), capacity.get(), aiCore.get(), aiCpu.get());
    return Optional.of(
        new ChipConfig(
            model,
            resourceName.get(),
            resourceMemoryName,
            resourceCoreName,
            allocatable.get(),
            templates,
            memoryFactor.get()));
  }

  private Optional<VnpuTemplate> template(
      Node node,
      String path,
      Optional<Long> capacity,
      Optional<Integer> chipAiCore,
      int chipAiCpu,
      Map<String, Integer> names) {
    Optional<Fields> fo = r.mapping(node, path, TEMPLATE_KEYS, Set.of());
    if (fo.isEmpty()) return Optional.empty();
    Fields t = fo.get();
    Optional<String> name = r.string(t, "name", true);
    boolean valid = name.isPresent();
    if (name.isPresent()) {
      Node at = t.value("name").orElseThrow();
      Integer first = names.putIfAbsent(name.get(), r.line(at));
      if (first != null) {
        r.error(at, t.path("name"), "duplicate template name (first at line " + first + ")");
        valid = false;
      }
    }
    Optional<Long> memory = r.memoryMib(t, "memory", true);
    if (memory.isPresent() && capacity.isPresent() && memory.get() > capacity.get()) {
      r.error(
          t.value("memory").orElseThrow(),
          t.path("memory"),
          "larger than the chip's memoryCapacity (" + capacity.get() + " MiB)");
      valid = false;
    }
    Optional<Integer> aiCore = r.int32(t, "aiCore", true, 1);
    if (aiCore.isPresent() && chipAiCore.isPresent() && aiCore.get() > chipAiCore.get()) {
      r.error(
          t.value("aiCore").orElseThrow(),
          t.path("aiCore"),
          "more AI Cores than the chip (aiCore " + chipAiCore.get() + ")");
      valid = false;
    }
    Optional<Integer> aiCpu = r.optionalInt32(t, "aiCPU", 0, 0);
    if (aiCpu.isPresent() && chipAiCpu > 0 && aiCpu.get() > chipAiCpu) {
      r.error(
          t.value("aiCPU").orElseThrow(),
          t.path("aiCPU"),
          "more AI CPUs than the chip (aiCPU " + chipAiCpu + ")");
      valid = false;
    }
    if (!valid || memory.isEmpty() || aiCore.isEmpty() || aiCpu.isEmpty()) return Optional.empty();
    return Optional.of(new VnpuTemplate(name.get(), memory.get(), aiCore.get(), aiCpu.get()));
  }

  /** HAMi would advertise VDeviceCount 0 (no devices at all) for such a chip. */
  private void warnIfNoFakeDevice(
      Fields f, Optional<Long> allocatable, List<VnpuTemplate> templates) {
    if (allocatable.isEmpty() || templates.isEmpty()) return;
    VnpuTemplate smallest =
        templates.stream().min(Comparator.comparingLong(VnpuTemplate::memoryMib)).orElseThrow();
    if (smallest.memoryMib() > allocatable.get()) {
      r.warn(
          f.value("memoryAllocatable").orElseThrow(),
          f.path("memoryAllocatable"),
          "smaller than the smallest template "
              + smallest.name()
              + " ("
              + smallest.memoryMib()
              + " MiB): HAMi would advertise VDeviceCount 0, vnpu advertises 1");
    }
  }
}
