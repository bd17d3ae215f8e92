package io.vnpu.kube.podresources;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import io.vnpu.kube.podresources.v1.ContainerDevices;
import io.vnpu.kube.podresources.v1.ContainerResources;
import io.vnpu.kube.podresources.v1.ListPodResourcesRequest;
import io.vnpu.kube.podresources.v1.PodResources;
import io.vnpu.kube.podresources.v1.PodResourcesListerGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Reads the devices the kubelet has allocated to running containers through its PodResources API
 * ({@code v1.PodResourcesLister/List} on {@code /var/lib/kubelet/pod-resources/kubelet.sock}). Each
 * call opens and closes its own channel, bounded by {@code timeout}.
 */
public final class PodResourcesClient implements AutoCloseable {
  /** Where the kubelet serves the API. */
  public static final Path DEFAULT_SOCKET = Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");

  private final Path socket;
  private final Duration timeout;
  private final UnixSocketTransport transport = new UnixSocketTransport(1);

  public PodResourcesClient(Path socket, Duration timeout) {
    this.socket = Objects.requireNonNull(socket, "socket");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * Allocated device IDs by resource name (e.g. {@code huawei.com/Ascend910 → [Ascend910-0]}), over
   * every container of every pod the kubelet runs.
   *
   * @throws StatusRuntimeException when the kubelet cannot be asked within the timeout
   */
  public Map<String, Set<String>> allocatedDevices() {
    ManagedChannel channel = transport.channel(socket);
    try {
      Map<String, Set<String>> out = new TreeMap<>();
      for (PodResources pod :
          PodResourcesListerGrpc.newBlockingStub(channel)
              .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .list(ListPodResourcesRequest.getDefaultInstance())
              .getPodResourcesList()) {
        for (ContainerResources c : pod.getContainersList()) {
          for (ContainerDevices d : c.getDevicesList()) {
            out.computeIfAbsent(d.getResourceName(), k -> new TreeSet<>())
                .addAll(d.getDeviceIdsList());
          }
        }
      }
      return out;
    } finally {
      channel.shutdownNow();
    }
  }

  @Override
  public void close() {
    transport.close();
  }
}
