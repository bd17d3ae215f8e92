package io.vnpu.benchmarks.deviceplugin;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.vnpu.api.slice.DeviceNode;
import io.vnpu.kube.deviceplugin.DevicePluginServer;
import io.vnpu.kube.deviceplugin.PluginState;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateRequest;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vnpu.kube.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vnpu.kube.deviceplugin.v1beta1.Empty;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.deviceplugin.v1beta1.RegistrationGrpc;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import io.vnpu.kube.resource.ResourceManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Allocate round trip as the kubelet makes it: a gRPC client on the plugin's unix socket calls
 * {@code DevicePlugin/Allocate} for one container with one device, served by {@link
 * DevicePluginServer} (registered with an in-benchmark kubelet Registration stand-in). The {@link
 * ResourceManager} is a trivial in-benchmark one (fixed environment and device node per device), so
 * the figure is the plugin's gRPC + mapping cost, not the HAMi annotation handling. SampleTime
 * mode: JMH reports the p50/p99 of single calls.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class AllocateRoundTripBenchmark {
  static final String RESOURCE = "huawei.com/Ascend910B";

  private Path dir;
  private UnixSocketTransport transport;
  private Server kubelet;
  private DevicePluginServer plugin;
  private ManagedChannel channel;
  private DevicePluginGrpc.DevicePluginBlockingStub stub;
  private AllocateRequest request;

  /** Eight NPUs; Allocate answers ASCEND_VISIBLE_DEVICES and the /dev/davinciN nodes. */
  static final class FixedResourceManager implements ResourceManager {
    private final List<PluginDevice> devices =
        IntStream.range(0, 8)
            .mapToObj(i -> new PluginDevice("npu-" + i, true, List.of(0)))
            .toList();

    @Override
    public String resourceName() {
      return RESOURCE;
    }

    @Override
    public List<PluginDevice> devices() {
      return devices;
    }

    @Override
    public AutoCloseable watch(Runnable onChange) {
      return () -> {};
    }

    @Override
    public ContainerAllocation allocate(List<String> deviceIds) {
      String indexes = String.join(",", deviceIds.stream().map(id -> id.substring(4)).toList());
      List<DeviceNode> nodes =
          deviceIds.stream()
              .map(
                  id ->
                      new DeviceNode(
                          "/dev/davinci" + id.substring(4), "/dev/davinci" + id.substring(4), "rw"))
              .toList();
      return new ContainerAllocation(
          Map.of("ASCEND_VISIBLE_DEVICES", indexes), List.of(), nodes, Map.of(), List.of());
    }

    @Override
    public List<String> preferredAllocation(
        List<String> available, List<String> mustInclude, int size) {
      return available.subList(0, Math.min(size, available.size()));
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("vnpu-bench-dp-");
    transport = new UnixSocketTransport(2);
    kubelet =
        transport.startServer(
            dir.resolve(DevicePluginServer.KUBELET_SOCKET),
            List.of(
                new RegistrationGrpc.RegistrationImplBase() {
                  @Override
                  public void register(RegisterRequest req, StreamObserver<Empty> out) {
                    out.onNext(Empty.getDefaultInstance());
                    out.onCompleted();
                  }
                }));
    plugin = DevicePluginServer.builder(new FixedResourceManager(), dir).build();
    PluginState state = plugin.start();
    if (state != PluginState.REGISTERED) {
      throw new IllegalStateException(
          "device plugin did not register: " + state + " " + plugin.failure());
    }
    channel = transport.channel(plugin.socketPath());
    stub = DevicePluginGrpc.newBlockingStub(channel);
    request =
        AllocateRequest.newBuilder()
            .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds("npu-3"))
            .build();
    AllocateResponse r = stub.allocate(request);
    if (!"3".equals(r.getContainerResponses(0).getEnvsMap().get("ASCEND_VISIBLE_DEVICES"))) {
      throw new IllegalStateException("unexpected Allocate answer " + r);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException, InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    plugin.stop();
    kubelet.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    transport.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }

  @Benchmark
  public AllocateResponse allocateOneDevice() {
    return stub.allocate(request);
  }
}
