package io.vnpu.kube.dra.cdi;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * CDI {@code containerEdits}: what the runtime adds to the container.
 *
 * @param env {@code NAME=value} entries
 * @param deviceNodes device nodes to create in the container
 * @param mounts bind mounts
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"env", "deviceNodes", "mounts"})
public record CdiContainerEdits(
    List<String> env, List<CdiDeviceNode> deviceNodes, List<CdiMount> mounts) {

  /** No edits. */
  public static final CdiContainerEdits EMPTY =
      new CdiContainerEdits(List.of(), List.of(), List.of());

  public CdiContainerEdits {
    env = env == null ? List.of() : List.copyOf(env);
    deviceNodes = deviceNodes == null ? List.of() : List.copyOf(deviceNodes);
    mounts = mounts == null ? List.of() : List.copyOf(mounts);
  }

  /** Whether there is nothing to edit. */
  @JsonIgnore
  public boolean isEmpty() {
    return env.isEmpty() && deviceNodes.isEmpty() && mounts.isEmpty();
  }
}
