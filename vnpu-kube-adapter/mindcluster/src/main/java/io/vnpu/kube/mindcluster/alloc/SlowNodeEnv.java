package io.vnpu.kube.mindcluster.alloc;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.kube.errors.Causes;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slow-node detection ({@code -enableSlowNode}): at Allocate, the ConfigMap {@value #CONFIG_MAP} of
 * the pod's namespace gives the container {@value #PATH_ENV} (from data key {@value #PATH_KEY}:
 * where the job saves its step latency and grouping) and {@value #CONFIG_ENV} (from {@value
 * #CONFIG_KEY}: the start/stop switch). Without the ConfigMap, or with an unreadable one, the
 * container gets neither and the Allocate goes on (one warning). A value with a control character
 * or longer than {@value #MAX_VALUE} characters is left out with a warning naming the ConfigMap and
 * key: the tenant owns the ConfigMap and it only reaches its own containers, but it must not break
 * the kubelet's env handling.
 */
public final class SlowNodeEnv {
  private static final Logger LOG = LoggerFactory.getLogger(SlowNodeEnv.class);
  public static final String CONFIG_MAP = "steptime-dtpgroup";
  public static final String PATH_KEY = "PerfDumpPath";
  public static final String CONFIG_KEY = "PerfDumpConfig";
  public static final String PATH_ENV = "PERF_DUMP_PATH";
  public static final String CONFIG_ENV = "PERF_DUMP_CONFIG";
  static final int MAX_VALUE = 4096;

  private final KubernetesClient client;

  public SlowNodeEnv(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  /** The env for a container of a pod in {@code namespace}; empty when nothing is configured. */
  public Map<String, String> forNamespace(String namespace) {
    ConfigMap cm;
    try {
      cm = client.configMaps().inNamespace(namespace).withName(CONFIG_MAP).get();
    } catch (KubernetesClientException e) {
      LOG.warn("{}/{}: not read ({}); no slow-node env", namespace, CONFIG_MAP, Causes.describe(e));
      return Map.of();
    }
    if (cm == null || cm.getData() == null) return Map.of();
    Map<String, String> env = new LinkedHashMap<>();
    put(env, namespace, cm.getData(), PATH_KEY, PATH_ENV);
    put(env, namespace, cm.getData(), CONFIG_KEY, CONFIG_ENV);
    return env;
  }

  private static void put(
      Map<String, String> env, String ns, Map<String, String> data, String key, String name) {
    String v = data.get(key);
    if (v == null) return;
    if (v.length() > MAX_VALUE || v.chars().anyMatch(Character::isISOControl)) {
      LOG.warn(
          "{}/{}: data.{} has a control character or more than {} characters; {} not set",
          ns,
          CONFIG_MAP,
          key,
          MAX_VALUE,
          name);
      return;
    }
    env.put(name, v);
  }
}
