package io.vnpu.kube.hami.codec;

import java.util.Objects;

/**
 * Every name HAMi derives from a chip's {@code commonWord} (protocol spec section 1.1), plus the
 * fixed keys of the protocol. Keys are written exactly as listed; readers compare them
 * case-sensitively because Kubernetes annotation keys are case-sensitive.
 *
 * @param commonWord HAMi resource word, e.g. {@code Ascend910B3}
 */
public record HamiNames(String commonWord) {
  /** Node annotation holding the scheduler's node lock: {@code <RFC3339>,<namespace>,<pod>}. */
  public static final String NODE_LOCK = "hami.io/mutex.lock";

  /**
   * Node annotation telling the scheduler whether the node soft-slices ({@code "true"/"false"}).
   */
  public static final String HAMI_VNPU_CORE = "hami-vnpu-core";

  /** Pod annotation: {@code allocating}, {@code success} or {@code failed}. */
  public static final String BIND_PHASE = "hami.io/bind-phase";

  /** Pod annotation: unix seconds when the scheduler started binding. */
  public static final String BIND_TIME = "hami.io/bind-time";

  /** Pod annotation (and label) naming the node the scheduler chose. */
  public static final String VGPU_NODE = "hami.io/vgpu-node";

  /**
   * Pod annotation selecting soft slicing when its value is exactly {@link #VNPU_MODE_HAMI_CORE}.
   */
  public static final String VNPU_MODE = "huawei.com/vnpu-mode";

  /** The value of {@link #VNPU_MODE} that selects soft slicing (hami-vnpu-core). */
  public static final String VNPU_MODE_HAMI_CORE = "hami-core";

  public HamiNames {
    Objects.requireNonNull(commonWord, "commonWord");
    if (commonWord.isBlank()) throw new IllegalArgumentException("commonWord must not be blank");
  }

  /** kubelet socket basename, {@code <cw>.sock}. */
  public String socketName() {
    return commonWord + ".sock";
  }

  /** Node annotation with the register JSON, {@code hami.io/node-register-<cw>}. */
  public String nodeRegister() {
    return "hami.io/node-register-" + commonWord;
  }

  /** Node annotation with the handshake value, {@code hami.io/node-handshake-<cw>}. */
  public String nodeHandshake() {
    return "hami.io/node-handshake-" + commonWord;
  }

  /** Pod annotation with the RuntimeInfo JSON array, {@code huawei.com/<cw>}. */
  public String runtimeInfo() {
    return "huawei.com/" + commonWord;
  }

  /**
   * Pod annotation with the scheduler's pending per-container decision, {@code
   * hami.io/<cw>-devices-to-allocate}.
   */
  public String devicesToAllocate() {
    return "hami.io/" + commonWord + "-devices-to-allocate";
  }

  /**
   * Pod annotation with the scheduler's accounting copy, {@code hami.io/<cw>-devices-allocated}
   * (never written here).
   */
  public String devicesAllocated() {
    return "hami.io/" + commonWord + "-devices-allocated";
  }
}
