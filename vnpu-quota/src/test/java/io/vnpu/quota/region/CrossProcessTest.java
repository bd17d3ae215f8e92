package io.vnpu.quota.region;

import static io.vnpu.api.model.Units.GIB;
import static io.vnpu.api.model.Units.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.quota.NativeDir;
import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.model.ProcessUsage;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.UsageSnapshot;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Java and the C limiter's region code sharing one region (native/limiter/tests/region_client.c).
 */
class CrossProcessTest {
  @TempDir Path dir;
  private final QuotaRegions regions = new QuotaRegions();
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    started.forEach(Process::destroyForcibly);
  }

  private Process client(Path region, String... args) throws Exception {
    return clientIn(List.of(), region, args);
  }

  private Process clientIn(List<String> wrapper, Path region, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(wrapper);
    cmd.add(NativeDir.program("limiter/region_client").toString());
    cmd.add(region.toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    started.add(p);
    return p;
  }

  private static String firstLine(Process p) throws Exception {
    return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))
        .readLine();
  }

  @Test
  void cAndJavaShareOneLimitAndKill9IsReclaimedByTheNextAdmission() throws Exception {
    Path f = dir.resolve("r");
    try (QuotaRegion r = regions.create(f, RegionConfig.memoryLimit(1, 100 * MIB))) {
      Process c = client(f, "hold", "0", Long.toString(70 * MIB));
      assertThat(firstLine(c)).isEqualTo("admitted 0");
      UsageSnapshot s = r.usage();
      assertThat(s.devices().get(0).usedBytes()).isEqualTo(70 * MIB);
      ProcessUsage cp = s.processes().get(0);
      assertThat(cp.pid()).isEqualTo(c.pid());
      assertThat(cp.java()).isFalse();
      assertThat(cp.usedBytes()).containsExactly(70 * MIB);

      MemoryAccount a = r.memoryAccount();
      assertThat(a.admit(0, 40 * MIB)).isFalse(); // C process alive: its 70 MiB count
      assertThat(r.reap()).isZero();
      Process c2 = client(f, "hold", "0", Long.toString(31 * MIB));
      assertThat(firstLine(c2)).isEqualTo("admitted 1"); // 70 + 31 MiB > 100 MiB, seen from C too

      c.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL
      assertThat(a.admit(0, 40 * MIB)).isTrue(); // reaped by this admission
      UsageSnapshot after = r.usage();
      assertThat(after.devices().get(0).usedBytes()).isEqualTo(40 * MIB);
      assertThat(after.devices().get(0).reapedBytes()).isEqualTo(70 * MIB);
      assertThat(after.processes()).extracting(ProcessUsage::pid).doesNotContain((int) c.pid());
    }
  }

  /** Writes a u64 into the region file as another process would (little-endian, in place). */
  private static void putLong(Path f, long off, long v) throws Exception {
    try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(f.toFile(), "rw")) {
      raf.seek(off);
      raf.write(
          java.nio.ByteBuffer.allocate(8)
              .order(java.nio.ByteOrder.LITTLE_ENDIAN)
              .putLong(v)
              .array());
    }
  }

  @Test
  void pendingBytesOfALiveNeighbourAreWaitedForNotRefusedAtOnceAndADeadOnesAreReaped()
      throws Exception {
    Path f = dir.resolve("r");
    try (QuotaRegion r = regions.create(f, RegionConfig.memoryLimit(1, 100 * MIB))) {
      Process c = client(f, "hold", "0", Long.toString(10 * MIB)); // slot 0, 10 MiB committed
      assertThat(firstLine(c)).isEqualTo("admitted 0");
      // the C process "stopped between its publish and its commit" of 80 MiB
      long pending0 = RegionLayout.SLOTS_OFF + RegionLayout.S_PENDING_BYTES;
      putLong(f, pending0, 80 * MIB);
      MemoryAccount a = r.memoryAccount();
      // 20 MiB fit beside the 10 committed: refusing at once would be a false refusal, so the
      // admission waits for the live holder for the whole bound, and only then fails closed
      long t0 = System.nanoTime();
      assertThat(a.admit(0, 20 * MIB)).isFalse();
      assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(MemoryAccount.CONTENDED_WAIT_NS);
      assertThat(a.admit(0, 91 * MIB)).isFalse(); // does not fit beside the committed 10 MiB
      assertThat(r.usage().devices().get(0).usedBytes()).isEqualTo(10 * MIB);

      c.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL mid-admission
      // the dead admitter's pending bytes were never committed: reaped, they only disappear
      assertThat(a.admit(0, 20 * MIB)).isTrue();
      UsageSnapshot s = r.usage();
      assertThat(s.devices().get(0).usedBytes()).isEqualTo(20 * MIB);
      assertThat(s.devices().get(0).reapedBytes()).isEqualTo(10 * MIB);
      // minor 4: admissions are counted by commit_seq (C's 10 MiB and Java's 20 MiB), the old
      // counter is no longer written; a value an older writer left there still reads
      assertThat(s.devices().get(0).admissions()).isEqualTo(2);
      long admissions0 = RegionLayout.DEVSTATE_OFF + RegionLayout.DS_ADMISSIONS;
      putLong(f, admissions0, 41);
      assertThat(r.usage().devices().get(0).admissions()).isEqualTo(41);
    }
  }

  @Test
  void theSamePidInTwoPidNamespacesIsTwoOwnersAndOnlyTheDeadOneIsReaped() throws Exception {
    Path f = dir.resolve("r");
    List<String> ns =
        List.of("unshare", "--pid", "--fork"); // each client is PID 1 of its own namespace
    try (QuotaRegion r = regions.create(f, RegionConfig.memoryLimit(1, GIB))) {
      Process a = clientIn(ns, f, "hold", "0", Long.toString(300 * MIB));
      Process b = clientIn(ns, f, "hold", "0", Long.toString(200 * MIB));
      assertThat(firstLine(a)).isEqualTo("admitted 0");
      assertThat(firstLine(b)).isEqualTo("admitted 0");
      List<ProcessUsage> both = r.usage().processes();
      assertThat(both).extracting(ProcessUsage::pid).containsExactly(1, 1);
      assertThat(both)
          .extracting(u -> u.usedBytes().get(0))
          .containsExactlyInAnyOrder(300 * MIB, 200 * MIB);
      assertThat(r.reap()).isZero(); // both alive, whatever their PIDs say

      a.getOutputStream().close(); // a exits; b, also "PID 1", lives on
      assertThat(a.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(r.reap()).isEqualTo(1);
      UsageSnapshot s = r.usage();
      assertThat(s.processes())
          .singleElement()
          .satisfies(
              u -> {
                assertThat(u.pid()).isEqualTo(1);
                assertThat(u.usedBytes()).containsExactly(200 * MIB);
              });
      assertThat(s.devices().get(0).usedBytes()).isEqualTo(200 * MIB);
      assertThat(s.devices().get(0).reapedBytes()).isEqualTo(300 * MIB);
    }
  }

  @Test
  void eightProcessesChurnWhileTheJavaSamplerNeverSeesMoreThanTheLimit() throws Exception {
    Path f = dir.resolve("r");
    long limit = 256 * MIB;
    try (QuotaRegion r = regions.create(f, RegionConfig.memoryLimit(1, limit))) {
      List<Process> ps = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        ps.add(
            client(f, "churn", "0", "2000", Integer.toString(100 + i), Long.toString(limit / 8)));
      }
      long maxSeen = 0;
      int samples = 0;
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1800);
      while (System.nanoTime() < deadline) {
        long used = r.usage().devices().get(0).usedBytes();
        maxSeen = Math.max(maxSeen, used);
        samples++;
      }
      long live = 0;
      long grants = 0;
      for (Process p : ps) {
        String[] w = firstLine(p).split(" ");
        live += Long.parseLong(w[1]);
        grants += Long.parseLong(w[3]);
      }
      assertThat(samples).isGreaterThan(100);
      assertThat(maxSeen).isLessThanOrEqualTo(limit);
      assertThat(grants).isGreaterThan(100);
      UsageSnapshot s = r.usage();
      assertThat(s.devices().get(0).usedBytes()).isEqualTo(live);
      assertThat(s.processes()).hasSize(8);
      assertThat(s.devices().get(0).peakBytes()).isLessThanOrEqualTo(limit);
      for (Process p : ps) {
        p.getOutputStream().close(); // let it exit normally: its slot is reaped, not freed
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(r.reap()).isEqualTo(8);
      assertThat(r.usage().devices().get(0).usedBytes()).isZero();
      assertThat(r.usage().devices().get(0).reapedBytes()).isEqualTo(live);
    }
  }

  /**
   * C processes and JVM threads admit into one region at once, one C process is killed (kill -9)
   * mid-churn: no consistent read ever shows more than the limit, and at the end the region holds
   * exactly what the live C processes and the JVM's threads hold.
   */
  @Test
  void cProcessesAndJavaThreadsAdmittingTogetherNeverOverCommit() throws Exception {
    Path f = dir.resolve("r");
    long limit = 64 * MIB;
    try (QuotaRegion r = regions.create(f, RegionConfig.memoryLimit(1, limit))) {
      List<Process> ps = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        ps.add(
            client(f, "churn", "0", "1500", Integer.toString(300 + i), Long.toString(limit / 6)));
      }
      MemoryAccount a = r.memoryAccount();
      java.util.concurrent.atomic.AtomicLong javaLive =
          new java.util.concurrent.atomic.AtomicLong();
      java.util.concurrent.atomic.AtomicLong javaGrants =
          new java.util.concurrent.atomic.AtomicLong();
      java.util.concurrent.atomic.AtomicReference<Throwable> failure =
          new java.util.concurrent.atomic.AtomicReference<>();
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(t);
        threads.add(
            new Thread(
                () -> {
                  long[] held = new long[32];
                  try {
                    while (System.nanoTime() < deadline) {
                      int k = rnd.nextInt(held.length);
                      if (held[k] != 0) {
                        a.release(0, held[k]);
                        javaLive.addAndGet(-held[k]);
                        held[k] = 0;
                      } else {
                        long sz = 1 + rnd.nextLong(limit / 6);
                        if (a.admit(0, sz)) {
                          held[k] = sz;
                          javaLive.addAndGet(sz);
                          javaGrants.incrementAndGet();
                        }
                      }
                    }
                  } catch (Throwable e) {
                    failure.set(e);
                  }
                }));
      }
      threads.forEach(Thread::start);
      long maxSeen = 0;
      int samples = 0;
      boolean killed = false;
      while (System.nanoTime() < deadline) {
        try {
          maxSeen = Math.max(maxSeen, r.usage().devices().get(0).usedBytes());
          samples++;
        } catch (RegionBusyException busy) {
          // committing all the time: the next read
        }
        if (!killed && System.nanoTime() > deadline - TimeUnit.MILLISECONDS.toNanos(900)) {
          ps.get(0).destroyForcibly().waitFor(); // kill -9, mid-admission or not
          killed = true;
        }
      }
      for (Thread t : threads) t.join();
      assertThat(failure.get()).isNull();
      long cLive = 0;
      for (Process p : ps.subList(1, ps.size()))
        cLive += Long.parseLong(firstLine(p).split(" ")[1]);
      assertThat(samples).isGreaterThan(10);
      assertThat(maxSeen).isLessThanOrEqualTo(limit);
      assertThat(javaGrants.get()).isGreaterThan(10);
      r.reap(); // the killed client's slot
      UsageSnapshot s = r.usage();
      assertThat(s.devices().get(0).usedBytes()).isEqualTo(cLive + javaLive.get());
      assertThat(s.devices().get(0).peakBytes()).isLessThanOrEqualTo(limit);
      assertThat(s.processes()).hasSize(4); // three C clients and this JVM
    }
  }
}
