package io.vnpu.kube.agent;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Plain main class of the example node agent, for images that run it without the {@code vnpu} CLI:
 * {@code java -cp vnpu.jar io.vnpu.kube.agent.NodeAgentMain --config_file ... --node_config_file ...}.
 * Same flags and exit codes as {@code vnpu plugin}.
 */
@Command(name = "vnpu-node-agent", mixinStandardHelpOptions = true,
    description = "Kubelet device plugin for Ascend NPUs speaking the HAMi scheduler protocol.")
public final class NodeAgentMain implements Callable<Integer> {

  @Mixin
  AgentFlags flags;

  private final DeviceManagerOpener opener;
  private final ResourceBackendFactory backends;
  private final Map<String, String> env;

  public NodeAgentMain() {
    this(DcmiOpener.system(), DefaultBackends.hami(), System.getenv());
  }

  NodeAgentMain(DeviceManagerOpener opener, ResourceBackendFactory backends,
      Map<String, String> env) {
    this.opener = opener;
    this.backends = backends;
    this.env = env;
  }

  @Override
  public Integer call() {
    return launch(flags, opener, backends, env);
  }

  /** Builds the options from the flags and runs the agent until SIGTERM or give-up. */
  public static int launch(AgentFlags flags, DeviceManagerOpener opener,
      ResourceBackendFactory backends, Map<String, String> env) {
    NodeAgentOptions options;
    try {
      options = flags.toOptions(env);
    } catch (IllegalArgumentException e) {
      System.err.println("vnpu node agent: " + e.getMessage());
      return NodeAgent.EXIT_STARTUP_FAILED;
    }
    return new NodeAgent(options, opener, backends, UnaryOperator.identity()).run();
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new NodeAgentMain()).execute(args));
  }
}
