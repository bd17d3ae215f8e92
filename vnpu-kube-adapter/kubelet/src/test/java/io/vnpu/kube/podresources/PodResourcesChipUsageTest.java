package io.vnpu.kube.podresources;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import io.vnpu.kube.podresources.v1.ContainerDevices;
import io.vnpu.kube.podresources.v1.ContainerResources;
import io.vnpu.kube.podresources.v1.ListPodResourcesRequest;
import io.vnpu.kube.podresources.v1.ListPodResourcesResponse;
import io.vnpu.kube.podresources.v1.PodResources;
import io.vnpu.kube.podresources.v1.PodResourcesListerGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stand-in kubelet serving PodResources on a Unix socket. */
class PodResourcesChipUsageTest {
  @TempDir Path dir;

  private final AtomicReference<ListPodResourcesResponse> answer =
      new AtomicReference<>(ListPodResourcesResponse.getDefaultInstance());

  private final BindableService kubelet =
      new PodResourcesListerGrpc.PodResourcesListerImplBase() {
        @Override
        public void list(
            ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> response) {
          response.onNext(answer.get());
          response.onCompleted();
        }
      };

  private static OptionalInt phyOf(String id) {
    return id.startsWith("Ascend910-")
        ? OptionalInt.of(Integer.parseInt(id.substring(10)))
        : OptionalInt.empty();
  }

  @Test
  void aChipIsInUseWhileAContainerHoldsItsDevice() throws Exception {
    Path socket = dir.resolve("kubelet.sock");
    try (UnixSocketTransport t = new UnixSocketTransport(1);
        PodResourcesClient client = new PodResourcesClient(socket, Duration.ofSeconds(10))) {
      Server server = t.startServer(socket, List.of(kubelet));
      try {
        PodResourcesChipUsage usage =
            new PodResourcesChipUsage(
                client, r -> r.startsWith("huawei.com/"), PodResourcesChipUsageTest::phyOf);
        assertThat(usage.inUse(3)).isFalse();
        answer.set(
            ListPodResourcesResponse.newBuilder()
                .addPodResources(
                    PodResources.newBuilder()
                        .setName("train-0")
                        .setNamespace("default")
                        .addContainers(
                            ContainerResources.newBuilder()
                                .setName("main")
                                .addDevices(
                                    ContainerDevices.newBuilder()
                                        .setResourceName("huawei.com/Ascend910")
                                        .addDeviceIds("Ascend910-3")
                                        .addDeviceIds("Ascend910-5"))
                                .addDevices(
                                    ContainerDevices.newBuilder()
                                        .setResourceName("nvidia.com/gpu")
                                        .addDeviceIds("Ascend910-7"))))
                .build());
        assertThat(client.allocatedDevices())
            .containsOnlyKeys("huawei.com/Ascend910", "nvidia.com/gpu");
        assertThat(usage.inUse(3)).isTrue();
        assertThat(usage.inUse(5)).isTrue();
        assertThat(usage.inUse(4)).isFalse();
        assertThat(usage.inUse(7)).as("another plugin's resource").isFalse();
      } finally {
        server.shutdownNow().awaitTermination();
      }
    }
  }

  @Test
  void withoutAKubeletEveryChipCountsAsInUse() {
    try (PodResourcesClient client =
        new PodResourcesClient(dir.resolve("absent.sock"), Duration.ofSeconds(2))) {
      assertThat(
              new PodResourcesChipUsage(client, r -> true, PodResourcesChipUsageTest::phyOf)
                  .inUse(0))
          .isTrue();
    }
  }
}
