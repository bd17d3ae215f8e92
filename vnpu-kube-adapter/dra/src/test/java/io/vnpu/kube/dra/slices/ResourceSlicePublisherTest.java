package io.vnpu.kube.dra.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.devices.NpuDiscovery;
import io.vnpu.kube.dra.devices.NpuInventory;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class ResourceSlicePublisherTest {
  static final String DRIVER = "npu.huawei.com";
  static final String NODE = "node-1";

  KubernetesClient client;
  final NpuSliceDevices devices =
      new NpuSliceDevices(n -> Optional.of(String.format("0000:%02x:00.0", 0xc1 + n.phyId())));

  @BeforeEach
  void node() {
    // createOr: under load a first POST that timed out is retried by the client and answers 409
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
  }

  ResourceSlicePublisher publisher() {
    return new ResourceSlicePublisher(
        client, DRIVER, NODE, Duration.ofSeconds(30), Duration.ofMillis(100));
  }

  List<ResourceSlice> slices() {
    return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
  }

  static List<String> names(ResourceSlice s) {
    return s.getSpec().getDevices().stream().map(Device::getName).toList();
  }

  @Test
  void devicesCarryTheSeedAttributesAndHbmCapacity() {
    Device d = devices.device(MutableDeviceManager.npu910b3(3, 3, 0));
    assertThat(d.getName()).isEqualTo("npu-3");
    Map<String, DeviceAttribute> a = d.getAttributes();
    assertThat(a)
        .containsOnlyKeys(
            "chipName",
            "numaNode",
            "physicalId",
            "topologyGroup",
            "uuid",
            "logicId",
            "aiCore",
            "resource.kubernetes.io/pciBusID",
            "sharing");
    assertThat(a.get("sharing").getString()).isEqualTo("whole");
    assertThat(a.get("chipName").getString()).isEqualTo("910B3");
    assertThat(a.get("numaNode").getInt()).isEqualTo(0L);
    assertThat(a.get("physicalId").getInt()).isEqualTo(3L);
    assertThat(a.get("topologyGroup").getString()).isEqualTo("ring-0");
    assertThat(a.get("uuid").getString()).isEqualTo("00001003-00000000-00000000-00000000-00000003");
    assertThat(a.get("logicId").getInt()).isEqualTo(3L);
    assertThat(a.get("aiCore").getInt()).isEqualTo(20L);
    assertThat(a.get("resource.kubernetes.io/pciBusID").getString()).isEqualTo("0000:c4:00.0");
    assertThat(d.getCapacity().get("memCapacity").getValue()).isEqualTo(new Quantity("64Gi"));
    assertThat(NpuSliceDevices.quantity(21527L << 20)).isEqualTo(new Quantity("21527Mi"));
    // unknown NUMA node: attribute omitted; 310P: no HCCS ring
    Npu p310 =
        new Npu(
            "U",
            0,
            5,
            1,
            0,
            "310P3",
            21527L << 20,
            8,
            7,
            io.vnpu.api.model.DeviceHealth.HEALTHY,
            -1);
    assertThat(devices.device(p310).getAttributes())
        .doesNotContainKeys("numaNode", "topologyGroup");
    assertThat(
            devices
                .device(MutableDeviceManager.npu910b3(0, 6, 1))
                .getAttributes()
                .get("topologyGroup")
                .getString())
        .isEqualTo("ring-1");
  }

  @Test
  void publishesOnePoolOwnedByTheNodeAndWritesNothingWhenUnchanged() {
    ResourceSlicePublisher p = publisher();
    p.publish(devices.devices(MutableDeviceManager.eight910b3()));
    p.syncNow();
    assertThat(slices())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(1L);
              assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
              assertThat(names(s))
                  .containsExactly(
                      "npu-0", "npu-1", "npu-2", "npu-3", "npu-4", "npu-5", "npu-6", "npu-7");
              assertThat(s.getMetadata().getLabels()).containsEntry("dra.vnpu.io/node", NODE);
            });
    long writes = p.writes();
    p.syncNow();
    p.syncNow();
    assertThat(p.writes()).isEqualTo(writes);
    // a restarted plugin finds its slice and does not churn either
    ResourceSlicePublisher restarted = publisher();
    restarted.publish(devices.devices(MutableDeviceManager.eight910b3()));
    restarted.syncNow();
    assertThat(restarted.writes()).isZero();
    assertThat(slices().get(0).getSpec().getPool().getGeneration()).isEqualTo(1L);
  }

  /** What the garbage collector does: deletes the slices whose owning Node UID is gone. */
  int collectGarbage() {
    String live = client.nodes().withName(NODE).get().getMetadata().getUid();
    int deleted = 0;
    for (ResourceSlice s : slices()) {
      if (s.getMetadata().getOwnerReferences().stream().noneMatch(o -> live.equals(o.getUid()))) {
        client.dynamicResourceAllocation().v1().resourcesSlices().resource(s).delete();
        deleted++;
      }
    }
    return deleted;
  }

  @Test
  void slicesFollowTheUidOfANodeRegisteredAgainSoTheGarbageCollectorAndPublisherDoNotLoop() {
    ResourceSlicePublisher p = publisher();
    p.publish(devices.devices(MutableDeviceManager.eight910b3()));
    p.syncNow();
    String before = client.nodes().withName(NODE).get().getMetadata().getUid();
    assertThat(slices().get(0).getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(before));

    // the Node is deleted and the kubelet registers it again: a new UID
    client.nodes().withName(NODE).delete();
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    String after = client.nodes().withName(NODE).get().getMetadata().getUid();
    assertThat(after).isNotEqualTo(before);

    assertThat(collectGarbage()).isEqualTo(1);
    p.syncNow();
    assertThat(slices())
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.getMetadata().getOwnerReferences())
                    .singleElement()
                    .satisfies(o -> assertThat(o.getUid()).isEqualTo(after)));
    // stable: nothing for the collector to delete, nothing for the publisher to write
    assertThat(collectGarbage()).isZero();
    long writes = p.writes();
    p.syncNow();
    assertThat(p.writes()).isEqualTo(writes);
  }

  @Test
  void aSliceOwnedByTheOldNodeUidIsRewrittenForTheNewOne() {
    ResourceSlicePublisher p = publisher();
    p.publish(devices.devices(MutableDeviceManager.eight910b3()));
    p.syncNow();
    client.nodes().withName(NODE).delete();
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    String after = client.nodes().withName(NODE).get().getMetadata().getUid();
    p.syncNow(); // before the collector ran
    assertThat(slices())
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.getMetadata().getOwnerReferences())
                    .extracting(o -> o.getUid())
                    .containsExactly(after));
  }

  @Test
  void aChipThatDropsOutLeavesTheOthersTheirNames() {
    ResourceSlicePublisher p = publisher();
    List<Npu> npus = new ArrayList<>(MutableDeviceManager.eight910b3());
    p.publish(devices.devices(npus));
    p.syncNow();
    npus.remove(2); // phy 2 gone; logic IDs of the rest shift in a real enumeration
    List<Npu> renumbered = new ArrayList<>();
    for (int i = 0; i < npus.size(); i++) {
      Npu n = npus.get(i);
      renumbered.add(MutableDeviceManager.npu910b3(i, n.phyId(), n.numaNode()));
    }
    p.publish(devices.devices(renumbered));
    p.syncNow();
    ResourceSlice s = slices().get(0);
    assertThat(names(s))
        .containsExactly("npu-0", "npu-1", "npu-3", "npu-4", "npu-5", "npu-6", "npu-7");
    assertThat(s.getSpec().getDevices().get(2).getAttributes().get("physicalId").getInt())
        .isEqualTo(3L);
    assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(2L);
  }

  @Test
  void sliceDeletedBySomeoneElseIsPutBack() throws Exception {
    ResourceSlicePublisher p =
        new ResourceSlicePublisher(
            client, DRIVER, NODE, Duration.ofMillis(200), Duration.ofMillis(50));
    try {
      p.start();
      p.publish(devices.devices(MutableDeviceManager.eight910b3()));
      await(() -> slices().size() == 1);
      client.dynamicResourceAllocation().v1().resourcesSlices().delete();
      await(
          () -> slices().size() == 1 && slices().get(0).getSpec().getPool().getGeneration() == 2L);
      assertThat(names(slices().get(0))).hasSize(8);
    } finally {
      p.close();
    }
  }

  @Test
  void dcmiNotReadyAtStartIsNeverPublishedAsAnEmptyPool() throws Exception {
    MutableDeviceManager dcmi = new MutableDeviceManager(MutableDeviceManager.eight910b3());
    dcmi.failNext(2);
    dcmi.emptyNext(1);
    NpuInventory inventory = new NpuInventory();
    List<Integer> published = new CopyOnWriteArrayList<>();
    inventory.addListener(m -> published.add(m.size()));
    try (NpuDiscovery d =
        new NpuDiscovery(
            () -> dcmi,
            inventory,
            Duration.ofMillis(10),
            Duration.ofMillis(40),
            Duration.ofSeconds(60))) {
      d.start();
      // known is set before the listeners run: wait for the listener too
      await(() -> inventory.known() && !published.isEmpty());
      assertThat(published).containsExactly(8);
      assertThat(dcmi.discoverCalls()).isEqualTo(4);
    }
  }

  static List<Device> plainDevices(int n, int taintedIndex) {
    List<Device> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      var b =
          new io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder()
              .withName(String.format("npu-%03d", i));
      if (i == taintedIndex) {
        b.withTaints(
            new io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder()
                .withKey(DRIVER + "/unhealthy")
                .withValue("80E01801")
                .withEffect("NoSchedule")
                .build());
      }
      out.add(b.build());
    }
    return out;
  }

  @Test
  void aPoolWithTaintsUsesSlicesOfAtMost64Devices() {
    ResourceSlicePublisher p = publisher();
    p.publish(plainDevices(100, -1));
    p.syncNow();
    assertThat(slices()).singleElement().satisfies(s -> assertThat(names(s)).hasSize(100));
    p.publish(plainDevices(100, 7));
    p.syncNow();
    assertThat(slices())
        .hasSize(2)
        .allSatisfy(
            s -> {
              assertThat(s.getSpec().getDevices()).hasSizeLessThanOrEqualTo(64);
              assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(2L);
            });
    assertThat(slices().stream().mapToInt(s -> s.getSpec().getDevices().size()).sum())
        .isEqualTo(100);
  }

  @Test
  void aTaintStampedWithTimeAddedByTheServerIsNotRewritten() {
    ResourceSlicePublisher p = publisher();
    p.publish(plainDevices(4, 2));
    p.syncNow();
    // what the API server does to a taint written without timeAdded
    ResourceSlice s = slices().get(0);
    s.getSpec().getDevices().get(2).getTaints().get(0).setTimeAdded("2026-12-01T03:00:00Z");
    client.dynamicResourceAllocation().v1().resourcesSlices().resource(s).update();
    long writes = p.writes();
    p.syncNow();
    assertThat(p.writes()).isEqualTo(writes);
  }

  @Test
  @SuppressWarnings("try") // the watch only needs to be open while the update happens
  void aPublishRightAfterAWatchEventIsWrittenAtOnceNotAfterTheEventDelay() throws Exception {
    // resync and event delay far beyond the test: only a publish can write
    ResourceSlicePublisher p =
        new ResourceSlicePublisher(client, DRIVER, NODE, Duration.ofHours(1), Duration.ofHours(1));
    try {
      p.start();
      p.publish(plainDevices(4, -1));
      await(() -> slices().size() == 1);
      // someone else's update: the publisher's watch queues a sync after the (1 h) event delay
      java.util.concurrent.CountDownLatch modified = new java.util.concurrent.CountDownLatch(1);
      try (var w =
          client
              .dynamicResourceAllocation()
              .v1()
              .resourcesSlices()
              .watch(
                  new io.fabric8.kubernetes.client.Watcher<ResourceSlice>() {
                    @Override
                    public void eventReceived(Action action, ResourceSlice slice) {
                      if (action == Action.MODIFIED) {
                        modified.countDown();
                      }
                    }

                    @Override
                    public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                  })) {
        ResourceSlice s = slices().get(0);
        s.getMetadata().getLabels().put("example.com/touched", "yes");
        client.dynamicResourceAllocation().v1().resourcesSlices().resource(s).update();
        assertThat(modified.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      }
      Thread.sleep(200); // the publisher's own watch has the event too
      // a health change inside the event delay is written at once
      p.publish(plainDevices(4, 2));
      await(
          () ->
              slices().get(0).getSpec().getDevices().get(2).getTaints() != null
                  && !slices().get(0).getSpec().getDevices().get(2).getTaints().isEmpty());
      assertThat(slices().get(0).getSpec().getDevices().get(2).getTaints())
          .singleElement()
          .satisfies(t -> assertThat(t.getValue()).isEqualTo("80E01801"));
    } finally {
      p.close();
    }
  }

  static void await(java.util.function.BooleanSupplier c) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(20);
    }
  }
}
