package io.vnpu.kube.cli;

import io.vnpu.kube.agent.DcmiOpener;
import io.vnpu.kube.agent.DeviceManagerOpener;
import io.vnpu.kube.agent.NodeAgent;
import io.vnpu.kube.agent.ResourceBackendFactory;
import io.vnpu.kube.app.AgentFlags;
import io.vnpu.kube.app.DefaultBackends;
import io.vnpu.kube.app.KubeconfigFile;
import io.vnpu.kube.app.MindClusterFlags;
import io.vnpu.kube.app.MindClusterLauncher;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vnpu plugin}: the example node agent (kubelet device plugin + HAMi protocol) in the
 * foreground. Exit codes: {@value NodeAgent#EXIT_OK} stopped, {@value
 * NodeAgent#EXIT_STARTUP_FAILED} startup failed, {@value NodeAgent#EXIT_PLUGIN_GAVE_UP} the device
 * plugin gave up.
 */
@Command(
    name = "plugin",
    mixinStandardHelpOptions = true,
    description =
        "Run the kubelet device plugin for this node's Ascend NPUs: --mode hami (default) "
            + "accepts the upstream HAMi ascend-device-plugin flags, --mode mindcluster those of "
            + "MindCluster's Ascend Device Plugin (-volcanoType, -presetVirtualDevice, ...).")
public final class PluginCommand implements Callable<Integer> {

  /** Which upstream device plugin to be. */
  public enum Mode {
    hami,
    mindcluster
  }

  @Mixin AgentFlags flags;

  @Mixin MindClusterFlags mindCluster;

  @Spec CommandSpec spec;

  @Option(
      names = "--mode",
      defaultValue = "hami",
      paramLabel = "MODE",
      description =
          "hami (HAMi scheduler protocol) or mindcluster (MindCluster / Volcano). "
              + "Default: ${DEFAULT-VALUE}.")
  Mode mode;

  private final DeviceManagerOpener opener;
  private final ResourceBackendFactory backends;
  private final Map<String, String> env;

  public PluginCommand() {
    this(DcmiOpener.system(), DefaultBackends.hami(), System.getenv());
  }

  PluginCommand(
      DeviceManagerOpener opener, ResourceBackendFactory backends, Map<String, String> env) {
    this.opener = opener;
    this.backends = backends;
    this.env = env;
  }

  @Override
  public Integer call() {
    Optional<String> kubeconfig = KubeconfigFile.problem(env);
    if (kubeconfig.isPresent()) {
      spec.commandLine().getErr().println("vnpu plugin: " + kubeconfig.get());
      return NodeAgent.EXIT_STARTUP_FAILED;
    }
    if (mode == Mode.mindcluster) {
      return MindClusterLauncher.launch(flags, mindCluster, env, spec.commandLine().getErr());
    }
    return flags.launch(opener, backends, env, "vnpu plugin", spec.commandLine().getErr());
  }
}
