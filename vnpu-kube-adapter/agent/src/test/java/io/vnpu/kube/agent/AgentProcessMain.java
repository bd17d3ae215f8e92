package io.vnpu.kube.agent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A node agent process for the SIGTERM test: two 910B3 NPUs, the recording backend, the plugin
 * directory and device config from the arguments.
 */
public final class AgentProcessMain {
  private AgentProcessMain() {}

  public static void main(String[] args) {
    NodeAgentOptions o =
        new NodeAgentOptions(
            Path.of(args[1]),
            Optional.empty(),
            "worker-1",
            Duration.ofSeconds(60),
            Duration.ofSeconds(1),
            0,
            Path.of(args[0]),
            Optional.empty(),
            Optional.empty());
    int code =
        new NodeAgent(
                o,
                opts -> new FixedDeviceManager("910B3", 2),
                RecordingBackend::new,
                UnaryOperator.identity())
            .run();
    System.exit(code);
  }
}
