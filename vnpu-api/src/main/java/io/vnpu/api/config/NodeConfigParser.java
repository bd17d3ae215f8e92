package io.vnpu.api.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Walks a composed {@code node-config.yaml} document (protocol spec section 5.4), recording every
 * problem in the {@link ConfigReader}.
 */
final class NodeConfigParser {
  private static final Set<String> ROOT_KEYS = Set.of("nodes");
  private static final Set<String> NODE_KEYS =
      Set.of("name", "hami-vnpu-core", "vDeviceCount", "filterDevices");
  private static final Set<String> FILTER_KEYS = Set.of("index", "uuid");

  /** Die-ID UUID as HAMi prints it: 5 hex words of 8 digits joined by '-'. */
  private static final Pattern DIE_ID = Pattern.compile("[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{8}){4}");

  private final ConfigReader r;

  NodeConfigParser(ConfigReader reader) {
    this.r = reader;
  }

  /** The config, or empty when the reader holds errors. */
  Optional<NodeConfig> parse(Node root) {
    Optional<Fields> top = r.mapping(root, "", ROOT_KEYS, Set.of());
    if (top.isEmpty()) return Optional.empty();
    Optional<List<Node>> items = r.sequence(top.get(), "nodes", true);
    if (items.isEmpty()) return Optional.empty();
    List<NodeSettings> nodes = new ArrayList<>();
    Map<String, Integer> names = new HashMap<>();
    for (int i = 0; i < items.get().size(); i++) {
      node(items.get().get(i), ConfigReader.index("nodes", i), names).ifPresent(nodes::add);
    }
    return r.errors().isEmpty() ? Optional.of(new NodeConfig(nodes)) : Optional.empty();
  }

  private Optional<NodeSettings> node(Node node, String path, Map<String, Integer> names) {
    Optional<Fields> fo = r.mapping(node, path, NODE_KEYS, Set.of());
    if (fo.isEmpty()) return Optional.empty();
    Fields f = fo.get();
    Optional<String> name = r.string(f, "name", true);
    name.ifPresent(
        n -> {
          Node at = f.value("name").orElseThrow();
          Integer first = names.putIfAbsent(n, r.line(at));
          if (first != null) {
            r.warn(
                at,
                f.path("name"),
                "node already configured at line "
                    + first
                    + "; only the first entry is used, as in HAMi");
          }
        });
    boolean coreValid = r.present(f, "hami-vnpu-core", false).isEmpty();
    Optional<Boolean> hamiVnpuCore = r.bool(f, "hami-vnpu-core");
    coreValid |= hamiVnpuCore.isPresent();
    Optional<Integer> vDeviceCount = r.optionalInt32(f, "vDeviceCount", 0, 0);
    Optional<DeviceFilter> filter =
        r.present(f, "filterDevices", false).isEmpty()
            ? Optional.of(DeviceFilter.NONE)
            : r.mapping(f, "filterDevices", false, FILTER_KEYS, Set.of()).flatMap(this::filter);
    if (name.isEmpty() || !coreValid || vDeviceCount.isEmpty() || filter.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new NodeSettings(name.get(), hamiVnpuCore, vDeviceCount.get(), filter.get()));
  }

  private Optional<DeviceFilter> filter(Fields f) {
    boolean valid = true;
    List<Integer> cardIds = new ArrayList<>();
    Optional<List<Node>> index =
        r.present(f, "index", false).isEmpty()
            ? Optional.of(List.of())
            : r.sequence(f, "index", false);
    valid &= index.isPresent();
    for (int i = 0; index.isPresent() && i < index.get().size(); i++) {
      Optional<Integer> id = r.int32(index.get().get(i), ConfigReader.index(f.path("index"), i), 0);
      id.ifPresent(cardIds::add);
      valid &= id.isPresent();
    }
    List<String> uuids = new ArrayList<>();
    Optional<List<Node>> uuid =
        r.present(f, "uuid", false).isEmpty()
            ? Optional.of(List.of())
            : r.sequence(f, "uuid", false);
    valid &= uuid.isPresent();
    for (int i = 0; uuid.isPresent() && i < uuid.get().size(); i++) {
      String path = ConfigReader.index(f.path("uuid"), i);
      Node at = uuid.get().get(i);
      Optional<String> u = r.string(at, path);
      u.filter(s -> !DIE_ID.matcher(s).matches())
          .ifPresent(
              s ->
                  r.warn(
                      at,
                      path,
                      "does not look like a die-ID UUID (5 groups of 8 hex digits joined by -); it will"
                          + " match no device"));
      u.ifPresent(uuids::add);
      valid &= u.isPresent();
    }
    return valid ? Optional.of(new DeviceFilter(cardIds, uuids)) : Optional.empty();
  }
}
