package io.vnpu.benchmarks.dra;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.grpc.ManagedChannel;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.NpuDriver;
import io.vnpu.kube.dra.cdi.AscendHostLayout;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.cdi.CdiSpecWriter;
import io.vnpu.kube.dra.cdi.DeviceNodeProbe;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.devices.NpuInventory;
import io.vnpu.kube.dra.kubelet.KubeletPluginServer;
import io.vnpu.kube.dra.kubelet.PluginSockets;
import io.vnpu.kube.dra.proto.v1.Claim;
import io.vnpu.kube.dra.proto.v1.DRAPluginGrpc;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesResponse;
import io.vnpu.kube.dra.state.ClaimPlanner;
import io.vnpu.kube.dra.state.ClaimSpecBuilder;
import io.vnpu.kube.dra.state.DeviceState;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * {@link DraPrepareBenchmark}'s call from several kubelet pod workers at once (run it with {@code
 * -t 1} and {@code -t 4}): one plugin, its checkpoint on disk, each thread preparing claims on its
 * own NPU ({@code npu-<thread>}, a whole NPU) one after the other, the one before unprepared
 * outside the measured call. The plugin hands its state lock on before the checkpoint's fsync, so
 * the prepares of the threads share fsyncs (group commit): with 4 threads the prepares per second
 * should grow well past the 1-thread figure, and each call's time stay near one fsync.
 */
@BenchmarkMode({Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class DraPrepareConcurrentBenchmark {
  static final String DRIVER = "npu.huawei.com";
  static final String NODE = "bench-node";
  static final int NPUS = 8;

  /** The plugin all threads call. */
  @State(Scope.Benchmark)
  public static class Plugin {
    Path dir;
    Path cdiDir;
    KubeletPluginServer server;
    DeviceState state;
    final AtomicInteger threads = new AtomicInteger();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      dir = Files.createTempDirectory("dra-bench-concurrent");
      cdiDir = Files.createTempDirectory(Path.of("/dev/shm"), "dra-bench-cdi");
      Path dev = Files.createDirectories(dir.resolve("dev"));
      List<Npu> npus = new ArrayList<>();
      for (int i = 0; i < NPUS; i++) {
        Files.writeString(dev.resolve("davinci" + i), "");
        npus.add(
            new Npu(
                String.format("00000000-00000000-00000000-00000000-%08d", i),
                i,
                i,
                i,
                0,
                "910B3",
                64L << 30,
                20,
                7,
                DeviceHealth.HEALTHY,
                0));
      }
      for (String n : List.of("davinci_manager", "devmm_svm", "hisi_hdc")) {
        Files.writeString(dev.resolve(n), "");
      }
      NpuInventory inventory = new NpuInventory();
      inventory.update(npus);
      CdiKind kind = CdiKind.of(DRIVER, "npu");
      PluginSockets sockets = PluginSockets.of(DRIVER, dir.resolve("reg"), dir.resolve("plugins"));
      Files.createDirectories(sockets.dataDir());
      state =
          DeviceState.builder()
              .store(
                  new CheckpointStore(
                      sockets.dataDir().resolve("checkpoint.json"), Clock.systemUTC()))
              .cdi(new CdiSpecWriter(cdiDir, kind))
              .specs(
                  new ClaimSpecBuilder(kind, new AscendHostLayout(new DeviceNodeProbe(dev), dir)))
              .planner(new ClaimPlanner(DRIVER, NODE, kind))
              .inventory(inventory)
              .poolName(NODE)
              .bootId("bench")
              .lockTimeout(Duration.ofSeconds(30))
              .open();
      server =
          new KubeletPluginServer(
              sockets, DRIVER, new NpuDriver(Plugin::claim, state), Duration.ofSeconds(1));
      server.start();
    }

    /** The claim {@code <thread>-<n>} on {@code npu-<thread>}. */
    static ResourceClaim claim(ClaimRef ref) throws io.vnpu.kube.dra.claims.ClaimFetchException {
      ResourceClaim c = DraPrepareBenchmark.claim(ref);
      String npu = "npu-" + ref.uid().substring(0, ref.uid().indexOf('-'));
      c.getStatus().getAllocation().getDevices().getResults().get(0).setDevice(npu);
      return c;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      server.close();
      state.close();
      for (Path root : List.of(dir, cdiDir)) {
        try (var s = Files.walk(root)) {
          List<Path> all = new ArrayList<>(s.toList());
          java.util.Collections.reverse(all);
          for (Path p : all) {
            Files.deleteIfExists(p);
          }
        }
      }
    }
  }

  /** One pod worker of the kubelet: its own connection and its own NPU. */
  @State(Scope.Thread)
  public static class Worker {
    int thread;
    int next;
    String current;
    UnixSocketTransport transport;
    ManagedChannel channel;
    DRAPluginGrpc.DRAPluginBlockingStub stub;
    DeviceState state;

    @Setup(Level.Trial)
    public void setUp(Plugin plugin) throws Exception {
      thread = plugin.threads.getAndIncrement();
      if (thread >= NPUS) {
        throw new IllegalStateException("at most " + NPUS + " threads, one NPU each");
      }
      state = plugin.state;
      transport = new UnixSocketTransport(1);
      channel =
          transport.channel(
              PluginSockets.of(DRIVER, plugin.dir.resolve("reg"), plugin.dir.resolve("plugins"))
                  .draSocket());
      stub = DRAPluginGrpc.newBlockingStub(channel);
    }

    @Setup(Level.Invocation)
    public void unpreparePrevious() throws Exception {
      if (current != null) {
        state.unprepare(new ClaimRef("bench", current, "c"));
      }
      current = String.format("%d-%08d-0000-4000-8000-000000000000", thread, next++);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      channel.shutdownNow();
      transport.close();
    }
  }

  @Benchmark
  public NodePrepareResourcesResponse nodePrepareResources(Worker w) {
    NodePrepareResourcesResponse r =
        w.stub
            .withDeadlineAfter(45, TimeUnit.SECONDS)
            .nodePrepareResources(
                NodePrepareResourcesRequest.newBuilder()
                    .addClaims(
                        Claim.newBuilder().setNamespace("bench").setName("c").setUid(w.current))
                    .build());
    if (!r.getClaimsOrThrow(w.current).getError().isEmpty()) {
      throw new IllegalStateException(r.getClaimsOrThrow(w.current).getError());
    }
    return r;
  }
}
