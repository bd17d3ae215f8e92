package io.vnpu.kube.dra.slices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CounterBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumptionBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpecBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Counter slices (KEP-4815) next to device slices in one pool, and what the publisher does when the
 * API server drops gated fields.
 */
class CounterSlicesTest {
  static final String DRIVER = "npu.huawei.com";
  static final String NODE = "node-1";

  final FieldDroppingApiServer api = new FieldDroppingApiServer(NODE);
  final List<Set<DroppedField>> told = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    api.close();
  }

  ResourceSlicePublisher publisher() {
    ResourceSlicePublisher p =
        new ResourceSlicePublisher(
            api.client(), DRIVER, NODE, Duration.ofSeconds(30), Duration.ofMillis(100));
    p.onDroppedFields(told::add);
    return p;
  }

  List<ResourceSlice> slices() {
    List<ResourceSlice> l =
        new ArrayList<>(
            api.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems());
    // counter slices first, then device slices by first device name
    l.sort(
        Comparator.comparing((ResourceSlice s) -> !isCounterSlice(s))
            .thenComparing(
                s ->
                    isCounterSlice(s)
                        ? s.getSpec().getSharedCounters().get(0).getName()
                        : s.getSpec().getDevices().isEmpty()
                            ? ""
                            : s.getSpec().getDevices().get(0).getName()));
    return l;
  }

  static boolean isCounterSlice(ResourceSlice s) {
    return s.getSpec().getSharedCounters() != null && !s.getSpec().getSharedCounters().isEmpty();
  }

  /** Chip {@code phy}'s counter set: 64 GiB HBM, 20 AI Cores (a 910B3). */
  static CounterSet counters(int phy) {
    return new CounterSetBuilder()
        .withName(String.format("npu-%02d-counters", phy))
        .withCounters(
            Map.of(
                "memory",
                new CounterBuilder().withValue(new Quantity("64Gi")).build(),
                "aicore",
                new CounterBuilder().withValue(new Quantity("20")).build()))
        .build();
  }

  /** A device of chip {@code phy} that takes the whole chip's counters. */
  static Device consuming(int phy, String suffix) {
    return new DeviceBuilder()
        .withName(String.format("npu-%02d-%s", phy, suffix))
        .withConsumesCounters(
            new DeviceCounterConsumptionBuilder()
                .withCounterSet(String.format("npu-%02d-counters", phy))
                .withCounters(
                    Map.of(
                        "memory", new CounterBuilder().withValue(new Quantity("64Gi")).build(),
                        "aicore", new CounterBuilder().withValue(new Quantity("20")).build()))
                .build())
        .build();
  }

  /** {@code chips} chips with {@code perChip} devices each, all drawing from their chip. */
  static PoolContent pool(int chips, int perChip) {
    List<CounterSet> sets = new ArrayList<>();
    List<Device> devices = new ArrayList<>();
    for (int c = 0; c < chips; c++) {
      sets.add(counters(c));
      for (int d = 0; d < perChip; d++) {
        devices.add(consuming(c, "m" + d));
      }
    }
    return new PoolContent(sets, devices);
  }

  static List<String> setNames(ResourceSlice s) {
    return s.getSpec().getSharedCounters().stream().map(CounterSet::getName).toList();
  }

  @Test
  void eightChipsMakeOneCounterSliceAndOneDeviceSliceCountedTogether() {
    ResourceSlicePublisher p = publisher();
    p.publish(pool(8, 2));
    p.syncNow();
    List<ResourceSlice> s = slices();
    assertThat(s).hasSize(2);
    assertThat(setNames(s.get(0)))
        .containsExactly(
            "npu-00-counters",
            "npu-01-counters",
            "npu-02-counters",
            "npu-03-counters",
            "npu-04-counters",
            "npu-05-counters",
            "npu-06-counters",
            "npu-07-counters");
    assertThat(s.get(0).getSpec().getDevices()).isNullOrEmpty();
    assertThat(s.get(0).getSpec().getSharedCounters().get(3).getCounters().get("memory").getValue())
        .isEqualTo(new Quantity("64Gi"));
    assertThat(s.get(1).getSpec().getSharedCounters()).isNullOrEmpty();
    assertThat(s.get(1).getSpec().getDevices()).hasSize(16);
    assertThat(s.get(1).getSpec().getDevices().get(5).getConsumesCounters().get(0).getCounterSet())
        .isEqualTo("npu-02-counters");
    assertThat(s)
        .allSatisfy(
            x -> {
              assertThat(x.getSpec().getPool().getName()).isEqualTo(NODE);
              assertThat(x.getSpec().getPool().getGeneration()).isEqualTo(1L);
              assertThat(x.getSpec().getPool().getResourceSliceCount()).isEqualTo(2L);
            });
    assertThat(p.writes()).isEqualTo(2);
    p.syncNow();
    assertThat(p.writes()).isEqualTo(2); // unchanged: nothing rewritten
    assertThat(told).isEmpty();
  }

  @Test
  void twelveChipsOfSixDevicesSplitIntoEightPlusFourSetsAnd64Plus8Devices() {
    ResourceSlicePublisher p = publisher();
    p.publish(pool(12, 6));
    p.syncNow();
    List<ResourceSlice> s = slices();
    assertThat(s).hasSize(4);
    assertThat(s.get(0).getSpec().getSharedCounters()).hasSize(8);
    assertThat(s.get(1).getSpec().getSharedCounters()).hasSize(4);
    assertThat(setNames(s.get(1)))
        .containsExactly(
            "npu-08-counters", "npu-09-counters", "npu-10-counters", "npu-11-counters");
    assertThat(s.get(2).getSpec().getDevices()).hasSize(64);
    assertThat(s.get(3).getSpec().getDevices()).hasSize(8);
    assertThat(s.get(3).getSpec().getDevices().get(0).getName()).isEqualTo("npu-10-m4");
    assertThat(s)
        .allSatisfy(x -> assertThat(x.getSpec().getPool().getResourceSliceCount()).isEqualTo(4L));
    // one chip fewer: 11 sets (8 + 3), 66 devices (64 + 2), generation 2
    p.publish(pool(11, 6));
    p.syncNow();
    s = slices();
    assertThat(s)
        .hasSize(4)
        .allSatisfy(
            x -> {
              assertThat(x.getSpec().getPool().getResourceSliceCount()).isEqualTo(4L);
              assertThat(x.getSpec().getPool().getGeneration()).isEqualTo(2L);
            });
    assertThat(s.get(1).getSpec().getSharedCounters()).hasSize(3);
    assertThat(s.get(3).getSpec().getDevices()).hasSize(2);
  }

  @Test
  void serverDroppingCountersStopsTheGenerationBeforeAnyDeviceSliceAndTheFallbackIsPublished() {
    api.dropping(DroppedField.SHARED_COUNTERS, DroppedField.CONSUMES_COUNTERS);
    ResourceSlicePublisher p = publisher();
    // what a plugin does: on a dropped counter field, publish one device per chip, no counters
    List<Device> fallback = new ArrayList<>();
    for (int c = 0; c < 8; c++) {
      fallback.add(new DeviceBuilder().withName(String.format("npu-%02d-m0", c)).build());
    }
    p.onDroppedFields(
        f -> {
          told.add(f);
          if (f.stream().anyMatch(DroppedField::overCommits)) {
            p.publish(PoolContent.of(fallback));
          }
        });
    p.publish(pool(8, 2));
    p.syncNow();
    // only the counter slice went out (stored without its counters): the pool of generation 1
    // stays incomplete (1 of 2 slices), so the scheduler allocates nothing from it
    assertThat(slices())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getSpec().getSharedCounters()).isNullOrEmpty();
              assertThat(s.getSpec().getDevices()).isNullOrEmpty();
              assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(2L);
            });
    assertThat(p.writes()).isEqualTo(1);
    assertThat(told).containsExactly(Set.of(DroppedField.SHARED_COUNTERS));
    assertThat(p.droppedFields()).containsExactly(DroppedField.SHARED_COUNTERS);
    p.syncNow();
    assertThat(slices())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(2L);
              assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
              assertThat(s.getSpec().getDevices())
                  .hasSize(8)
                  .allSatisfy(d -> assertThat(d.getConsumesCounters()).isNullOrEmpty());
            });
    long writes = p.writes();
    p.syncNow();
    assertThat(p.writes()).isEqualTo(writes);
    // content that still needs counters is never written to this server again
    p.publish(pool(8, 2));
    p.syncNow();
    assertThat(p.writes()).isEqualTo(writes);
    assertThat(told).hasSize(1); // each field reported once
  }

  @Test
  void serverDroppingOnlyConsumesCountersIsCaughtAtTheFirstDeviceSlice() {
    api.dropping(DroppedField.CONSUMES_COUNTERS);
    ResourceSlicePublisher p = publisher();
    p.publish(pool(12, 6)); // 2 counter slices, 2 device slices
    p.syncNow();
    assertThat(told).containsExactly(Set.of(DroppedField.CONSUMES_COUNTERS));
    // counter slices and the first device slice; the last one was never written
    assertThat(slices())
        .hasSize(3)
        .allSatisfy(s -> assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(4L));
    assertThat(p.writes()).isEqualTo(3);
  }

  @Test
  void droppedTaintsAreReportedOnceAndDoNotCauseEndlessRewrites() {
    api.dropping(DroppedField.TAINTS);
    ResourceSlicePublisher p = publisher();
    List<Device> devices =
        List.of(
            new DeviceBuilder().withName("npu-0").build(),
            new DeviceBuilder()
                .withName("npu-1")
                .withTaints(
                    new DeviceTaintBuilder()
                        .withKey(DRIVER + "/unhealthy")
                        .withValue("80E01801")
                        .withEffect("NoSchedule")
                        .build())
                .build());
    p.publish(devices);
    p.syncNow();
    assertThat(told).containsExactly(Set.of(DroppedField.TAINTS));
    // taints are no reason to hold the pool back: it is complete, without them
    assertThat(slices())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
              assertThat(s.getSpec().getDevices()).hasSize(2);
              assertThat(s.getSpec().getDevices().get(1).getTaints()).isNullOrEmpty();
            });
    long writes = p.writes();
    p.syncNow();
    p.syncNow();
    assertThat(p.writes()).isEqualTo(writes);
    assertThat(told).hasSize(1);
  }

  @Test
  void betweenNamesExactlyTheFieldsTheServerLeftOut() {
    Device sent =
        new DeviceBuilder(consuming(0, "soft"))
            .withAllowMultipleAllocations(true)
            .withCapacity(
                Map.of(
                    "memory",
                    new io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder()
                        .withValue(new Quantity("64Gi"))
                        .withNewRequestPolicy()
                        .withDefault(new Quantity("1Mi"))
                        .endRequestPolicy()
                        .build()))
            .withTaints(new DeviceTaintBuilder().withKey("k").withEffect("None").build())
            .build();
    var spec = new ResourceSliceSpecBuilder().withDevices(sent).build();
    assertThat(DroppedField.between(spec, spec)).isEmpty();
    Device kept =
        new DeviceBuilder(sent)
            .withAllowMultipleAllocations(null)
            .withCapacity(
                Map.of(
                    "memory",
                    new io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder()
                        .withValue(new Quantity("64Gi"))
                        .build()))
            .build();
    assertThat(DroppedField.between(spec, new ResourceSliceSpecBuilder().withDevices(kept).build()))
        .containsExactlyInAnyOrder(
            DroppedField.ALLOW_MULTIPLE_ALLOCATIONS, DroppedField.CAPACITY_REQUEST_POLICY);
    var counterSpec = new ResourceSliceSpecBuilder().withSharedCounters(counters(0)).build();
    assertThat(DroppedField.between(counterSpec, new ResourceSliceSpecBuilder().build()))
        .containsExactly(DroppedField.SHARED_COUNTERS);
    // stripping what the server dropped gives what it stored
    assertThat(
            DroppedField.strip(
                Set.of(
                    DroppedField.ALLOW_MULTIPLE_ALLOCATIONS, DroppedField.CAPACITY_REQUEST_POLICY),
                List.of(sent)))
        .containsExactly(kept);
    assertThat(DroppedField.TAINTS.warning("node-1-npu.huawei.com-x2k9p"))
        .isEqualTo(
            "the API server dropped ResourceSlice field spec.devices[].taints (slice"
                + " node-1-npu.huawei.com-x2k9p): feature gate DRADeviceTaints is probably off on"
                + " the API server; faulty chips are not tainted and stay schedulable");
  }

  @Test
  void aDeviceDrawingFromAMissingCounterSetIsRefusedBeforeAnythingIsWritten() {
    assertThatThrownBy(() -> new PoolContent(List.of(counters(0)), List.of(consuming(1, "m0"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "device npu-01-m0 consumes from counter set npu-01-counters, which the pool"
                + " does not have");
  }
}
