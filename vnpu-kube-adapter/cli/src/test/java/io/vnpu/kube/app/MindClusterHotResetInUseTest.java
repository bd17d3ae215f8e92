package io.vnpu.kube.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.FaultTracker;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.fault.HotResetter;
import io.vnpu.api.fault.HotResetter.Outcome;
import io.vnpu.api.fault.HotResetter.Result;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.fault.DcmiChipResetter;
import io.vnpu.dcmi.fault.DcmiFaultProbe;
import io.vnpu.dcmi.sim.BundledSimulator;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import io.vnpu.kube.mindcluster.MindClusterComponents;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.podresources.PodResourcesClient;
import io.vnpu.kube.podresources.v1.ContainerDevices;
import io.vnpu.kube.podresources.v1.ContainerResources;
import io.vnpu.kube.podresources.v1.ListPodResourcesRequest;
import io.vnpu.kube.podresources.v1.ListPodResourcesResponse;
import io.vnpu.kube.podresources.v1.PodResources;
import io.vnpu.kube.podresources.v1.PodResourcesListerGrpc;
import io.vnpu.kube.resource.ContainerAllocation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #25, {@code -hotReset=0}: the in-use check the agent wires ({@link
 * MindClusterNodeBackend#chipUsage}) against the kubelet's PodResources (a stand-in on a unix
 * socket), the simulated driver and the real hot resetter. It read the last {@code -} field of each
 * kubelet device ID as the phy ID and never applied the kubelet-ID → real-chip map, so it reset the
 * chip a running pod held: in 310P share mode ({@code Ascend310P-1-0} is copy 0 of phy 1) and in
 * Volcano mode (kubelet {@code Ascend910-2} holding real chip 0).
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterHotResetInUseTest {
  KubernetesClient client;

  @TempDir Path dir;

  private final AtomicReference<ListPodResourcesResponse> kubeletView =
      new AtomicReference<>(ListPodResourcesResponse.getDefaultInstance());
  private final List<AutoCloseable> open = new ArrayList<>();
  private BundledSimulator sim;
  private DcmiDeviceManager driver;
  private HealthMonitor health;
  private PodResourcesClient podResources;

  @AfterEach
  void tearDown() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) open.get(i).close();
  }

  private MindClusterComponents start(String profile, MindClusterOptions options)
      throws IOException {
    sim = new BundledSimulator(Path.of(System.getProperty("vnpu.native.dir")));
    sim.configure(profile, dir.resolve("sim"));
    Path lib = sim.library().orElseThrow();
    driver = DcmiDeviceManager.open(new DcmiLibrarySource(lib, "test", List.of(lib)));
    open.add(driver);
    health =
        new HealthMonitor(
            new DcmiFaultProbe(driver.dcmi(), Clock.systemUTC()),
            new FaultTracker(FaultConfigs.shippedDefault(), Clock.systemUTC()),
            ManualSeparationStore.inMemory(),
            ChipUsage.NONE,
            FaultNotifier.NONE,
            Duration.ofSeconds(5));
    open.add(health);
    health.pollOnce();
    MindClusterComponents c =
        new MindClusterComponents(
            options,
            client,
            () -> client.pods().inAnyNamespace().list().getItems(),
            driver,
            health,
            Clock.systemUTC());
    c.start(null);
    open.add(c);
    Path socket = dir.resolve("pod-resources.sock");
    if (podResources == null) {
      UnixSocketTransport t = new UnixSocketTransport(1);
      BindableService kubelet =
          new PodResourcesListerGrpc.PodResourcesListerImplBase() {
            @Override
            public void list(
                ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> out) {
              out.onNext(kubeletView.get());
              out.onCompleted();
            }
          };
      Server server = t.startServer(socket, List.of(kubelet));
      open.add(t);
      open.add(() -> server.shutdownNow().awaitTermination());
      podResources = new PodResourcesClient(socket, Duration.ofSeconds(10));
      open.add(podResources);
    }
    return c;
  }

  private String ctl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(sim.ctl().toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put(BundledSimulator.PROFILE_ENV, sim.profile());
    pb.environment().put(BundledSimulator.ROOT_ENV, sim.root().toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("vnpu-sim-ctl %s: %s", cmd, out).isZero();
    return out;
  }

  /** The kubelet's PodResources: pod {@code name} holds {@code deviceIds} of {@code resource}. */
  private void kubeletHolds(String name, String resource, String... deviceIds) {
    kubeletView.set(
        ListPodResourcesResponse.newBuilder()
            .addPodResources(
                PodResources.newBuilder()
                    .setName(name)
                    .setNamespace("default")
                    .addContainers(
                        ContainerResources.newBuilder()
                            .setName("main")
                            .addDevices(
                                ContainerDevices.newBuilder()
                                    .setResourceName(resource)
                                    .addAllDeviceIds(List.of(deviceIds)))))
            .build());
  }

  private HotResetter resetter(MindClusterComponents c) {
    return new HotResetter(
        health,
        new DcmiChipResetter(driver.dcmi(), new DcmiFaultProbe(driver.dcmi(), Clock.systemUTC())),
        MindClusterNodeBackend.chipUsage(podResources, c),
        Clock.systemUTC(),
        d -> Thread.sleep(d.toMillis()),
        Duration.ofSeconds(10),
        Duration.ofMillis(20),
        2);
  }

  private int logicOfPhy(MindClusterComponents c, int phy) {
    return c.inventory().current().byPhyId(phy).orElseThrow().npu().logicId();
  }

  @Test
  void aShareCopyInUseKeepsItsChipFromBeingReset() throws Exception {
    MindClusterComponents c =
        start(
            "310P3x4",
            MindClusterOptions.defaults("node-1")
                .withShare(3, java.util.Optional.empty())
                .withRuntime(true, dir.resolve("host"))
                .withHotReset(0));
    ctl("boot-ms", "100");
    kubeletHolds("infer", "huawei.com/Ascend310P", "Ascend310P-1-0");
    int phy1 = logicOfPhy(c, 1);
    int phy0 = logicOfPhy(c, 0);
    ctl("fault", Integer.toString(phy1), "0x40F84E00");
    ctl("fault", Integer.toString(phy0), "0x40F84E00");
    health.pollOnce();
    List<Outcome> outcomes = resetter(c).runOnce();
    assertThat(outcomes)
        .contains(
            new Outcome(
                Set.of(phy1), Result.BUSY, "NPU logic " + phy1 + " is allocated to a container"));
    // copy 0 of phy 1 is not phy 0: the idle chip is reset
    assertThat(outcomes).contains(new Outcome(Set.of(phy0), Result.RESET, "booted"));
  }

  @Test
  void theRealChipVolcanoGaveIsInUseNotTheKubeletsId() throws Exception {
    MindClusterComponents c =
        start(
            "910B3x8",
            MindClusterOptions.defaults("node-1")
                .withVolcano(true, true)
                .withRuntime(true, dir.resolve("host"))
                .withHotReset(0));
    client.pods().inNamespace("default").resource(volcanoPod("train", "Ascend910-0")).create();
    ContainerAllocation a =
        c.resourceManager("huawei.com/Ascend910").orElseThrow().allocate(List.of("Ascend910-2"));
    assertThat(a.envs()).containsEntry("ASCEND_VISIBLE_DEVICES", "0");
    kubeletHolds("train", "huawei.com/Ascend910", "Ascend910-2");
    ChipUsage usage = MindClusterNodeBackend.chipUsage(podResources, c);
    assertThat(usage.inUse(logicOfPhy(c, 0))).isTrue();
    assertThat(usage.inUse(logicOfPhy(c, 2))).isFalse();
    assertThat(usage.inUse(logicOfPhy(c, 5))).isFalse();

    // after a restart of the agent (the map is rebuilt from the pod's annotations)
    c.close();
    MindClusterComponents again =
        new MindClusterComponents(
            c.options(),
            client,
            () -> client.pods().inAnyNamespace().list().getItems(),
            driver,
            health,
            Clock.systemUTC());
    again.start(null);
    open.add(again);
    assertThat(again.kubeletMap().realOf("Ascend910-2")).hasValue("Ascend910-0");
    ChipUsage after = MindClusterNodeBackend.chipUsage(podResources, again);
    assertThat(after.inUse(logicOfPhy(again, 0))).isTrue();
    assertThat(after.inUse(logicOfPhy(again, 2))).isFalse();
    // the 910B ring of 8 resets as one: chip 0 in use holds back the reset a fault on chip 3 needs
    ctl("boot-ms", "100");
    ctl("fault", Integer.toString(logicOfPhy(again, 3)), "0x40F84E00");
    health.pollOnce();
    assertThat(resetter(again).runOnce()).extracting(Outcome::result).containsExactly(Result.BUSY);
  }

  private static Pod volcanoPod(String name, String chips) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .withUid("uid-" + name)
        .withAnnotations(Map.of("huawei.com/Ascend910", chips, "predicate-time", "10"))
        .endMetadata()
        .withNewSpec()
        .withNodeName("node-1")
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .withNewResources()
        .addToLimits("huawei.com/Ascend910", new Quantity("1"))
        .addToRequests("huawei.com/Ascend910", new Quantity("1"))
        .endResources()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }
}
