package io.vnpu.kube.agent;

import io.vnpu.kube.hami.HamiBackend;

/** The resource backends the shipped entry points use. */
public final class DefaultBackends {
  private DefaultBackends() {}

  /** The HAMi backend (HAMi resource manager, node register loop, idle vNPU cleanup). */
  public static ResourceBackendFactory hami() {
    return env -> HamiBackend.create(env, System.getenv());
  }
}
