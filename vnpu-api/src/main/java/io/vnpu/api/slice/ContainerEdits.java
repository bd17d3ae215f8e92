package io.vnpu.api.slice;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the container runtime must change in the container (the shape of CDI {@code containerEdits}
 * and of a device plugin ContainerAllocateResponse): environment variables in insertion order,
 * mounts and device nodes.
 */
public record ContainerEdits(
    Map<String, String> env, List<Mount> mounts, List<DeviceNode> deviceNodes) {
  /** No edits. */
  public static final ContainerEdits NONE = new ContainerEdits(Map.of(), List.of(), List.of());

  public ContainerEdits {
    env = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(env, "env")));
    mounts = List.copyOf(mounts);
    deviceNodes = List.copyOf(deviceNodes);
  }

  /** Only environment variables (in the map's iteration order). */
  public static ContainerEdits ofEnv(Map<String, String> env) {
    return new ContainerEdits(env, List.of(), List.of());
  }

  /** A copy with one more (or a replaced) environment variable. */
  public ContainerEdits withEnv(String name, String value) {
    Map<String, String> e = new LinkedHashMap<>(env);
    e.put(name, value);
    return new ContainerEdits(e, mounts, deviceNodes);
  }
}
