package io.vnpu.kube.app;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vnpu.kube.agent.DcmiOpener;
import io.vnpu.kube.agent.NodeAgent;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.io.PrintWriter;
import java.util.Map;

/**
 * Turns the command line of {@code vnpu plugin --mode mindcluster} into a running {@link
 * MindClusterAgent}.
 */
public final class MindClusterLauncher {
  private MindClusterLauncher() {}

  /**
   * Validates the flags (one line on {@code err} and {@link NodeAgent#EXIT_STARTUP_FAILED} for a
   * usage error) and runs the agent until SIGTERM or give-up.
   */
  public static int launch(
      AgentFlags common, MindClusterFlags flags, Map<String, String> env, PrintWriter err) {
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
    return new MindClusterAgent(
            options,
            common.kubeletDir(),
            () -> opener.openDcmi(common.dcmiLibrary(), common.simulate()),
            () -> apiClient(io.fabric8.kubernetes.client.Config.autoConfigure(null)),
            metrics)
        .run();
  }

  /** Longest wait to open a connection to the API server, in milliseconds. */
  static final int CONNECT_TIMEOUT_MILLIS = 3_000;

  /** Retries of a failed API request (the client's default, 10 with backoff, is ~20 s). */
  static final int REQUEST_RETRIES = 1;

  /** Wait before that retry, in milliseconds. */
  static final int RETRY_BACKOFF_MILLIS = 500;

  /**
   * The agent's API client over {@code config} (in-cluster or {@code KUBECONFIG}), each request
   * bounded to a few seconds: the agent reads the Node and the device-info ConfigMap before it
   * serves the kubelet, and every API call it makes is retried by its own loop (the {@code
   * -listWatchPeriod} refresh, the kubelet's next Allocate), so an unreachable API server must fail
   * a call quickly with its cause rather than hold back start-up ~20 s per call.
   */
  public static io.fabric8.kubernetes.client.KubernetesClient apiClient(
      io.fabric8.kubernetes.client.Config config) {
    config.setConnectionTimeout(CONNECT_TIMEOUT_MILLIS);
    config.setRequestRetryBackoffLimit(REQUEST_RETRIES);
    config.setRequestRetryBackoffInterval(RETRY_BACKOFF_MILLIS);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /**
   * The backend options of a command line.
   *
   * @throws IllegalArgumentException one line naming the flag(s)
   */
  public static MindClusterOptions options(
      AgentFlags common, MindClusterFlags flags, Map<String, String> env) {
    MindClusterOptions o = flags.toOptions(common.nodeName().orElse(null), env);
    if (common.simulate().isPresent()) {
      // the simulated node's device nodes are under its state directory, and the DeviceSpecs of
      // an answer without the Ascend Docker Runtime name them there (native/dcmi-sim/README.md)
      o =
          o.withRuntime(
              o.useAscendDocker(),
              io.vnpu.dcmi.DcmiNodeSelector.simulatedRoot(
                  env.get(io.vnpu.dcmi.DcmiNodeSelector.SimulatedNode.ROOT_ENV)));
    }
    return o;
  }
}
