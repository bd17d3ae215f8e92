package io.vnpu.kube.agent;

/** The resource backends the shipped entry points use. */
public final class DefaultBackends {
  private DefaultBackends() {}

  /**
   * The HAMi backend (HAMi resource manager, node register loop, idle vNPU cleanup).
   *
   * <p>Not wired yet: the HAMi package ({@code io.vnpu.kube.hami}) is not part of this build, so
   * the agent refuses to start with a message saying so instead of serving something else.
   */
  public static ResourceBackendFactory hami() {
    return env -> {
      throw new AgentStartupException("the HAMi resource backend (io.vnpu.kube.hami) is not part "
          + "of this build");
    };
  }
}
