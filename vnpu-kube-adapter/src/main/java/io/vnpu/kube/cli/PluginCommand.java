package io.vnpu.kube.cli;

import io.vnpu.kube.agent.AgentFlags;
import io.vnpu.kube.agent.DcmiOpener;
import io.vnpu.kube.agent.DeviceManagerOpener;
import io.vnpu.kube.agent.NodeAgent;
import io.vnpu.kube.agent.ResourceBackendFactory;
import io.vnpu.kube.app.DefaultBackends;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code vnpu plugin}: the example node agent (kubelet device plugin + HAMi protocol) in the
 * foreground. Exit codes: {@value NodeAgent#EXIT_OK} stopped, {@value NodeAgent#EXIT_STARTUP_FAILED}
 * startup failed, {@value NodeAgent#EXIT_PLUGIN_GAVE_UP} the device plugin gave up.
 */
@Command(name = "plugin", mixinStandardHelpOptions = true,
    description = "Run the kubelet device plugin for this node's Ascend NPUs (HAMi protocol). "
        + "Accepts the upstream HAMi ascend-device-plugin flags.")
public final class PluginCommand implements Callable<Integer> {

  @Mixin
  AgentFlags flags;

  private final DeviceManagerOpener opener;
  private final ResourceBackendFactory backends;
  private final Map<String, String> env;

  public PluginCommand() {
    this(DcmiOpener.system(), DefaultBackends.hami(), System.getenv());
  }

  PluginCommand(DeviceManagerOpener opener, ResourceBackendFactory backends,
      Map<String, String> env) {
    this.opener = opener;
    this.backends = backends;
    this.env = env;
  }

  @Override
  public Integer call() {
    return NodeAgent.launch(flags, opener, backends, env);
  }
}
