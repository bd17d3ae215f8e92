package io.vnpu.kube.app;

import io.vnpu.kube.agent.ResourceBackendFactory;

/**
 * The resource backends the shipped entry points use. This package is the composition root: it
 * depends on the agent and on the backends; neither depends on it, nor the agent on a backend.
 */
public final class DefaultBackends {
  private DefaultBackends() {}

  /** The HAMi backend (HAMi resource manager, node register loop, idle vNPU cleanup). */
  public static ResourceBackendFactory hami() {
    return env -> HamiBackend.create(env, System.getenv());
  }
}
