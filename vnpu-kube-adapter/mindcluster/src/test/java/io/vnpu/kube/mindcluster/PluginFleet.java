package io.vnpu.kube.mindcluster;

import io.vnpu.kube.deviceplugin.DevicePluginServer;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.resource.ResourceManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One real gRPC device plugin per MindCluster resource manager on the kubelet stand-in's directory,
 * as the node agent runs them (socket {@code <type>.sock}, mode 0600), with the registrations
 * collected by resource name.
 */
final class PluginFleet implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(20);

  private final KubeletStandIn kubelet;
  private final List<DevicePluginServer> servers = new ArrayList<>();
  final Map<String, RegisterRequest> registrations = new LinkedHashMap<>();

  PluginFleet(KubeletStandIn kubelet, List<ResourceManager> managers) throws InterruptedException {
    this.kubelet = kubelet;
    for (ResourceManager m : managers) {
      DevicePluginServer s =
          DevicePluginServer.builder(m, kubelet.pluginDir())
              .socketMode("rw-------")
              .registerTimeout(WAIT)
              .build();
      servers.add(s);
      s.start();
    }
    for (int i = 0; i < managers.size(); i++) {
      RegisterRequest r = kubelet.awaitRegistration(WAIT);
      registrations.put(r.getResourceName(), r);
    }
  }

  /** A kubelet-side client of the plugin registered for {@code resourceName}. */
  PluginClient client(String resourceName) {
    RegisterRequest r = registrations.get(resourceName);
    if (r == null)
      throw new AssertionError(
          "no registration of " + resourceName + ": " + registrations.keySet());
    return kubelet.connect(r);
  }

  @Override
  public void close() {
    servers.forEach(DevicePluginServer::stop);
  }
}
