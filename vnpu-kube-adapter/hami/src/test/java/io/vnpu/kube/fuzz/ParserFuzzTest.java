package io.vnpu.kube.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.config.ConfigException;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.config.NodeConfigLoader;
import io.vnpu.api.model.Priority;
import io.vnpu.dcmi.NumaNodes;
import io.vnpu.kube.hami.codec.DecodeVariant;
import io.vnpu.kube.hami.codec.DevicesToAllocateCodec;
import io.vnpu.kube.hami.codec.HamiFormatException;
import io.vnpu.kube.hami.codec.NodeLock;
import io.vnpu.kube.hami.codec.PodDevices;
import io.vnpu.kube.hami.codec.RegisterAnnotationCodec;
import io.vnpu.kube.hami.codec.RuntimeInfoCodec;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded mutation fuzzing of every parser and codec the agent feeds with input it does not
 * control: config files, the HAMi annotations (written by pod owners too), the node lock, the
 * driver's CPU list, and the quota region and compute registry files (written by containers). Each
 * target runs its seeds, then mutated inputs for {@link FuzzRun#budget()} (3 s; deterministic
 * sequence), and fails on any exception but the documented one. Seeds include the crash inputs of
 * issue 19 (test resources {@code fuzz/}, see the README there).
 *
 * <p>Why not Jazzer: {@code com.code-intelligence:jazzer-junit} is not among the packages served to
 * this project's machines, and its JUnit integration only replays the seed corpus in a normal
 * {@code mvn verify} (fuzzing needs {@code JAZZER_FUZZ=1} and one fuzz test per JVM), so it would
 * not fuzz in CI at all. This harness mutates like a coverage-less fuzzer instead.
 */
class ParserFuzzTest {
  @TempDir Path dir;

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = ParserFuzzTest.class.getResourceAsStream("/fuzz/" + name)) {
      if (in == null) throw new IOException("test resource fuzz/" + name + " missing");
      return in.readAllBytes();
    }
  }

  private static List<byte[]> texts(String... s) {
    List<byte[]> out = new ArrayList<>();
    for (String t : s) out.add(t.getBytes(StandardCharsets.UTF_8));
    return out;
  }

  /**
   * The mutated head followed by the seed file's unmutated rest; a shorter head is a truncated
   * file.
   */
  private static byte[] withTail(byte[] head, byte[] full, int headLen) {
    if (head.length < headLen) return head;
    byte[] out = java.util.Arrays.copyOf(head, head.length + full.length - headLen);
    System.arraycopy(full, headLen, out, head.length, full.length - headLen);
    return out;
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private List<byte[]> configSeeds(String... valid) throws IOException {
    List<byte[]> seeds = new ArrayList<>();
    for (String c :
        List.of(
            "config-crash-4377433b.yaml",
            "config-crash-58602f09.yaml",
            "config-crash-803fd099.yaml",
            "config-crash-e1b409a4.yaml")) {
      seeds.add(resource(c));
    }
    for (String v : valid) seeds.add(resource(v));
    return seeds;
  }

  private static final List<String> YAML_TOKENS =
      List.of(
          "vnpus:",
          "configs:",
          "- ",
          "chipName: ",
          "memoryCapacity: ",
          "16Gi",
          "0.5Mi",
          "99999999999999999999",
          "templates:",
          "nodes:",
          "vDeviceCount: ",
          "filterDevices:",
          "\"\\u",
          "\\x",
          "&a ",
          "*a",
          "!!binary ",
          "%TAG ! t\n",
          "---\n",
          "kind: ConfigMap\n",
          "data:\n",
          "|\n  ",
          "{",
          "[",
          "? ",
          "\t",
          "\r\n",
          "#",
          "'",
          "\"",
          "\u00e9",
          "\ud83d\ude00",
          "hami-vnpu-core: yes");

  @Test
  void deviceConfigLoader() throws Exception {
    Path file = dir.resolve("device-config.yaml");
    int n =
        FuzzRun.run(
            "device config",
            configSeeds("device-config.yaml"),
            YAML_TOKENS,
            8192,
            Set.of(ConfigException.class),
            in -> {
              Files.write(file, in);
              new DeviceConfigLoader(w -> {}).load(file);
            });
    assertThat(n).isGreaterThan(5);
  }

  @Test
  void nodeConfigLoader() throws Exception {
    Path file = dir.resolve("node-config.yaml");
    int n =
        FuzzRun.run(
            "node config",
            configSeeds("node-config.yaml"),
            YAML_TOKENS,
            8192,
            Set.of(ConfigException.class),
            in -> {
              Files.write(file, in);
              new NodeConfigLoader(w -> {}).load(file);
            });
    assertThat(n).isGreaterThan(5);
  }

  @Test
  void devicesToAllocateCodec() {
    List<byte[]> seeds =
        texts(
            "uuid1,Ascend910,1024,4:;",
            ";uuid1,Ascend910,16384,40:uuid2,Ascend910,8192,20:;",
            "0A1B2C3D-0000-8293A4B5,Ascend910B3,16384,0:;",
            ";;",
            "",
            "device-0,Ascend,8738,1:;");
    List<String> tokens = List.of(",", ":", ";", "2147483648", "-1", "Ascend910", ",,,,", "uuid");
    for (DecodeVariant v : DecodeVariant.values()) {
      DevicesToAllocateCodec codec = new DevicesToAllocateCodec(v);
      FuzzRun.run(
          "devices-to-allocate " + v,
          seeds,
          tokens,
          512,
          Set.of(HamiFormatException.class),
          in -> {
            PodDevices d = codec.decode(utf8(in));
            while (!d.isDone()) d = d.pop().remaining();
            DevicesToAllocateCodec.encode(d);
          });
    }
  }

  @Test
  void registerAnnotationCodec() {
    List<byte[]> seeds =
        texts(
            "[{\"id\":\"U0\",\"count\":7,\"devmem\":21527,\"devcore\":100,\"type\":\"Ascend310P\","
                + "\"health\":true,\"devicepairscore\":{}}]",
            "[]",
            "[{\"id\":\"U1\",\"count\":2,\"devmem\":65536,\"devcore\":20,"
                + "\"type\":\"Ascend910B3\",\"health\":true,\"custominfo\":{\"NetworkID\":0},\"devicepairscore\":{}}]");
    RegisterAnnotationCodec codec = new RegisterAnnotationCodec(true);
    FuzzRun.run(
        "register annotation",
        seeds,
        List.of(
            "{",
            "}",
            "[",
            "]",
            "\"",
            ":",
            ",",
            "null",
            "1e400",
            "-0",
            "\"\\ud800\"",
            "9223372036854775808"),
        1024,
        Set.of(HamiFormatException.class),
        in -> codec.decode(utf8(in)));
  }

  @Test
  void runtimeInfoCodec() {
    List<byte[]> seeds =
        texts(
            "[{\"UUID\":\"uuid1\",\"temp\":\"vir08\",\"memory\":8738,\"core\":1}]",
            "[{\"UUID\":\"U\",\"memory\":28672,\"core\":40}]",
            "[]",
            "[{\"UUID\":\"\"}]");
    RuntimeInfoCodec codec = new RuntimeInfoCodec();
    FuzzRun.run(
        "runtime info",
        seeds,
        List.of("{", "}", "\"memory\":", "\"core\":", "2147483648", "null", "1.5", "\"UUID\":"),
        1024,
        Set.of(HamiFormatException.class),
        in -> codec.decode("huawei.com/Ascend910", Optional.of(utf8(in))));
  }

  @Test
  void nodeLock() {
    FuzzRun.run(
        "node lock",
        texts(
            "2024-01-01T00:00:00Z,default,test-pod",
            "2023-11-14T22:13:20Z",
            "2026-07-24T10:15:30+08:00,ns,p"),
        List.of(",", "Z", "T", "+99:99", "-", "9999999999"),
        256,
        Set.of(HamiFormatException.class),
        in -> NodeLock.parse(utf8(in)));
  }

  // the driver's affinity list: never an exception, -1 when it makes no sense
  @Test
  void numaCpuList() throws Exception {
    Path nodes = dir.resolve("node");
    Files.createDirectories(nodes.resolve("node0"));
    Files.writeString(nodes.resolve("node0/cpulist"), "0-23,48-71\n");
    NumaNodes numa = new NumaNodes(nodes);
    FuzzRun.run(
        "numa cpulist",
        texts("0-2147483647", "0-3,8,10-11", "24-47", ""),
        List.of("-", ",", "2147483647", "99999999999", " "),
        256,
        Set.of(),
        in -> assertThat(numa.nodeOf(utf8(in))).isBetween(-1, 0));
  }

  // a container can write its own region: opening and reading it never escapes an IOException
  @Test
  void quotaRegionReader() throws Exception {
    QuotaRegions regions = new QuotaRegions();
    Path seed = dir.resolve("seed-region");
    regions
        .create(
            seed,
            new RegionConfig(
                List.of(
                    new DeviceQuota(1L << 30, 40, 0, Priority.NORMAL, 3, "U3"),
                    new DeviceQuota(2L << 30, 60, 50, Priority.HIGH, 5, "U5")),
                Set.of(PolicyFlag.MEM_ENFORCE, PolicyFlag.COMPUTE_ENFORCE),
                "/hami-shared-region"))
        .close();
    byte[] full = Files.readAllBytes(seed);
    // the header and device config pages carry what a reader interprets; mutate those, keep the
    // rest
    byte[] head = java.util.Arrays.copyOf(full, 8192);
    Path file = dir.resolve("region");
    FuzzRun.run(
        "quota region",
        List.of(head),
        List.of(),
        8192 + 64,
        Set.of(IOException.class),
        in -> {
          Files.write(file, withTail(in, full, head.length));
          try (QuotaRegion r = regions.open(file)) {
            r.readConfig();
            r.usage();
            r.deviceCount();
          }
        });
  }

  @Test
  void computeRegistryReader() throws Exception {
    ComputeRegistries registries = new ComputeRegistries();
    // a registry directory of its own: the registries' lock directory lies beside it
    Path seed = Files.createDirectory(dir.resolve("seed")).resolve("npu2.reg");
    registries.createOrOpen(seed, 2).close();
    byte[] full = Files.readAllBytes(seed);
    byte[] head = java.util.Arrays.copyOf(full, Math.min(full.length, 8192));
    Path file = dir.resolve("registry");
    FuzzRun.run(
        "compute registry",
        List.of(head),
        List.of(),
        8192 + 64,
        Set.of(IOException.class),
        in -> {
          Files.write(file, withTail(in, full, head.length));
          try (ComputeRegistry r = registries.open(file)) {
            r.entries();
            r.physId();
          }
        });
  }
}
