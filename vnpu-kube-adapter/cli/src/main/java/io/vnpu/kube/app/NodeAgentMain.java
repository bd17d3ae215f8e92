package io.vnpu.kube.app;

import io.vnpu.kube.agent.DcmiOpener;
import io.vnpu.kube.agent.DeviceManagerOpener;
import io.vnpu.kube.agent.ResourceBackendFactory;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Plain main class of the example node agent, for images that run it without the {@code vnpu} CLI:
 * {@code java -cp vnpu.jar io.vnpu.kube.app.NodeAgentMain --config_file ... --node_config_file
 * ...}. Same flags and exit codes as {@code vnpu plugin}.
 */
@Command(
    name = "vnpu-node-agent",
    mixinStandardHelpOptions = true,
    description = "Kubelet device plugin for Ascend NPUs speaking the HAMi scheduler protocol.")
public final class NodeAgentMain implements Callable<Integer> {

  @Mixin AgentFlags flags;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private final DeviceManagerOpener opener;
  private final ResourceBackendFactory backends;
  private final Map<String, String> env;

  public NodeAgentMain() {
    this(DcmiOpener.system(), DefaultBackends.hami(), System.getenv());
  }

  NodeAgentMain(
      DeviceManagerOpener opener, ResourceBackendFactory backends, Map<String, String> env) {
    this.opener = opener;
    this.backends = backends;
    this.env = env;
  }

  @Override
  public Integer call() {
    return flags.launch(opener, backends, env, "vnpu-node-agent", spec.commandLine().getErr());
  }

  public static void main(String[] args) {
    System.exit(ParserRules.apply(new CommandLine(new NodeAgentMain())).execute(args));
  }
}
