package io.vnpu.quota.host.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildSupervisorTest {

  /** A signal source the test fires by hand. */
  static final class ManualSignals implements SignalSource {
    volatile Consumer<UnixSignal> handler;
    final List<Set<UnixSignal>> subscribed = new ArrayList<>();
    volatile boolean closed;

    @Override
    public Subscription subscribe(Set<UnixSignal> signals, Consumer<UnixSignal> h) {
      subscribed.add(signals);
      handler = h;
      return () -> closed = true;
    }
  }

  private final ByteArrayOutputStream diag = new ByteArrayOutputStream();
  private final PrintStream diagOut = new PrintStream(diag, true, StandardCharsets.UTF_8);

  private ChildSupervisor supervisor(SignalSource src) {
    return new ChildSupervisor(src, new LibcSignalSender(), ChildSupervisor.FORWARDED, diagOut);
  }

  private static ChildCommand sh(String script) {
    return new ChildCommand(List.of("/bin/sh", "-c", script), Map.of(), null);
  }

  @Test
  void exitCodeOfTheChildIsReturned() throws Exception {
    ManualSignals src = new ManualSignals();
    assertThat(supervisor(src).run(sh("exit 3")).code()).isEqualTo(3);
    assertThat(src.subscribed)
        .containsExactly(Set.of(UnixSignal.INT, UnixSignal.TERM, UnixSignal.HUP));
    assertThat(src.closed).isTrue();
  }

  @Test
  void environmentAndWorkingDirectoryReachTheChild(@TempDir Path dir) throws Exception {
    ChildCommand cmd =
        new ChildCommand(
            List.of(
                "/bin/sh",
                "-c",
                "[ \"$VNPU_TEST_X\" = hello ] && [ \"$(pwd -P)\" = \"$1\" ] && exit 5; exit 1",
                "sh",
                dir.toRealPath().toString()),
            Map.of("VNPU_TEST_X", "hello"),
            dir);
    assertThat(supervisor(new ManualSignals()).run(cmd).code()).isEqualTo(5);
  }

  @Test
  void aForwardedSignalReachesTheChildWhichChoosesItsExitCode(@TempDir Path dir) throws Exception {
    ManualSignals src = new ManualSignals();
    ChildSupervisor sup = supervisor(src);
    Path ready = dir.resolve("ready");
    CompletableFuture<ExitStatus> run =
        runAsync(sup, sh("trap 'exit 42' HUP; touch " + ready + "; while :; do sleep 0.05; done"));
    waitFor(ready);
    src.handler.accept(UnixSignal.HUP);
    assertThat(run.get(10, TimeUnit.SECONDS).code()).isEqualTo(42);
  }

  @Test
  void aChildKilledByAForwardedSignalGives128PlusTheSignal(@TempDir Path dir) throws Exception {
    ManualSignals src = new ManualSignals();
    ChildSupervisor sup = supervisor(src);
    CompletableFuture<ExitStatus> run =
        runAsync(sup, new ChildCommand(List.of("sleep", "30"), Map.of(), null));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (sup.childPid() < 0 && System.nanoTime() < deadline) Thread.sleep(10);
    src.handler.accept(UnixSignal.INT);
    ExitStatus st = run.get(10, TimeUnit.SECONDS);
    assertThat(st.code()).isEqualTo(130);
    assertThat(st.describe()).isEqualTo("exit 130 (SIGINT)");
    assertThat(sup.childPid()).isEqualTo(-1);
  }

  @Test
  void aSignalBeforeTheStartMeansTheCommandNeverRuns(@TempDir Path dir) throws Exception {
    SignalSource early =
        (signals, h) -> {
          h.accept(UnixSignal.TERM);
          return () -> {};
        };
    Path marker = dir.resolve("ran");
    ExitStatus st = supervisor(early).run(sh("touch " + marker));
    assertThat(st.code()).isEqualTo(143);
    assertThat(marker).doesNotExist();
  }

  @Test
  void aMissingProgramIs127AndNamesIt() {
    assertThatThrownBy(
            () ->
                supervisor(new ManualSignals())
                    .run(new ChildCommand(List.of("vnpu-no-such-program-xyz"), Map.of(), null)))
        .isInstanceOfSatisfying(
            CommandLaunchException.class, e -> assertThat(e.status().code()).isEqualTo(127))
        .hasMessage("vnpu-no-such-program-xyz: command not found");
  }

  @Test
  void aFileThatIsNotExecutableIs126(@TempDir Path dir) throws Exception {
    Path f = Files.writeString(dir.resolve("script"), "#!/bin/sh\nexit 0\n");
    assertThatThrownBy(
            () ->
                supervisor(new ManualSignals())
                    .run(new ChildCommand(List.of(f.toString()), Map.of(), null)))
        .isInstanceOfSatisfying(
            CommandLaunchException.class, e -> assertThat(e.status().code()).isEqualTo(126))
        .hasMessageStartingWith(f + ": cannot execute: ");
  }

  @Test
  void aSupervisorRunsOnlyOnce() throws Exception {
    ChildSupervisor sup = supervisor(new ManualSignals());
    sup.run(sh("exit 0"));
    assertThatThrownBy(() -> sup.run(sh("exit 0"))).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aFailedForwardIsReportedAndTheRunGoesOn(@TempDir Path dir) throws Exception {
    ManualSignals src = new ManualSignals();
    SignalSender broken =
        (pid, s) -> {
          throw new java.io.IOException("kill(" + pid + ", " + s.fullName() + ") failed: errno 1");
        };
    ChildSupervisor sup = new ChildSupervisor(src, broken, ChildSupervisor.FORWARDED, diagOut);
    Path ready = dir.resolve("ready");
    Path go = dir.resolve("go");
    CompletableFuture<ExitStatus> run =
        runAsync(
            sup, sh("touch " + ready + "; while [ ! -e " + go + " ]; do sleep 0.02; done; exit 9"));
    waitFor(ready);
    src.handler.accept(UnixSignal.TERM);
    Files.writeString(go, "");
    assertThat(run.get(10, TimeUnit.SECONDS).code()).isEqualTo(9);
    assertThat(diag.toString(StandardCharsets.UTF_8))
        .startsWith("vnpu: could not forward SIGTERM to pid ")
        .contains("failed: errno 1");
  }

  private static CompletableFuture<ExitStatus> runAsync(ChildSupervisor sup, ChildCommand cmd) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return sup.run(cmd);
          } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        });
  }

  private static void waitFor(Path file) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!Files.exists(file)) {
      if (System.nanoTime() > deadline) throw new AssertionError("child never created " + file);
      Thread.sleep(10);
    }
  }
}
