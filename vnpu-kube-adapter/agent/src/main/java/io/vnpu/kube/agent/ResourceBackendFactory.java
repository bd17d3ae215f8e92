package io.vnpu.kube.agent;

/** Builds the {@link ResourceBackend} of a node agent from what the agent loaded. */
@FunctionalInterface
public interface ResourceBackendFactory {

  /**
   * @throws RuntimeException when the backend cannot be built; the agent exits with {@link
   *     NodeAgent#EXIT_STARTUP_FAILED} and the exception's message
   */
  ResourceBackend create(AgentEnvironment environment);
}
