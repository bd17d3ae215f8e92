package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.vnpu.api.health.ActiveFault;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultOrigin;
import io.vnpu.api.health.HealthSource;
import io.vnpu.kube.dra.slices.NpuSliceDevices;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chip health becomes device taints on the published ResourceSlice: the plugin against the fabric8
 * mock API server in CRUD mode, with a health source the test changes by hand.
 */
@EnableKubernetesMockClient(crud = true)
class DraHealthTaintTest {

  KubernetesClient client;

  @TempDir Path tmp;

  DraPlugin plugin;

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.close();
    }
  }

  /** A health source whose chips the test sets; tells its watchers on every change. */
  static final class MutableHealth implements HealthSource {
    private final Map<Integer, ChipHealth> chips = new TreeMap<>();
    private final List<Consumer<Map<Integer, ChipHealth>>> watchers = new CopyOnWriteArrayList<>();

    synchronized void set(ChipHealth health) {
      chips.put(health.logicId(), health);
      Map<Integer, ChipHealth> snapshot = Map.copyOf(chips);
      watchers.forEach(w -> w.accept(snapshot));
    }

    @Override
    public synchronized Map<Integer, ChipHealth> chips() {
      return Map.copyOf(chips);
    }

    @Override
    public AutoCloseable watch(Consumer<Map<Integer, ChipHealth>> onChange) {
      watchers.add(onChange);
      return () -> watchers.remove(onChange);
    }

    @Override
    public Duration pollPeriod() {
      return Duration.ofSeconds(1);
    }
  }

  static ChipHealth faulty(int logicId, boolean healthy, FaultLevel level, long code) {
    return new ChipHealth(
        logicId,
        healthy,
        level,
        "test",
        true,
        FaultLevel.NORMAL_NPU,
        "",
        List.of(new ActiveFault(new FaultCode(code), level, Instant.EPOCH, FaultOrigin.EVENT)),
        List.of(),
        false);
  }

  Optional<Device> deviceOfLogicId(DraTestBed bed, int logicId) {
    List<ResourceSlice> slices = bed.slices();
    if (slices.size() != 1) {
      return Optional.empty();
    }
    return slices.get(0).getSpec().getDevices().stream()
        .filter(d -> d.getAttributes().get(NpuSliceDevices.LOGIC_ID).getInt() == logicId)
        .findFirst();
  }

  List<DeviceTaint> taintsOf(DraTestBed bed, int logicId) {
    return deviceOfLogicId(bed, logicId)
        .map(d -> d.getTaints() == null ? List.<DeviceTaint>of() : d.getTaints())
        .orElse(List.of());
  }

  @Test
  void aFaultTaintsTheDeviceWithoutRemovingItAndRecoveryUntaintsIt() throws Exception {
    DraTestBed bed = new DraTestBed(tmp, client);
    MutableHealth health = new MutableHealth();
    plugin = bed.plugin();
    plugin.watchHealth(health);
    plugin.start();
    DraTestBed.await(
        "ResourceSlice of 8 NPUs",
        () -> bed.slices().size() == 1 && bed.slices().get(0).getSpec().getDevices().size() == 8);
    assertThat(bed.slices().get(0).getSpec().getDevices())
        .allSatisfy(d -> assertThat(d.getTaints()).isNullOrEmpty());

    // RestartNPU makes the chip unusable: NoSchedule with the fault code
    health.set(faulty(2, false, FaultLevel.RESTART_NPU, 0x80E01801L));
    DraTestBed.await("taint on logic ID 2", () -> !taintsOf(bed, 2).isEmpty());
    assertThat(taintsOf(bed, 2))
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.getKey()).isEqualTo(DRIVER + "/unhealthy");
              assertThat(t.getValue()).isEqualTo("80E01801");
              assertThat(t.getEffect()).isEqualTo("NoSchedule");
            });
    assertThat(bed.slices().get(0).getSpec().getDevices()).hasSize(8);
    assertThat(taintsOf(bed, 1)).isEmpty();

    // SubHealthFault is informational: effect None
    health.set(faulty(5, true, FaultLevel.SUB_HEALTH_FAULT, 0x80CB8009L));
    DraTestBed.await("taint on logic ID 5", () -> !taintsOf(bed, 5).isEmpty());
    assertThat(taintsOf(bed, 5))
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.getKey()).isEqualTo(DRIVER + "/unhealthy");
              assertThat(t.getValue()).isEqualTo("80CB8009");
              assertThat(t.getEffect()).isEqualTo("None");
            });

    // recovery removes the taint; the other chip keeps its own
    health.set(ChipHealth.normal(2));
    DraTestBed.await(
        "logic ID 2 untainted",
        () -> deviceOfLogicId(bed, 2).isPresent() && taintsOf(bed, 2).isEmpty());
    assertThat(taintsOf(bed, 5)).hasSize(1);
    assertThat(bed.slices().get(0).getSpec().getDevices()).hasSize(8);
  }

  @Test
  void theHealthStreamSendsEveryDeviceInV1AndV1alpha1AndFollowsFaultsAndRecovery()
      throws Exception {
    DraTestBed bed = new DraTestBed(tmp, client);
    MutableHealth health = new MutableHealth();
    plugin = bed.plugin();
    plugin.watchHealth(health);
    plugin.start();
    DraTestBed.await("8 NPUs discovered", () -> plugin.inventory().devices().size() == 8);
    Path dra = plugin.sockets().draSocket();
    BlockingQueue<io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesResponse> v1 =
        new LinkedBlockingQueue<>();
    BlockingQueue<io.vnpu.kube.dra.proto.health.v1alpha1.NodeWatchResourcesResponse> alpha =
        new LinkedBlockingQueue<>();
    try (UnixSocketTransport transport = new UnixSocketTransport(1)) {
      ManagedChannel ch = transport.channel(dra);
      try {
        io.vnpu.kube.dra.proto.health.v1.DRAResourceHealthGrpc.newStub(ch)
            .nodeWatchResources(
                io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesRequest.getDefaultInstance(),
                collect(v1));
        io.vnpu.kube.dra.proto.health.v1alpha1.DRAResourceHealthGrpc.newStub(ch)
            .nodeWatchResources(
                io.vnpu.kube.dra.proto.health.v1alpha1.NodeWatchResourcesRequest
                    .getDefaultInstance(),
                collect(alpha));

        var first = v1.poll(20, TimeUnit.SECONDS);
        assertThat(first).isNotNull();
        assertThat(first.getDevicesList())
            .hasSize(8)
            .allSatisfy(
                d -> {
                  assertThat(d.getDevice().getPoolName()).isEqualTo(DraTestBed.NODE);
                  assertThat(d.getHealth())
                      .isEqualTo(io.vnpu.kube.dra.proto.health.v1.HealthStatus.HEALTHY);
                  assertThat(d.getHealthCheckTimeoutSeconds()).isEqualTo(30);
                  assertThat(d.getMessage()).isEmpty();
                });
        var firstAlpha = alpha.poll(20, TimeUnit.SECONDS);
        assertThat(firstAlpha).isNotNull();
        assertThat(firstAlpha.getDevicesList()).hasSize(8);

        String name =
            plugin.inventory().devices().entrySet().stream()
                .filter(e -> e.getValue().logicId() == 3)
                .findFirst()
                .orElseThrow()
                .getKey();
        health.set(
            new ChipHealth(
                3,
                false,
                FaultLevel.RESTART_NPU,
                "80E01801 RestartNPU (event)",
                true,
                FaultLevel.NORMAL_NPU,
                "",
                List.of(
                    new ActiveFault(
                        new FaultCode(0x80E01801L),
                        FaultLevel.RESTART_NPU,
                        Instant.EPOCH,
                        FaultOrigin.EVENT)),
                List.of(),
                false));
        var faulty =
            awaitMessage(
                v1,
                m ->
                    m.getDevicesList().stream()
                        .anyMatch(
                            d ->
                                d.getHealth()
                                    == io.vnpu.kube.dra.proto.health.v1.HealthStatus.UNHEALTHY));
        assertThat(faulty.getDevicesList()).hasSize(8);
        assertThat(faulty.getDevicesList())
            .filteredOn(
                d -> d.getHealth() == io.vnpu.kube.dra.proto.health.v1.HealthStatus.UNHEALTHY)
            .singleElement()
            .satisfies(
                d -> {
                  assertThat(d.getDevice().getDeviceName()).isEqualTo(name);
                  assertThat(d.getMessage()).isEqualTo("80E01801 RestartNPU (event)");
                });
        var faultyAlpha =
            awaitMessage(
                alpha,
                m ->
                    m.getDevicesList().stream()
                        .anyMatch(
                            d ->
                                d.getHealth()
                                    == io.vnpu.kube.dra.proto.health.v1alpha1.HealthStatus
                                        .UNHEALTHY));
        assertThat(faultyAlpha.getDevicesList()).hasSize(8);

        health.set(ChipHealth.normal(3));
        var recovered =
            awaitMessage(
                v1,
                m ->
                    m.getDevicesList().stream()
                        .allMatch(
                            d ->
                                d.getHealth()
                                    == io.vnpu.kube.dra.proto.health.v1.HealthStatus.HEALTHY));
        assertThat(recovered.getDevicesList()).hasSize(8);
      } finally {
        ch.shutdownNow();
        ch.awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  static <T> StreamObserver<T> collect(BlockingQueue<T> into) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        into.add(value);
      }

      @Override
      public void onError(Throwable t) {
        // the channel is shut down at the end of the test
      }

      @Override
      public void onCompleted() {}
    };
  }

  static <T> T awaitMessage(BlockingQueue<T> queue, java.util.function.Predicate<T> wanted)
      throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < end) {
      T m = queue.poll(100, TimeUnit.MILLISECONDS);
      if (m != null && wanted.test(m)) {
        return m;
      }
    }
    throw new AssertionError("timed out waiting for a health message");
  }
}
