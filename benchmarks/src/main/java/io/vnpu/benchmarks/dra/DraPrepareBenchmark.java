package io.vnpu.benchmarks.dra;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.grpc.ManagedChannel;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.NpuDriver;
import io.vnpu.kube.dra.cdi.AscendHostLayout;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.cdi.CdiSpecWriter;
import io.vnpu.kube.dra.cdi.DeviceNodeProbe;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.claims.ClaimFetchException;
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
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * NodePrepareResources of one whole-NPU claim as the kubelet sends it: a v1 gRPC call over the
 * plugin's unix socket, through the driver (claim lookup in memory, not the API server), the plan,
 * the claim's CDI spec written atomically into a tmpfs directory ({@code /dev/shm}, as {@code
 * /var/run/cdi} is on a node) and the checkpoint written once (fsync of the file; its directory
 * only when the rename creates the name). {@code checkpointOn}: {@code disk} (a temporary directory
 * on the root file system, as {@code /var/lib/kubelet/plugins}) or {@code tmpfs} (the same work
 * without the cost of the disk's fsync). Each invocation prepares a new claim; the one before is
 * unprepared outside the measured call. SampleTime gives p50/p99. {@code share}: {@code whole} (an
 * exclusive NPU) or {@code soft} (a 4 GiB / 25 % share of a soft-sliced NPU: plus the quota region
 * created in the plugin's data directory and registered in the NPU's compute registry, and the
 * limiter mounts in the CDI spec; still one checkpoint write; the limiter check is a no-op gate
 * here). Concurrent callers: {@link DraPrepareConcurrentBenchmark}.
 *
 * <p>{@link #checkpointWriteFloor}: the floor under a prepare, its one durable write alone (the
 * bytes of the checkpoint with one prepared claim of this {@code share}, written as the store
 * writes them: exclusive temporary file, fsync, rename over a name that exists) on the same file
 * system, in the same run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class DraPrepareBenchmark {
  static final String DRIVER = "npu.huawei.com";
  static final String NODE = "bench-node";

  @Param({"disk", "tmpfs"})
  public String checkpointOn;

  @Param({"whole", "soft"})
  public String share;

  io.vnpu.kube.softslice.SoftSlices softRegions;

  Path dir;
  Path cdiDir;
  KubeletPluginServer server;
  DeviceState state;
  UnixSocketTransport transport;
  ManagedChannel channel;
  DRAPluginGrpc.DRAPluginBlockingStub stub;
  NpuDriver driver;
  int next;
  String current;
  Path floorFile;
  byte[] floorBytes;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    dir =
        checkpointOn.equals("tmpfs")
            ? Files.createTempDirectory(Path.of("/dev/shm"), "dra-bench")
            : Files.createTempDirectory("dra-bench");
    cdiDir = Files.createTempDirectory(Path.of("/dev/shm"), "dra-bench-cdi");
    Path dev = Files.createDirectories(dir.resolve("dev"));
    for (String n : List.of("davinci0", "davinci_manager", "devmm_svm", "hisi_hdc")) {
      Files.writeString(dev.resolve(n), "");
    }
    NpuInventory inventory = new NpuInventory();
    inventory.update(
        List.of(
            new Npu(
                "00000000-00000000-00000000-00000000-00000000",
                0,
                0,
                0,
                0,
                "910B3",
                64L << 30,
                20,
                7,
                DeviceHealth.HEALTHY,
                0)));
    CdiKind kind = CdiKind.of(DRIVER, "npu");
    PluginSockets sockets = PluginSockets.of(DRIVER, dir.resolve("reg"), dir.resolve("plugins"));
    Files.createDirectories(sockets.dataDir());
    boolean soft = share.equals("soft");
    io.vnpu.kube.softslice.SoftSliceLayout layout =
        !soft
            ? null
            : io.vnpu.kube.softslice.SoftSliceLayout.vnpu(
                sockets.dataDir(), io.vnpu.kube.limiter.LimiterFiles.hami(dir.resolve("limiter")));
    if (soft) {
      softRegions =
          new io.vnpu.kube.softslice.SoftSlices(
              layout,
              io.vnpu.kube.resource.QuotaRegionFactory.writing(
                  new io.vnpu.quota.region.QuotaRegions()),
              () -> {});
    }
    DeviceState.Builder opening =
        DeviceState.builder()
            .store(
                new CheckpointStore(
                    sockets.dataDir().resolve("checkpoint.json"), Clock.systemUTC()))
            .cdi(new CdiSpecWriter(cdiDir, kind))
            .specs(
                new ClaimSpecBuilder(
                    kind, new AscendHostLayout(new DeviceNodeProbe(dev), dir), layout))
            .planner(
                new ClaimPlanner(
                    DRIVER,
                    NODE,
                    kind,
                    new io.vnpu.kube.dra.modes.ChipModes(
                        io.vnpu.kube.dra.vnpu.HardVnpuChips.OFF,
                        soft,
                        io.vnpu.kube.dra.modes.SoftCapacityNames.HAMI),
                    layout))
            .inventory(inventory)
            .poolName(NODE)
            .bootId("bench")
            .lockTimeout(Duration.ofSeconds(30))
            .vnpus(
                new io.vnpu.kube.dra.vnpu.VnpuDriver() {
                  @Override
                  public io.vnpu.api.model.Vnpu create(int logicId, String template) {
                    throw new IllegalStateException("no vNPUs here");
                  }

                  @Override
                  public void destroy(int logicId, int vnpuId) {
                    throw new IllegalStateException("no vNPUs here");
                  }

                  @Override
                  public List<io.vnpu.api.model.Vnpu> list(int logicId) {
                    return List.of();
                  }
                });
    if (softRegions != null) opening.softRegions(softRegions);
    state = opening.open();
    driver =
        new NpuDriver(soft ? DraPrepareBenchmark::softClaim : DraPrepareBenchmark::claim, state);
    server = new KubeletPluginServer(sockets, DRIVER, driver, Duration.ofSeconds(1));
    server.start();
    transport = new UnixSocketTransport(1);
    channel = transport.channel(sockets.draSocket());
    stub = DRAPluginGrpc.newBlockingStub(channel);
    // the checkpoint with one prepared claim, for the floor; unprepared before the first call
    current = String.format("%08d-0000-4000-8000-000000000000", next++);
    nodePrepareResources();
    Path checkpoint = sockets.dataDir().resolve(CheckpointStore.FILE_NAME);
    floorBytes = Files.readAllBytes(checkpoint);
    // a directory of its own on the same file system: the plugin watches its data directory
    floorFile = Files.createDirectories(dir.resolve("floor")).resolve(CheckpointStore.FILE_NAME);
    writeLikeTheStore();
  }

  private void writeLikeTheStore() throws java.io.IOException {
    io.vnpu.quota.files.HostFiles.writeAtomically(
        floorFile,
        floorBytes,
        io.vnpu.quota.files.HostFiles.OWNER_ONLY_FILE,
        io.vnpu.quota.files.HostFiles.DirectorySync.WHEN_CREATED);
  }

  static ResourceClaim claim(ClaimRef ref) throws ClaimFetchException {
    return claim(ref, new DeviceRequestAllocationResultBuilder());
  }

  /** The claim of one soft share of npu-0: 4 GiB and 25 % of its cores. */
  static ResourceClaim softClaim(ClaimRef ref) throws ClaimFetchException {
    return claim(
        ref,
        new DeviceRequestAllocationResultBuilder()
            .withShareID(ref.uid())
            .withConsumedCapacity(
                java.util.Map.of(
                    "memory", new io.fabric8.kubernetes.api.model.Quantity("4Gi"),
                    "cores", new io.fabric8.kubernetes.api.model.Quantity("25"))));
  }

  /**
   * The claim {@code ref} allocated request {@code npu} on npu-0 of this node, as {@code result}.
   */
  private static ResourceClaim claim(ClaimRef ref, DeviceRequestAllocationResultBuilder result) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withNamespace(ref.namespace())
        .withName(ref.name())
        .withUid(ref.uid())
        .endMetadata()
        .withNewStatus()
        .withNewAllocation()
        .withNewDevices()
        .withResults(
            result.withRequest("npu").withDriver(DRIVER).withPool(NODE).withDevice("npu-0").build())
        .endDevices()
        .endAllocation()
        .endStatus()
        .build();
  }

  @Setup(Level.Invocation)
  public void unpreparePrevious() throws Exception {
    if (current != null) {
      state.unprepare(new ClaimRef("bench", current, "c"));
    }
    current = String.format("%08d-0000-4000-8000-000000000000", next++);
  }

  @Benchmark
  public NodePrepareResourcesResponse nodePrepareResources() {
    NodePrepareResourcesResponse r =
        stub.withDeadlineAfter(45, TimeUnit.SECONDS)
            .nodePrepareResources(
                NodePrepareResourcesRequest.newBuilder()
                    .addClaims(
                        Claim.newBuilder().setNamespace("bench").setName("c").setUid(current))
                    .build());
    if (!r.getClaimsOrThrow(current).getError().isEmpty()) {
      throw new IllegalStateException(r.getClaimsOrThrow(current).getError());
    }
    return r;
  }

  /**
   * The kubelet's side of the call alone: an empty NodePrepareResources (the driver answers it at
   * once, as it answers the kubelet's liveness probe) over the same channel to the same server, so
   * the gRPC round trip (stub, HTTP/2 over the unix socket, the server's executor) without the
   * plugin's work.
   */
  @Benchmark
  public NodePrepareResourcesResponse grpcRoundTrip() {
    return stub.withDeadlineAfter(45, TimeUnit.SECONDS)
        .nodePrepareResources(NodePrepareResourcesRequest.getDefaultInstance());
  }

  /**
   * The plugin's own work alone: the same prepare as {@link #nodePrepareResources}, called on the
   * driver in this thread (claim lookup, plan, CDI spec, the checkpoint's durable write), without
   * gRPC.
   */
  @Benchmark
  public java.util.Map<String, io.vnpu.kube.dra.state.PrepareOutcome> prepareInProcess()
      throws io.grpc.StatusException {
    java.util.Map<String, io.vnpu.kube.dra.state.PrepareOutcome> r =
        driver.prepare(List.of(new ClaimRef("bench", current, "c")));
    if (!r.get(current).error().isEmpty()) {
      throw new IllegalStateException(r.get(current).error());
    }
    return r;
  }

  @Benchmark
  public byte[] checkpointWriteFloor() throws java.io.IOException {
    writeLikeTheStore();
    return floorBytes;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    channel.shutdownNow();
    transport.close();
    server.close();
    if (softRegions != null) {
      softRegions.close();
    }
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
