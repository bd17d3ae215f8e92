package io.vnpu.kube.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vnpu.api.slice.DeviceNode;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.CDIDevice;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.DevicePluginOptions;
import io.vnpu.kube.deviceplugin.v1beta1.DeviceSpec;
import io.vnpu.kube.deviceplugin.v1beta1.Empty;
import io.vnpu.kube.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vnpu.kube.deviceplugin.v1beta1.Mount;
import io.vnpu.kube.deviceplugin.v1beta1.NUMANode;
import io.vnpu.kube.deviceplugin.v1beta1.PreStartContainerRequest;
import io.vnpu.kube.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vnpu.kube.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.deviceplugin.v1beta1.TopologyInfo;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import io.vnpu.kube.testing.LoadScaledBudget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DevicePluginServerTest {

  private static final String RESOURCE = "huawei.com/Ascend910B3";

  /**
   * How long to wait for a registration or a ListAndWatch message: an event the test needs, not a
   * bound (those are asserted on their own); generous for two cores shared at load 20-30.
   */
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static final RestartPolicy FAST =
      new RestartPolicy(3, Duration.ofMinutes(10), Duration.ofMillis(20), Duration.ofMillis(80));

  @TempDir Path dir;
  private KubeletStandIn kubelet;
  private FakeResourceManager manager;
  private final List<DevicePluginServer> servers = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    kubelet = KubeletStandIn.start(dir);
    manager =
        new FakeResourceManager(
            RESOURCE,
            List.of(
                new PluginDevice("UUID0-0", true, List.of()),
                new PluginDevice("UUID0-1", true, List.of(0))));
  }

  @AfterEach
  void tearDown() throws Exception {
    servers.forEach(DevicePluginServer::stop);
    kubelet.close();
  }

  private DevicePluginServer server(RestartPolicy policy) {
    DevicePluginServer s = DevicePluginServer.builder(manager, dir).restartPolicy(policy).build();
    servers.add(s);
    return s;
  }

  /**
   * A server that reached REGISTERED. On a loaded host the first Register may exceed its deadline
   * and go through one FAST backoff before it succeeds, so this waits for the state instead of
   * asserting the first attempt's result (the tests that are about the first attempt call start()).
   */
  private DevicePluginServer started() throws Exception {
    DevicePluginServer s = server(FAST);
    s.start();
    awaitState(s, PluginState.REGISTERED);
    return s;
  }

  /**
   * The state is set when the Register reply arrives, just after the stand-in recorded the call.
   */
  private static void awaitState(DevicePluginServer s, PluginState expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (s.state() != expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(s.state()).isEqualTo(expected);
  }

  private static Device dev(String id, String health, int... numa) {
    Device.Builder b = Device.newBuilder().setID(id).setHealth(health);
    if (numa.length > 0) {
      TopologyInfo.Builder t = TopologyInfo.newBuilder();
      for (int n : numa) {
        t.addNodes(NUMANode.newBuilder().setID(n));
      }
      b.setTopology(t);
    }
    return b.build();
  }

  @Test
  void registersWithTheKubeletWithVersionEndpointResourceAndOptions() throws Exception {
    DevicePluginServer s = started();

    RegisterRequest r = kubelet.awaitRegistration(WAIT);
    assertThat(r)
        .isEqualTo(
            RegisterRequest.newBuilder()
                .setVersion("v1beta1")
                .setEndpoint("Ascend910B3.sock")
                .setResourceName("huawei.com/Ascend910B3")
                .setOptions(
                    DevicePluginOptions.newBuilder()
                        .setPreStartRequired(false)
                        .setGetPreferredAllocationAvailable(true))
                .build());
    assertThat(s.socketPath()).isEqualTo(dir.resolve("Ascend910B3.sock"));
    assertThat(Files.exists(s.socketPath())).isTrue();
    assertThat(kubelet.registrations()).hasSize(1);
  }

  @Test
  void optionsCarryPreStartRequiredFromTheManager() throws Exception {
    manager.setPreStartRequired(true);
    started();
    RegisterRequest r = kubelet.awaitRegistration(WAIT);
    assertThat(r.getOptions().getPreStartRequired()).isTrue();

    DevicePluginOptions o =
        kubelet.connect(r).blocking().getDevicePluginOptions(Empty.getDefaultInstance());
    assertThat(o)
        .isEqualTo(
            DevicePluginOptions.newBuilder()
                .setPreStartRequired(true)
                .setGetPreferredAllocationAvailable(true)
                .build());

    kubelet
        .connect(r)
        .preStart()
        .preStartContainer(PreStartContainerRequest.newBuilder().addDevicesIds("UUID0-1").build());
    assertThat(manager.preStartCalls()).containsExactly(List.of("UUID0-1"));
  }

  @Test
  void listAndWatchSendsTheFullListFirstThenTheFullListOnEveryChange() throws Exception {
    started();
    PluginClient client = kubelet.connect(kubelet.awaitRegistration(WAIT));
    PluginClient.ListAndWatchRecorder a = client.listAndWatch();
    PluginClient.ListAndWatchRecorder b = client.listAndWatch();

    ListAndWatchResponse first =
        ListAndWatchResponse.newBuilder()
            .addDevices(dev("UUID0-0", "Healthy"))
            .addDevices(dev("UUID0-1", "Healthy", 0))
            .build();
    assertThat(a.next(WAIT)).isEqualTo(first);
    assertThat(b.next(WAIT)).isEqualTo(first);

    manager.setDevices(
        List.of(
            new PluginDevice("UUID0-0", true, List.of()),
            new PluginDevice("UUID0-1", false, List.of(0)),
            new PluginDevice("UUID1-0", true, List.of(1, 0))));
    ListAndWatchResponse second =
        ListAndWatchResponse.newBuilder()
            .addDevices(dev("UUID0-0", "Healthy"))
            .addDevices(dev("UUID0-1", "Unhealthy", 0))
            .addDevices(dev("UUID1-0", "Healthy", 1, 0))
            .build();
    assertThat(a.next(WAIT)).isEqualTo(second);
    assertThat(b.next(WAIT)).isEqualTo(second);

    // A cancelled stream is dropped; the other one keeps receiving.
    a.close();
    assertThat(a.awaitEnd(WAIT)).isTrue();
    manager.setDevices(List.of(new PluginDevice("UUID0-0", true, List.of())));
    assertThat(b.next(WAIT))
        .isEqualTo(ListAndWatchResponse.newBuilder().addDevices(dev("UUID0-0", "Healthy")).build());
    assertThat(b.buffered()).isZero();
  }

  @Test
  void allocateServesEveryContainerRequestInOrder() throws Exception {
    started();
    manager.answer(
        List.of("UUID0-0"),
        new ContainerAllocation(
            Map.of("ASCEND_VISIBLE_DEVICES", "0", "ASCEND_VNPU_SPECS", "vir05_1c_16g"),
            List.of(
                new io.vnpu.api.slice.Mount(
                    "/etc/ld.so.preload", "/usr/local/vnpu/ld.so.preload", true)),
            List.of(new DeviceNode("/dev/davinci0", "/dev/davinci0", "rwm")),
            Map.of("vnpu.io/slice", "a"),
            List.of("huawei.com/npu=0")));
    manager.answer(
        List.of("UUID0-1", "UUID1-0"),
        new ContainerAllocation(
            Map.of("ASCEND_VISIBLE_DEVICES", "0,1"), List.of(), List.of(), Map.of(), List.of()));
    PluginClient client = kubelet.connect(kubelet.awaitRegistration(WAIT));

    AllocateResponse r =
        client.allocate(List.of(List.of("UUID0-0"), List.of("UUID0-1", "UUID1-0")));

    assertThat(manager.allocateCalls())
        .containsExactly(List.of("UUID0-0"), List.of("UUID0-1", "UUID1-0"));
    assertThat(r.getContainerResponsesList())
        .containsExactly(
            ContainerAllocateResponse.newBuilder()
                .putEnvs("ASCEND_VISIBLE_DEVICES", "0")
                .putEnvs("ASCEND_VNPU_SPECS", "vir05_1c_16g")
                .addMounts(
                    Mount.newBuilder()
                        .setContainerPath("/etc/ld.so.preload")
                        .setHostPath("/usr/local/vnpu/ld.so.preload")
                        .setReadOnly(true))
                .addDevices(
                    DeviceSpec.newBuilder()
                        .setContainerPath("/dev/davinci0")
                        .setHostPath("/dev/davinci0")
                        .setPermissions("rwm"))
                .putAnnotations("vnpu.io/slice", "a")
                .addCdiDevices(CDIDevice.newBuilder().setName("huawei.com/npu=0"))
                .build(),
            ContainerAllocateResponse.newBuilder()
                .putEnvs("ASCEND_VISIBLE_DEVICES", "0,1")
                .build());
  }

  @Test
  void allocateMapsRefusalsToInvalidArgumentAndBugsToInternal() throws Exception {
    started();
    manager.answer(
        List.of("UUID0-0"),
        new ContainerAllocation(Map.of("A", "1"), List.of(), List.of(), Map.of(), List.of()));
    manager.refuse(
        List.of("UUID0-1"),
        "pod default/job-1: annotation hami.io/Ascend910B3-devices-to-allocate is empty");
    PluginClient client = kubelet.connect(kubelet.awaitRegistration(WAIT));

    assertThatThrownBy(() -> client.allocate(List.of(List.of("UUID0-0"), List.of("UUID0-1"))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo(
                      "Allocate container request 2 of 2 (device IDs [UUID0-1]): pod default/job-1: "
                          + "annotation hami.io/Ascend910B3-devices-to-allocate is empty");
            });
    assertThat(manager.allocateCalls()).containsExactly(List.of("UUID0-0"), List.of("UUID0-1"));

    manager.crashOn(ids -> new IllegalStateException("quota region full"));
    assertThatThrownBy(() -> client.allocate(List.of(List.of("UUID0-0"))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo(
                      "Allocate container request 1 of 1 (device IDs [UUID0-0]) failed: "
                          + "java.lang.IllegalStateException: quota region full");
            });
  }

  @Test
  void getPreferredAllocationAsksTheManagerAndChecksItsAnswer() throws Exception {
    started();
    PluginClient client = kubelet.connect(kubelet.awaitRegistration(WAIT));
    manager.setPreference((available, must, size) -> List.of("b-0", "c-0"));
    PreferredAllocationRequest req =
        PreferredAllocationRequest.newBuilder()
            .addContainerRequests(
                ContainerPreferredAllocationRequest.newBuilder()
                    .addAllAvailableDeviceIDs(List.of("a-0", "a-1", "b-0", "c-0"))
                    .addMustIncludeDeviceIDs("b-0")
                    .setAllocationSize(2))
            .build();

    PreferredAllocationResponse r = client.blocking().getPreferredAllocation(req);
    assertThat(r.getContainerResponsesCount()).isEqualTo(1);
    assertThat(r.getContainerResponses(0).getDeviceIDsList()).containsExactly("b-0", "c-0");

    manager.setPreference((available, must, size) -> List.of("a-0", "c-0"));
    assertThatThrownBy(() -> client.blocking().getPreferredAllocation(req))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
              assertThat(e.getStatus().getDescription())
                  .endsWith("resource manager answered [a-0, c-0], which misses a must_include ID");
            });

    PreferredAllocationRequest tooBig =
        PreferredAllocationRequest.newBuilder()
            .addContainerRequests(
                ContainerPreferredAllocationRequest.newBuilder()
                    .addAvailableDeviceIDs("a-0")
                    .setAllocationSize(2))
            .build();
    assertThatThrownBy(() -> client.blocking().getPreferredAllocation(tooBig))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo(
                      "GetPreferredAllocation container request 1 of 1 (allocation_size 2, available [a-0],"
                          + " must_include []): allocation_size must be between 0 and the 1 available"
                          + " device IDs");
            });
  }

  @Test
  void kubeletRestartLeadsToReServeAndReRegisterWithinTwoSeconds() throws Exception {
    DevicePluginServer s = started();
    RegisterRequest first = kubelet.awaitRegistration(WAIT);
    PluginClient.ListAndWatchRecorder oldStream = kubelet.connect(first).listAndWatch();
    oldStream.next(WAIT);

    LoadScaledBudget budget = LoadScaledBudget.of(Duration.ofSeconds(2));
    long t0 = System.nanoTime();
    kubelet.restart();
    RegisterRequest again = kubelet.awaitRegistration(WAIT);
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

    assertThat(again).isEqualTo(first);
    // two seconds on a quiet machine; scaled by the load where the cores are shared
    assertThat(ms)
        .as("ms to register again (budget %s)", budget)
        .isLessThan(budget.now().toMillis());
    assertThat(Files.exists(s.socketPath())).isTrue();
    assertThat(oldStream.awaitEnd(WAIT)).isTrue();
    // The new kubelet connection is served by the new gRPC server.
    assertThat(kubelet.connect(again).listAndWatch().next(WAIT).getDevicesCount()).isEqualTo(2);
    awaitState(s, PluginState.REGISTERED);
    // Only the old service's and the new service's watch ever existed; the old one is closed.
    assertThat(manager.watcherCount()).isEqualTo(1);
  }

  @Test
  void kubeletRestartIsDetectedByThePeriodicCheckAloneToo() throws Exception {
    DevicePluginServer s =
        DevicePluginServer.builder(manager, dir)
            .restartPolicy(FAST)
            .watchDirectory(false)
            .checkInterval(Duration.ofMillis(300))
            .build();
    servers.add(s);
    s.start();
    kubelet.awaitRegistration(WAIT);
    for (int i = 0; i < 3; i++) {
      kubelet.restart();
      kubelet.awaitRegistration(WAIT);
    }
    assertThat(kubelet.registrations()).hasSize(4);
  }

  /**
   * The kubelet stand-in breaks its only ListAndWatch stream (no kubelet restart); waits until the
   * server saw it.
   */
  private static void breakStream(DevicePluginServer s, PluginClient.ListAndWatchRecorder law)
      throws Exception {
    law.close();
    assertThat(law.awaitEnd(WAIT)).isTrue();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (s.openListAndWatchStreams() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(s.openListAndWatchStreams()).isZero();
  }

  /**
   * Registrations so far once none is pending (on a loaded host a first Register may time out at
   * the plugin, be retried and so be recorded twice); later counts are relative to it.
   */
  private int settledRegistrations() throws InterruptedException {
    while (kubelet.pendingRegistrations() > 0) {
      kubelet.awaitRegistration(WAIT);
    }
    return kubelet.registrations().size();
  }

  private void changeDevices(int round) {
    manager.setDevices(List.of(new PluginDevice("UUID0-0", round % 2 == 0, List.of())));
  }

  @Test
  void fiveFailedListAndWatchSendsInARowLeadToRegisteringAgain() throws Exception {
    DevicePluginServer s =
        DevicePluginServer.builder(manager, dir)
            .restartPolicy(FAST)
            .listAndWatchFailures(5, 15, Duration.ofHours(1))
            .build();
    servers.add(s);
    s.start();
    awaitState(s, PluginState.REGISTERED);
    RegisterRequest first = kubelet.awaitRegistration(WAIT);
    PluginClient.ListAndWatchRecorder law = kubelet.connect(first).listAndWatch();
    law.next(WAIT);
    breakStream(s, law);

    int base = settledRegistrations();
    for (int i = 1; i <= 4; i++) changeDevices(i);
    RegisterRequest again;
    changeDevices(5);
    again = kubelet.awaitRegistration(WAIT);
    assertThat(again).isEqualTo(first);
    awaitState(s, PluginState.REGISTERED);
    // exactly one Register more: sends 1..4 did not trigger one
    assertThat(kubelet.registrations()).hasSize(base + 1);
    assertThat(s.reRegistrations()).isEqualTo(1);

    // the kubelet watches again (same gRPC server, same socket): the count starts over
    PluginClient.ListAndWatchRecorder back = kubelet.connect(again).listAndWatch();
    assertThat(back.next(WAIT).getDevicesList())
        .extracting(Device::getID)
        .containsExactly("UUID0-0");
    for (int i = 6; i <= 12; i++) {
      changeDevices(i);
      assertThat(back.next(WAIT).getDevices(0).getHealth())
          .isEqualTo(i % 2 == 0 ? "Healthy" : "Unhealthy");
    }
    assertThat(kubelet.registrations()).hasSize(base + 1);
    assertThat(s.state()).isEqualTo(PluginState.REGISTERED);
  }

  @Test
  void fifteenFailedSendsRestartTheServerUnderTheBudget() throws Exception {
    List<PluginState> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    DevicePluginServer s =
        DevicePluginServer.builder(manager, dir)
            .restartPolicy(FAST)
            .listAndWatchFailures(5, 15, Duration.ofHours(1))
            .build();
    s.addStateListener(seen::add);
    servers.add(s);
    s.start();
    awaitState(s, PluginState.REGISTERED);
    RegisterRequest first = kubelet.awaitRegistration(WAIT);
    PluginClient.ListAndWatchRecorder law = kubelet.connect(first).listAndWatch();
    law.next(WAIT);
    breakStream(s, law);
    int base = settledRegistrations();

    for (int i = 1; i <= 15; i++) {
      changeDevices(i);
      if (i % 5 == 0)
        kubelet.awaitRegistration(WAIT); // after 5 and 10: Register again; after 15: a fresh server
    }
    awaitState(s, PluginState.REGISTERED);
    assertThat(s.reRegistrations()).isEqualTo(2);
    assertThat(seen)
        .containsSubsequence(PluginState.REGISTERED, PluginState.BACKOFF, PluginState.REGISTERED);
    assertThat(kubelet.registrations()).hasSize(base + 3);
    // the restarted server serves a new stream
    assertThat(kubelet.connect(first).listAndWatch().next(WAIT).getDevicesCount()).isEqualTo(1);
  }

  @Test
  void aFailedSendIsRetriedWithoutADeviceChange() throws Exception {
    DevicePluginServer s =
        DevicePluginServer.builder(manager, dir)
            .restartPolicy(FAST)
            .checkInterval(Duration.ofMillis(50))
            .listAndWatchFailures(3, 15, Duration.ofMillis(100))
            .build();
    servers.add(s);
    s.start();
    awaitState(s, PluginState.REGISTERED);
    RegisterRequest first = kubelet.awaitRegistration(WAIT);
    PluginClient.ListAndWatchRecorder law = kubelet.connect(first).listAndWatch();
    law.next(WAIT);
    breakStream(s, law);

    int base = settledRegistrations();
    changeDevices(1); // one failed send; the periodic resends make the 2nd and 3rd
    assertThat(kubelet.awaitRegistration(WAIT)).isEqualTo(first);
    // the resends go on (every 100 ms here), so a second round may already have begun
    assertThat(s.reRegistrations()).isGreaterThanOrEqualTo(1);
    assertThat(kubelet.registrations().size()).isGreaterThan(base);
  }

  @Test
  void theFullListIsSentAgainAfterTheRefreshPeriodWithoutAChange() throws Exception {
    DevicePluginServer s =
        DevicePluginServer.builder(manager, dir)
            .restartPolicy(FAST)
            .checkInterval(Duration.ofMillis(50))
            .listAndWatchRefresh(Duration.ofMillis(200))
            .build();
    servers.add(s);
    s.start();
    RegisterRequest r = kubelet.awaitRegistration(WAIT);
    PluginClient.ListAndWatchRecorder law = kubelet.connect(r).listAndWatch();
    ListAndWatchResponse first = law.next(WAIT);
    assertThat(law.next(WAIT)).isEqualTo(first);
    assertThat(law.next(WAIT)).isEqualTo(first);
    assertThat(s.reRegistrations()).isZero();
    assertThatThrownBy(
            () ->
                DevicePluginServer.builder(manager, dir)
                    .listAndWatchRefresh(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("listAndWatchRefresh must be positive, got PT-1S");
  }

  @Test
  void listAndWatchFailureCountsAreChecked() {
    assertThatThrownBy(
            () ->
                DevicePluginServer.builder(manager, dir)
                    .listAndWatchFailures(0, 15, Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("need 1 <= reRegisterAfter <= restartAfter, got 0 and 15");
    assertThatThrownBy(
            () ->
                DevicePluginServer.builder(manager, dir)
                    .listAndWatchFailures(6, 5, Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                DevicePluginServer.builder(manager, dir).listAndWatchFailures(5, 15, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("resendAfter must be positive, got PT0S");
  }

  @Test
  void waitsForAKubeletThatIsNotThereYet() throws Exception {
    kubelet.stopKubelet();
    DevicePluginServer s = server(FAST);
    assertThat(s.start()).isEqualTo(PluginState.WAITING_FOR_KUBELET);
    assertThat(Files.exists(s.socketPath())).isTrue();
    assertThat(kubelet.registrations()).isEmpty();

    kubelet.restart();
    RegisterRequest r = kubelet.awaitRegistration(WAIT);
    assertThat(r.getEndpoint()).isEqualTo("Ascend910B3.sock");
    awaitState(s, PluginState.REGISTERED);
  }

  @Test
  void cleanShutdownEndsStreamsAndRemovesTheSocket() throws Exception {
    DevicePluginServer s = started();
    List<PluginState> seen = new CopyOnWriteArrayList<>();
    s.addStateListener(seen::add);
    PluginClient client = kubelet.connect(kubelet.awaitRegistration(WAIT));
    PluginClient.ListAndWatchRecorder w1 = client.listAndWatch();
    PluginClient.ListAndWatchRecorder w2 = client.listAndWatch();
    w1.next(WAIT);
    w2.next(WAIT);

    s.stop();

    assertThat(s.state()).isEqualTo(PluginState.STOPPED);
    assertThat(Files.exists(s.socketPath())).isFalse();
    assertThat(w1.awaitEnd(WAIT)).isTrue();
    assertThat(w2.awaitEnd(WAIT)).isTrue();
    assertThat(w1.error()).isEmpty();
    assertThat(w2.error()).isEmpty();
    assertThat(manager.watcherCount()).isZero();
    assertThat(s.termination().get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(PluginState.STOPPED);
    assertThat(seen).containsExactly(PluginState.STOPPED);
    s.stop(); // idempotent
    assertThat(s.state()).isEqualTo(PluginState.STOPPED);
  }

  @Test
  void staleSocketFileIsReplaced() throws Exception {
    Files.writeString(dir.resolve("Ascend910B3.sock"), "left over by a crashed run");
    started();
    assertThat(
            kubelet
                .connect(kubelet.awaitRegistration(WAIT))
                .listAndWatch()
                .next(WAIT)
                .getDevicesCount())
        .isEqualTo(2);
  }

  @Test
  void failedRegistrationsAreRetriedWithinTheBudget() throws Exception {
    kubelet.failNextRegistrations(2, Status.UNAVAILABLE.withDescription("kubelet busy"));
    DevicePluginServer s = server(FAST);
    assertThat(s.start()).isEqualTo(PluginState.BACKOFF);

    kubelet.awaitRegistration(WAIT);
    assertThat(kubelet.registrations()).hasSize(3);
    awaitState(s, PluginState.REGISTERED);
  }

  @Test
  void givesUpAfterTheRestartBudgetIsSpent() throws Exception {
    kubelet.rejectAllRegistrations(Status.PERMISSION_DENIED.withDescription("no such resource"));
    DevicePluginServer s = server(FAST);
    s.start();

    assertThat(s.termination().get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(PluginState.FAILED);
    assertThat(s.state()).isEqualTo(PluginState.FAILED);
    // The first attempt plus maxRestarts (3) retries, then no more.
    assertThat(kubelet.registrations()).hasSize(4);
    assertThat(s.failure())
        .hasValueSatisfying(
            f ->
                assertThat(f.getMessage())
                    .isEqualTo(
                        "device plugin Ascend910B3.sock gave up after 3 restarts within PT10M; last failure: "
                            + "Register of huawei.com/Ascend910B3 with the kubelet at "
                            + dir.resolve("kubelet.sock")
                            + " failed: Status{code=PERMISSION_DENIED, description=no such resource, cause=null}"));
    assertThat(Files.exists(s.socketPath())).isFalse();
    Thread.sleep(300);
    assertThat(kubelet.registrations()).hasSize(4);
  }

  @Test
  void bindFailureCountsAsAFailure() throws Exception {
    Path notADir = dir.resolve("plugins-file");
    Files.writeString(notADir, "x");
    DevicePluginServer s =
        DevicePluginServer.builder(manager, notADir)
            .restartPolicy(
                new RestartPolicy(
                    1, Duration.ofMinutes(1), Duration.ofMillis(10), Duration.ofMillis(10)))
            .build();
    servers.add(s);
    s.start();
    assertThat(s.termination().get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(PluginState.FAILED);
    assertThat(s.failure().orElseThrow().getMessage())
        .startsWith(
            "device plugin Ascend910B3.sock gave up after 1 restarts within PT1M; "
                + "last failure: serving on "
                + notADir.resolve("Ascend910B3.sock")
                + " failed: ");
  }

  @Test
  void aStateListenerMayStopTheServer() throws Exception {
    kubelet.rejectAllRegistrations(Status.UNAVAILABLE);
    DevicePluginServer s = server(FAST);
    s.addStateListener(
        state -> {
          if (state == PluginState.BACKOFF) {
            s.stop();
          }
        });
    s.start();
    assertThat(s.termination().get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(PluginState.STOPPED);
    assertThat(kubelet.registrations()).hasSize(1);
    assertThat(Files.exists(s.socketPath())).isFalse();
  }

  @Test
  void startTwiceIsRefused() throws Exception {
    DevicePluginServer s = started();
    assertThatThrownBy(s::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("device plugin Ascend910B3.sock already started");
  }

  @Test
  void socketNameMustBeAPlainFileName() {
    assertThatThrownBy(
            () -> DevicePluginServer.builder(manager, dir).socketName("kubelet.sock").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "socket name must be a plain file name other than kubelet.sock, got 'kubelet.sock'");
    assertThat(DevicePluginServer.defaultSocketName("huawei.com/Ascend310P"))
        .isEqualTo("Ascend310P.sock");
  }
}
