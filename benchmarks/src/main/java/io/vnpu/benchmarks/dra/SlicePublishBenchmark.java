package io.vnpu.benchmarks.dra;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.slices.NpuSliceDevices;
import io.vnpu.kube.dra.slices.ResourceSlicePublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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
 * Publishing the ResourceSlice pool of a 16-NPU node (an Atlas A3 node: 16 chips) after a kubelet
 * restart wiped it: building the 16 devices, listing the pool and creating the slice over HTTP
 * against the fabric8 mock API server (CRUD) on loopback. The slice is deleted before each
 * invocation, outside the measured call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class SlicePublishBenchmark {
  MockApiServer api;
  ResourceSlicePublisher publisher;
  NpuSliceDevices builder;
  List<Npu> npus;

  @Setup(Level.Trial)
  public void setUp() {
    api = new MockApiServer("bench-node");
    publisher =
        new ResourceSlicePublisher(
            api.client(),
            "npu.huawei.com",
            "bench-node",
            Duration.ofHours(1),
            Duration.ofSeconds(1));
    builder = new NpuSliceDevices(n -> Optional.of(String.format("0000:%02x:00.0", n.phyId())));
    npus = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      npus.add(
          new Npu(
              String.format("%08X-00000000-00000000-00000000-00000000", i),
              i,
              i,
              i / 2,
              i % 2,
              "Ascend910",
              64L << 30,
              24,
              6,
              DeviceHealth.HEALTHY,
              i / 8));
    }
  }

  @Setup(Level.Invocation)
  public void wipe() {
    api.client().dynamicResourceAllocation().v1().resourcesSlices().delete();
  }

  @Benchmark
  public long publish16Npus() {
    List<Device> devices = builder.devices(npus);
    publisher.publish(devices);
    publisher.syncNow();
    return publisher.writes();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    publisher.close();
    api.close();
  }
}
