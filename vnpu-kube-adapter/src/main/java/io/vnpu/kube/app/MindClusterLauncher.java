package io.vnpu.kube.app;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vnpu.kube.agent.AgentFlags;
import io.vnpu.kube.agent.DcmiOpener;
import io.vnpu.kube.agent.NodeAgent;
import io.vnpu.kube.mindcluster.config.MindClusterFlags;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.io.PrintWriter;
import java.util.Map;

/** Turns the command line of {@code vnpu plugin --mode mindcluster} into a running {@link MindClusterAgent}. */
public final class MindClusterLauncher {
  private MindClusterLauncher() {}

  /**
   * Validates the flags (one line on {@code err} and {@link NodeAgent#EXIT_STARTUP_FAILED} for a usage
   * error) and runs the agent until SIGTERM or give-up.
   */
  public static int launch(AgentFlags common, MindClusterFlags flags, Map<String, String> env,
      PrintWriter err) {
    MindClusterOptions options;
    io.vnpu.kube.agent.MetricsOptions metrics;
    try {
      options = options(common, flags, env);
      metrics = common.metricsOptions();
    } catch (IllegalArgumentException e) {
      err.println("vnpu plugin --mode mindcluster: " + e.getMessage());
      return NodeAgent.EXIT_STARTUP_FAILED;
    }
    DcmiOpener opener = DcmiOpener.system();
    return new MindClusterAgent(options, common.kubeletDir(),
        () -> opener.openDcmi(common.dcmiLibrary(), common.simulate()),
        () -> new KubernetesClientBuilder().build(), metrics).run();
  }

  /**
   * The backend options of a command line.
   *
   * @throws IllegalArgumentException one line naming the flag(s)
   */
  public static MindClusterOptions options(AgentFlags common, MindClusterFlags flags, Map<String, String> env) {
    return flags.toOptions(common.nodeName().orElse(null), env);
  }
}
