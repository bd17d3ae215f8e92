package io.vnpu.kube.agent;

import io.vnpu.kube.deviceplugin.FakeResourceManager;
import io.vnpu.kube.resource.PluginDevice;
import io.vnpu.kube.resource.ResourceManager;
import java.util.List;

/** A backend advertising one device per NPU ({@code <uuid>-0}), recording its lifecycle. */
final class RecordingBackend implements ResourceBackend {
  final AgentEnvironment environment;
  final FakeResourceManager manager;
  volatile boolean started;
  volatile boolean closed;

  RecordingBackend(AgentEnvironment env) {
    this.environment = env;
    this.manager =
        new FakeResourceManager(
            env.chip().resourceName(),
            env.npus().stream()
                .map(n -> new PluginDevice(n.uuid() + "-0", true, List.of()))
                .toList());
  }

  public ResourceManager resourceManager() {
    return manager;
  }

  @Override
  public List<ResourceManager> resourceManagers() {
    return List.of(manager);
  }

  @Override
  public void start() {
    started = true;
  }

  @Override
  public void close() {
    closed = true;
  }
}
