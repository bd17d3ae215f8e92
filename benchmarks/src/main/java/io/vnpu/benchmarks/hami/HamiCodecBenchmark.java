package io.vnpu.benchmarks.hami;

import io.vnpu.kube.hami.codec.DecodeVariant;
import io.vnpu.kube.hami.codec.DevicesToAllocateCodec;
import io.vnpu.kube.hami.codec.HamiFormatException;
import io.vnpu.kube.hami.codec.PodDevices;
import io.vnpu.kube.hami.codec.RegisterAnnotationCodec;
import io.vnpu.kube.hami.codec.RegisterDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * HAMi protocol codecs on the node agent's hot paths: the register annotation ({@code
 * hami.io/node-register-<commonWord>}) it writes every 30 s, for a 16-NPU node, and the {@code
 * hami.io/<commonWord>-devices-to-allocate} value it decodes on every Allocate.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HamiCodecBenchmark {

  private final RegisterAnnotationCodec registerCodec = new RegisterAnnotationCodec(false);
  private final DevicesToAllocateCodec allocateCodec =
      new DevicesToAllocateCodec(DecodeVariant.PRESERVE_EMPTY);
  private List<RegisterDevice> sixteenNpus;

  /** Two containers: one with two soft slices, one with a whole card (HAMi's encoding). */
  private final String devicesToAllocate =
      "1E2C3A4B-00000000-00000000-00000000-00000001,Ascend910B3,16384,5:"
          + "1E2C3A4B-00000000-00000000-00000000-00000002,Ascend910B3,16384,5:;"
          + "1E2C3A4B-00000000-00000000-00000000-00000003,Ascend910B3,65536,20:;";

  @Setup
  public void setUp() {
    sixteenNpus = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      String uuid = String.format("1E2C3A4B-00000000-00000000-00000000-%08X", i);
      sixteenNpus.add(RegisterDevice.ascend(uuid, i, 4, 65536, 20, "Ascend910B3", true));
    }
  }

  @Benchmark
  public String encodeRegisterAnnotation16Npus() {
    return registerCodec.encode(sixteenNpus);
  }

  @Benchmark
  public PodDevices decodeDevicesToAllocate() throws HamiFormatException {
    return allocateCodec.decode(devicesToAllocate);
  }
}
