package io.vnpu.kube.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import io.vnpu.kube.resource.ResourceManager;
import io.vnpu.kube.testing.ClassPathWalls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator that takes only {@code vnpu-kube-deviceplugin} to serve its own scheduler protocol:
 * its own {@link ResourceManager}, served through the kubelet stand-in (Register, ListAndWatch,
 * GetPreferredAllocation, Allocate as the kubelet's device manager calls them), on the class path
 * that artifact brings and nothing else of vnpu's.
 */
class DevicePluginOnlyEmbeddingIT {

  static final String RESOURCE = "example.com/npu-share";

  @TempDir Path dir;

  /**
   * An embedder's manager: four shares of one chip; the preference keeps a container's shares
   * adjacent.
   */
  static final class OperatorShares implements ResourceManager {
    final List<List<String>> allocated = new CopyOnWriteArrayList<>();

    @Override
    public String resourceName() {
      return RESOURCE;
    }

    @Override
    public List<PluginDevice> devices() {
      return List.of(
          new PluginDevice("share-0", true, List.of(0)),
          new PluginDevice("share-1", true, List.of(0)),
          new PluginDevice("share-2", true, List.of(0)),
          new PluginDevice("share-3", false, List.of(0)));
    }

    @Override
    public AutoCloseable watch(Runnable onChange) {
      return () -> {};
    }

    @Override
    public ContainerAllocation allocate(List<String> deviceIds) throws AllocationException {
      allocated.add(List.copyOf(deviceIds));
      return new ContainerAllocation(
          Map.of("OPERATOR_SHARES", String.join(",", deviceIds)),
          List.of(),
          List.of(),
          Map.of("example.com/shares", String.valueOf(deviceIds.size())),
          List.of());
    }

    @Override
    public List<String> preferredAllocation(
        List<String> available, List<String> mustInclude, int size) {
      return available.stream().sorted().limit(size).toList();
    }
  }

  @Test
  void servesItsOwnResourceManagerWithoutTheBackendsTheAgentOrTheCli() throws Exception {
    assertThat(
            ClassPathWalls.present(
                ClassPathWalls.PICOCLI,
                ClassPathWalls.PROMETHEUS,
                ClassPathWalls.FABRIC8,
                ClassPathWalls.DCMI,
                ClassPathWalls.HAMI,
                ClassPathWalls.MINDCLUSTER,
                ClassPathWalls.DRA,
                ClassPathWalls.AGENT,
                ClassPathWalls.CLI))
        .as("parts an embedder of vnpu-kube-deviceplugin must not be handed")
        .isEmpty();
    // the check sees this artifact itself, so it can see a banned one
    assertThat(ClassPathWalls.present(ClassPathWalls.DEVICEPLUGIN)).hasSize(1);

    OperatorShares manager = new OperatorShares();
    try (KubeletStandIn kubelet = KubeletStandIn.start(dir);
        DevicePluginServer server = DevicePluginServer.builder(manager, dir).build()) {
      server.start();
      RegisterRequest registration = kubelet.awaitRegistration(Duration.ofSeconds(20));
      assertThat(registration.getResourceName()).isEqualTo(RESOURCE);
      assertThat(registration.getOptions().getGetPreferredAllocationAvailable()).isTrue();

      PluginClient client = kubelet.connect(registration);
      try (PluginClient.ListAndWatchRecorder watch = client.listAndWatch()) {
        assertThat(watch.next(Duration.ofSeconds(20)).getDevicesList())
            .extracting(Device::getID, Device::getHealth)
            .containsExactly(
                tuple("share-0", "Healthy"),
                tuple("share-1", "Healthy"),
                tuple("share-2", "Healthy"),
                tuple("share-3", "Unhealthy"));
      }
      client.assertAdvertisedOptionsServed(registration);

      // the kubelet would pick share-2 and share-0; it asks the preference first, then allocates
      // the answer
      ContainerAllocateResponse answer = client.admit(List.of("share-2", "share-0"));
      assertThat(client.preferredRequests()).isNotEmpty();
      assertThat(manager.allocated).containsExactly(List.of("share-0", "share-1"));
      assertThat(answer.getEnvsMap()).containsEntry("OPERATOR_SHARES", "share-0,share-1");
      assertThat(answer.getAnnotationsMap()).containsEntry("example.com/shares", "2");
    }
  }
}
