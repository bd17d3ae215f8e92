package io.vnpu.quota.limiter;

import static io.vnpu.api.model.Units.GIB;
import static io.vnpu.api.model.Units.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.quota.NativeDir;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.DeviceUsage;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.ProcessUsage;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * libvnpu.so preloaded into npu-burn on the simulated CANN runtime (910B3 profile, 64 GiB HBM per
 * device), with the region read and written from Java.
 */
class LimiterEndToEndTest {
  private static final long HBM = 64 * GIB;

  @TempDir Path dir;
  private Path region;
  private NpuBurn burn;
  private final QuotaRegions regions = new QuotaRegions();
  private final List<Process> started = new ArrayList<>();

  @BeforeEach
  void setUp() {
    region = dir.resolve("vnpu_local_shmem");
    burn = new NpuBurn(dir.resolve("host")).env("NPU_LOCAL_SHM_PATH", region.toString());
  }

  @AfterEach
  void tearDown() {
    started.forEach(Process::destroyForcibly);
  }

  private Process start(NpuBurn b, String... args) throws Exception {
    Process p = b.start(args);
    started.add(p);
    return p;
  }

  private static long size(Map<String, String> line) {
    return Long.parseLong(line.get("size"));
  }

  private QuotaRegion javaRegion(long limitBytes, int devices) throws Exception {
    return regions.create(region, RegionConfig.memoryLimit(devices, limitBytes));
  }

  // ------------------------------------------------------------------ quota exactness

  @ParameterizedTest(name = "{0}")
  @CsvSource({"rt,1073741824", "rts,1073741824", "physical,1073741824", "acl,1073741760"})
  void allocationsUpToTheLimitSucceedAndTheNextByteFailsWith207001(String via, long first)
      throws Exception {
    // aclrtMalloc pads: 1073741760 reaches the runtime as 1073741824 - 32, and 1 byte as 64
    NpuBurn.Result r =
        burn.env("NPU_MEM_QUOTA", "1024")
            .run(
                "--alloc-via",
                via,
                "alloc",
                Long.toString(first),
                "alloc",
                "1",
                "free",
                "0",
                "alloc",
                "1");
    assertThat(r.exit()).isZero();
    assertThat(r.err()).isEmpty();
    List<String> steps =
        r.out().stream().map(l -> l.replaceAll(" (ptr|pid|thread)=\\S+", "")).toList();
    assertThat(steps)
        .containsExactly(
            "alloc ok size=" + first,
            "alloc fail code=207001 size=1",
            "free ok size=" + first,
            "alloc ok size=1");
    try (QuotaRegion q = regions.open(region)) {
      RegionConfig c = q.readConfig();
      assertThat(c.devices()).hasSize(16).allMatch(d -> d.memLimitBytes() == GIB);
      assertThat(c.policy()).containsExactly(PolicyFlag.MEM_ENFORCE);
      assertThat(q.usage().devices().get(0).oomRejections()).isEqualTo(1);
    }
  }

  @Test
  void realFailuresKeepTheirCodeAndChargeNothing() throws Exception {
    try (QuotaRegion q = javaRegion(1024 * GIB, 1)) { // 1 TiB: more than the device has
      Process p =
          start(
              burn,
              "--alloc-via",
              "rt",
              "alloc",
              "0",
              "alloc",
              "65G",
              "alloc",
              "1G",
              "meminfo",
              "sleep",
              "2000");
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      Map<String, String> zero = NpuBurn.kv(out.readLine());
      Map<String, String> tooBig = NpuBurn.kv(out.readLine());
      Map<String, String> ok = NpuBurn.kv(out.readLine());
      Map<String, String> info = NpuBurn.kv(out.readLine());
      assertThat(zero).containsEntry("step", "alloc fail").containsEntry("code", "107000");
      assertThat(tooBig)
          .containsEntry("step", "alloc fail")
          .containsEntry("code", "207001"); // the device's OOM
      assertThat(ok).containsEntry("step", "alloc ok");
      assertThat(info.get("total")).isEqualTo(Long.toString(HBM)); // min(limit, physical)
      assertThat(info.get("free")).isEqualTo(Long.toString(HBM - GIB));
      DeviceUsage d = q.usage().devices().get(0);
      assertThat(d.usedBytes()).isEqualTo(GIB); // only the successful allocation is charged
      assertThat(d.oomRejections()).isZero(); // the quota refused nothing
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void freeingAnUnknownPointerChangesNoCounter() throws Exception {
    NpuBurn.Result r =
        burn.env("NPU_MEM_QUOTA", "1024")
            .run("--alloc-via", "rt", "alloc", "100M", "free-unknown", "meminfo");
    assertThat(r.lines("free fail").get(0).get("code")).isEqualTo("107000");
    assertThat(r.lines("meminfo ok").get(0).get("free")).isEqualTo(Long.toString(GIB - 100 * MIB));
    try (QuotaRegion q = regions.open(region)) {
      DeviceUsage d = q.usage().devices().get(0);
      assertThat(d.unknownFrees()).isEqualTo(1);
      assertThat(d.usedBytes()).isZero(); // npu-burn freed its 100M before exiting
      assertThat(d.admissions()).isEqualTo(1);
    }
  }

  // ------------------------------------------------------------------ concurrency

  @Test
  void eightProcessesNeverExceedTheLimitAndTheAccountingEqualsTheLiveAllocations()
      throws Exception {
    long limit = GIB;
    try (QuotaRegion q = javaRegion(limit, 1)) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong maxSeen = new AtomicLong();
      AtomicLong samples = new AtomicLong();
      AtomicReference<Exception> samplerError = new AtomicReference<>();
      Thread sampler =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    long used = q.usage().devices().get(0).usedBytes();
                    maxSeen.accumulateAndGet(used, Math::max);
                    samples.incrementAndGet();
                  }
                } catch (Exception e) {
                  samplerError.set(e);
                }
              });
      sampler.start();
      int procs = 8;
      int repeat = 40;
      Process p =
          start(
              burn,
              "--procs",
              Integer.toString(procs),
              "--alloc-via",
              "rt",
              "--repeat",
              Integer.toString(repeat),
              "--hold-ms",
              "4000",
              "alloc",
              "100M",
              "free",
              "last",
              "alloc",
              "30M");
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      long live = 0;
      int ok = 0;
      int refused = 0;
      for (int n = 0; n < procs * repeat * 3; n++) {
        Map<String, String> m = NpuBurn.kv(out.readLine());
        switch (m.get("step")) {
          case "alloc ok" -> {
            live += size(m);
            ok++;
          }
          case "free ok" -> live -= size(m);
          case "alloc fail" -> {
            assertThat(m.get("code")).isEqualTo("207001");
            refused++;
          }
          default -> {
            /* "free fail": nothing was live */
          }
        }
      }
      // every process is now holding its allocations (--hold-ms)
      long accounted = q.usage().devices().get(0).usedBytes();
      stop.set(true);
      sampler.join();
      assertThat(samplerError.get()).isNull();
      assertThat(accounted).isEqualTo(live);
      assertThat(maxSeen.get()).isLessThanOrEqualTo(limit);
      assertThat(samples.get()).isGreaterThan(10);
      assertThat(ok).isGreaterThan(procs * 3);
      assertThat(refused).isGreaterThan(0);
      assertThat(q.usage().devices().get(0).peakBytes()).isLessThanOrEqualTo(limit);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isZero();
      assertThat(q.usage().devices().get(0).usedBytes()).isZero(); // all freed at exit
    }
  }

  @Test
  void aProcessKilledWhileAllocatingIsReclaimedByTheNextAdmission() throws Exception {
    try (QuotaRegion q = javaRegion(GIB, 1)) {
      Process a = start(burn, "--alloc-via", "rt", "--until-fail", "alloc", "4K", "sleep", "60000");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (q.usage().devices().get(0).usedBytes() < 64 * MIB && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      a.destroyForcibly(); // SIGKILL, typically inside the allocation loop
      assertThat(a.waitFor(10, TimeUnit.SECONDS)).isTrue();
      long held = q.usage().devices().get(0).usedBytes();
      assertThat(held).isGreaterThanOrEqualTo(64 * MIB);

      NpuBurn.Result b = burn.run("--alloc-via", "rt", "alloc", "1G", "meminfo");
      assertThat(b.lines("alloc ok")).hasSize(1);
      assertThat(b.lines("meminfo ok").get(0).get("free")).isEqualTo("0");
      assertThat(q.usage().devices().get(0).reapedBytes()).isEqualTo(held);
    }
  }

  @Test
  void forkedChildrenAreAccountedSeparately() throws Exception {
    try (QuotaRegion q = javaRegion(2 * GIB, 1)) {
      Process p =
          start(
              burn, "--alloc-via", "rt", "alloc", "300M", "fork", "alloc", "200M", "sleep", "3000");
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      List<Map<String, String>> lines = new ArrayList<>();
      while (lines.size() < 3)
        lines.add(NpuBurn.kv(out.readLine())); // 1 before fork, 1 per side after
      assertThat(lines).allSatisfy(m -> assertThat(m).containsEntry("step", "alloc ok"));
      long parentPid = Long.parseLong(lines.get(0).get("pid"));
      long childPid =
          lines.stream()
              .filter(m -> "child".equals(m.get("role")))
              .mapToLong(m -> Long.parseLong(m.get("pid")))
              .findFirst()
              .orElseThrow();
      assertThat(childPid).isNotEqualTo(parentPid);
      List<ProcessUsage> procs = q.usage().processes();
      assertThat(procs)
          .extracting(ProcessUsage::pid)
          .containsExactlyInAnyOrder((int) parentPid, (int) childPid);
      assertThat(procs)
          .filteredOn(u -> u.pid() == parentPid)
          .singleElement()
          .satisfies(u -> assertThat(u.usedBytes()).containsExactly(500 * MIB));
      assertThat(procs)
          .filteredOn(u -> u.pid() == childPid)
          .singleElement()
          .satisfies(u -> assertThat(u.usedBytes()).containsExactly(200 * MIB));
      assertThat(q.usage().devices().get(0).usedBytes()).isEqualTo(700 * MIB);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(q.usage().devices().get(0).usedBytes()).isZero();
    }
  }

  // ------------------------------------------------------------------ devices and memory info

  @Test
  void perDeviceLimitsWithoutAggregation() throws Exception {
    NpuBurn.Result r =
        burn.env("NPU_MEM_QUOTA", "1024")
            .env("VNPU_DEVICE_COUNT", "2")
            .run(
                "--alloc-via",
                "rt",
                "alloc",
                "1G",
                "alloc",
                "1",
                "meminfo",
                "device",
                "1",
                "meminfo",
                "alloc",
                "1G",
                "alloc",
                "1",
                "meminfo",
                "device",
                "0",
                "meminfo",
                "device",
                "2",
                "alloc",
                "2G",
                "meminfo");
    List<String> steps =
        r.out().stream().map(l -> l.replaceAll(" (ptr|pid|thread|attr)=\\S+", "")).toList();
    assertThat(steps)
        .containsExactly(
            "alloc ok size=1073741824",
            "alloc fail code=207001 size=1",
            "meminfo ok free=0 total=1073741824",
            "meminfo ok free=1073741824 total=1073741824",
            "alloc ok size=1073741824",
            "alloc fail code=207001 size=1",
            "meminfo ok free=0 total=1073741824",
            "meminfo ok free=0 total=1073741824",
            // device 2 is not in the container's config: fails closed (issue 12), never unlimited
            "alloc fail code=207001 size=2147483648",
            "meminfo ok free=" + HBM + " total=" + HBM);
  }

  @Test
  void memoryInfoIsVirtualisedAndNeverUnderflowsWhenUsageExceedsALoweredLimit() throws Exception {
    try (QuotaRegion q = javaRegion(GIB, 1)) {
      Process p =
          start(
              burn,
              "--alloc-via",
              "rt",
              "alloc",
              "768M",
              "meminfo",
              "sleep",
              "2000",
              "meminfo",
              "meminfo",
              "0",
              "alloc",
              "1");
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      assertThat(NpuBurn.kv(out.readLine()).get("step")).isEqualTo("alloc ok");
      Map<String, String> before = NpuBurn.kv(out.readLine());
      assertThat(before.get("free")).isEqualTo(Long.toString(256 * MIB));
      assertThat(before.get("total")).isEqualTo(Long.toString(GIB));
      q.updateConfig(q.readConfig().withDevices(List.of(DeviceQuota.memoryOnly(512 * MIB))));
      Map<String, String> after = NpuBurn.kv(out.readLine());
      assertThat(after.get("step")).isEqualTo("meminfo ok");
      assertThat(after.get("free")).isEqualTo("0");
      assertThat(after.get("total")).isEqualTo(Long.toString(512 * MIB));
      Map<String, String> ddr =
          NpuBurn.kv(out.readLine()); // DDR is not virtualised: the runtime's answer
      assertThat(ddr.get("step")).isEqualTo("meminfo ok");
      assertThat(ddr.get("attr")).isEqualTo("0");
      assertThat(ddr.get("total")).isEqualTo("0");
      Map<String, String> alloc = NpuBurn.kv(out.readLine());
      assertThat(alloc.get("step")).isEqualTo("alloc fail");
      assertThat(alloc.get("code")).isEqualTo("207001");
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    NpuBurn.Result big =
        burn.env("NPU_LOCAL_SHM_PATH", dir.resolve("big").toString())
            .env("NPU_MEM_QUOTA", Long.toString(1024 * 1024))
            .run("meminfo");
    assertThat(big.lines("meminfo ok").get(0))
        .containsEntry("total", Long.toString(HBM))
        .containsEntry("free", Long.toString(HBM));
  }

  // ------------------------------------------------------------------ configuration and policy

  @Test
  void aConfigFileBesideTheRegionLimitsProcessesWithoutTheEnv() throws Exception {
    Files.writeString(
        dir.resolve("vnpu.conf"),
        "# written by the device plugin\nNPU_MEM_QUOTA=512\nNPU_PRIORITY=30\nVNPU_DEVICE_COUNT=1\n");
    NpuBurn.Result r = burn.run("--alloc-via", "rt", "alloc", "512M", "alloc", "1");
    assertThat(r.lines("alloc ok")).hasSize(1);
    assertThat(r.lines("alloc fail").get(0).get("code")).isEqualTo("207001");
    assertThat(r.err()).isEmpty();
    try (QuotaRegion q = regions.open(region)) {
      assertThat(q.readConfig().devices())
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.memLimitBytes()).isEqualTo(512 * MIB);
                assertThat(d.computeWeight()).isEqualTo(30);
              });
    }
  }

  @Test
  void aBadConfigValueRefusesDeviceMemoryWithOneLineNamingFileLineKeyAndValue() throws Exception {
    Path conf = dir.resolve("vnpu.conf");
    Files.writeString(conf, "# written by the device plugin\nNPU_MEM_QUOTA=lots\n");
    NpuBurn.Result r = burn.run("--alloc-via", "rt", "alloc", "1G");
    assertThat(r.err())
        .containsExactly(
            "vnpu: "
                + conf
                + ":2: NPU_MEM_QUOTA = 'lots': not a number of MiB (decimal "
                + "digits only, no unit, sign or blanks; at most 17592186044415); device memory allocations of this process "
                + "are refused (207001)");
    assertThat(r.lines("alloc fail").get(0).get("code")).isEqualTo("207001");
    assertThat(region).doesNotExist();

    Files.writeString(conf, "NPU_MEM_QUOTA=512\nNPU_COLOUR=blue\n");
    r = burn.run("--alloc-via", "rt", "alloc", "1M");
    assertThat(r.err())
        .containsExactly(
            "vnpu: "
                + conf
                + ":2: NPU_COLOUR = 'blue': unknown key; device memory "
                + "allocations of this process are refused (207001)");
    assertThat(r.lines("alloc fail").get(0).get("code")).isEqualTo("207001");
  }

  private void assertRunsUnlimitedWithOneLogLine(NpuBurn b, String expectedInLine)
      throws Exception {
    NpuBurn.Result r = b.run("--alloc-via", "rt", "alloc", "40G", "alloc", "20G", "meminfo");
    assertThat(r.exit()).isZero();
    assertThat(r.lines("alloc ok")).hasSize(2);
    assertThat(r.lines("meminfo ok").get(0)).containsEntry("total", Long.toString(HBM));
    assertThat(r.err())
        .singleElement()
        .asString()
        .startsWith("vnpu: quota region " + region)
        .contains(expectedInLine)
        .endsWith("; memory limits are not enforced");
  }

  @Test
  void missingRegionWithoutConfigRunsUnlimitedWithOneLogLine() throws Exception {
    assertRunsUnlimitedWithOneLogLine(burn, "(missing)");
    assertThat(region).doesNotExist();
  }

  @Test
  void badMagicRunsUnlimitedWithOneLogLineAndTheFileIsUntouched() throws Exception {
    byte[] junk = new byte[6200]; // e.g. a hami-vnpu-core region at the same path
    Arrays.fill(junk, (byte) 7);
    Files.write(region, junk);
    assertRunsUnlimitedWithOneLogLine(
        burn.env("NPU_MEM_QUOTA", "1024"), "field magic = 0x0707070707070707");
    assertThat(Files.readAllBytes(region)).isEqualTo(junk);
  }

  @Test
  void unknownMajorRunsUnlimitedWithOneLogLine() throws Exception {
    javaRegion(GIB, 1).close();
    try (FileChannel ch = FileChannel.open(region, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {2, 0}), 8);
    }
    assertRunsUnlimitedWithOneLogLine(burn, "field version_major = 2, this limiter reads only 1");
  }

  @Test
  void aRegionTheUserCannotOpenRunsUnlimitedWithOneLogLine() throws Exception {
    Path shared = Files.createTempDirectory(Path.of("/tmp"), "vnpu-e2e-");
    try {
      Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
      region = shared.resolve("vnpu_local_shmem");
      javaRegion(GIB, 1).close();
      Files.setPosixFilePermissions(
          region, PosixFilePermissions.fromString("rw-------")); // root only
      // npu-burn finds its runtime libraries beside itself ($ORIGIN), so these four travel
      // together.
      Path bin = Files.createDirectory(shared.resolve("bin"));
      for (String f : List.of("npu-burn", "libvnpu.so", "libascendcl.so", "libruntime.so")) {
        Files.copy(NativeDir.program(f), bin.resolve(f), StandardCopyOption.COPY_ATTRIBUTES);
      }
      Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
      NpuBurn nobody =
          new NpuBurn(shared.resolve("host"))
              .programsIn(bin)
              .wrappedBy("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
              .env("NPU_LOCAL_SHM_PATH", region.toString())
              .env("NPU_MEM_QUOTA", "1024");
      assertRunsUnlimitedWithOneLogLine(nobody, "Permission denied (access denied)");
    } finally {
      try (Stream<Path> s = Files.walk(shared)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void processesThatNeverCallTheRuntimeAreUntouched() throws Exception {
    ProcessBuilder pb =
        burn.env("NPU_MEM_QUOTA", "1024")
            .builder(List.of("/bin/sh", "-c", "grep '^Threads:' /proc/$$/status; echo done"));
    NpuBurn.Result r = NpuBurn.Result.of(pb.start());
    assertThat(r.out()).containsExactly("Threads:\t1", "done");
    assertThat(r.err()).isEmpty();
    assertThat(region).doesNotExist(); // no shared state before the first hooked call
  }

  @Test
  void javaAndTheLimiterShareOneLimit() throws Exception {
    try (QuotaRegion q = javaRegion(GIB, 1)) {
      assertThat(q.memoryAccount().admit(0, 600 * MIB)).isTrue();
      NpuBurn.Result r = burn.run("--alloc-via", "rt", "alloc", "424M", "alloc", "1", "meminfo");
      assertThat(r.lines("alloc ok")).hasSize(1);
      assertThat(r.lines("alloc fail"))
          .singleElement()
          .satisfies(m -> assertThat(m).containsEntry("code", "207001"));
      assertThat(r.lines("meminfo ok").get(0))
          .containsEntry("free", "0")
          .containsEntry("total", Long.toString(GIB));
      assertThat(q.usage().devices().get(0).usedBytes())
          .isEqualTo(600 * MIB); // npu-burn freed its 424M at exit
      assertThat(Set.copyOf(q.readConfig().policy())).containsExactly(PolicyFlag.MEM_ENFORCE);
    }
  }
}
