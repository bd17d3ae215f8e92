package io.vnpu.kube.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./vnpu} launcher at the repository root rebuilds the CLI jar exactly when a file it is
 * built from is newer than the jar. The real script runs in a copy of the checkout's layout, with
 * {@code mvn} and {@code java} stand-ins first on the PATH: {@code mvn} records each call and, like
 * Maven with nothing to recompile, leaves an existing jar as it is.
 */
class LauncherTest {
  /** The repository root: this test runs in vnpu-kube-adapter/cli. */
  private static final Path REPO = Path.of("").toAbsolutePath().getParent().getParent();

  private static final String JAR = "vnpu-kube-adapter/cli/target/vnpu-cli-0.1.0-SNAPSHOT-all.jar";
  private static final Instant BUILT = Instant.now().minusSeconds(3600);

  /** What a launcher call printed and how often it ran Maven. */
  private record Call(int exit, String out, String err, int mavenRuns) {}

  @TempDir Path dir;
  private Path checkout;
  private Path mvnLog;
  private Path bin;

  @BeforeEach
  void layout() throws IOException {
    checkout = Files.createDirectories(dir.resolve("vnpu"));
    Path script = checkout.resolve("vnpu");
    Files.copy(REPO.resolve("vnpu"), script);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    for (String f :
        List.of(
            "pom.xml",
            "vnpu-quota/pom.xml",
            "vnpu-quota/src/main/java/io/vnpu/quota/A.java",
            "vnpu-quota/src/test/java/io/vnpu/quota/ATest.java",
            "vnpu-quota/target/classes/io/vnpu/quota/A.class",
            "vnpu-kube-adapter/pom.xml",
            "vnpu-kube-adapter/cli/pom.xml",
            "vnpu-kube-adapter/cli/src/main/java/io/vnpu/kube/cli/VnpuCli.java",
            "vnpu-kube-adapter/it-dra/src/test/java/io/vnpu/kube/it/DraIT.java",
            "native/Makefile",
            "native/limiter/compute.c",
            "native/build/libvnpu.so",
            "native/target/spotless-index",
            "docs/operations.md")) {
      write(f, BUILT.minusSeconds(60));
    }
    write(JAR, BUILT);

    bin = Files.createDirectories(dir.resolve("bin"));
    mvnLog = dir.resolve("mvn.log");
    stub("mvn", "echo \"$*\" >> '" + mvnLog + "'\n");
    stub("java", "echo \"java $*\"\n");
  }

  private void write(String relative, Instant mtime) throws IOException {
    Path f = checkout.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, relative);
    Files.setLastModifiedTime(f, FileTime.from(mtime));
  }

  private void touch(String relative, Instant mtime) throws IOException {
    Files.setLastModifiedTime(checkout.resolve(relative), FileTime.from(mtime));
  }

  private void stub(String name, String body) throws IOException {
    Path f = bin.resolve(name);
    Files.writeString(f, "#!/bin/sh\n" + body);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private Process start(String tag) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(checkout.resolve("vnpu").toString(), "--version");
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.redirectOutput(dir.resolve(tag + ".out").toFile());
    pb.redirectError(dir.resolve(tag + ".err").toFile());
    return pb.start();
  }

  /** Waits for {@code p}; the Maven runs are those of every launcher since the last call. */
  private Call finish(Process p, String tag) throws Exception {
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("launcher finished").isTrue();
    int runs = Files.exists(mvnLog) ? Files.readAllLines(mvnLog, StandardCharsets.UTF_8).size() : 0;
    Files.deleteIfExists(mvnLog);
    return new Call(
        p.exitValue(),
        Files.readString(dir.resolve(tag + ".out"), StandardCharsets.UTF_8),
        Files.readString(dir.resolve(tag + ".err"), StandardCharsets.UTF_8),
        runs);
  }

  private Call launch() throws Exception {
    return finish(start("call"), "call");
  }

  @Test
  void aCurrentJarRunsWithoutBuilding() throws Exception {
    Call call = launch();
    assertThat(call.mavenRuns()).isZero();
    assertThat(call.err()).isEmpty();
    assertThat(call.out()).contains("-jar " + checkout.resolve(JAR)).contains("--version");
  }

  @Test
  void filesTheJarIsNotBuiltFromDoNotRebuildIt() throws Exception {
    // spotless:apply rewrites native/target/spotless-index; tests and docs are not in the jar
    for (String f :
        List.of(
            "native/target/spotless-index",
            "native/build/libvnpu.so",
            "vnpu-quota/src/test/java/io/vnpu/quota/ATest.java",
            "vnpu-quota/target/classes/io/vnpu/quota/A.class",
            "vnpu-kube-adapter/it-dra/src/test/java/io/vnpu/kube/it/DraIT.java",
            "docs/operations.md")) {
      touch(f, BUILT.plusSeconds(60));
    }
    Call call = launch();
    assertThat(call.mavenRuns()).isZero();
    assertThat(call.err()).isEmpty();
  }

  @Test
  void aChangedSourceRebuildsOnceNamingIt() throws Exception {
    for (String f :
        List.of(
            "vnpu-quota/src/main/java/io/vnpu/quota/A.java",
            "vnpu-kube-adapter/cli/src/main/java/io/vnpu/kube/cli/VnpuCli.java",
            "vnpu-kube-adapter/pom.xml",
            "pom.xml",
            // the jar stays as it was (Maven has nothing to repackage): still built once only
            "native/limiter/compute.c")) {
      touch(JAR, BUILT);
      touch(f, Instant.now().minusSeconds(5));
      Call first = launch();
      assertThat(first.mavenRuns()).as(f).isEqualTo(1);
      assertThat(first.err()).as(f).contains("building the CLI with Maven (" + f + " changed");
      assertThat(first.out()).as(f).contains("--version");
      Call second = launch();
      assertThat(second.mavenRuns()).as(f + ", second call").isZero();
      assertThat(second.err()).as(f + ", second call").isEmpty();
      touch(f, BUILT.minusSeconds(60));
    }
  }

  @Test
  void aMissingJarOrNativeBuildIsBuilt() throws Exception {
    Files.delete(checkout.resolve("native/build/libvnpu.so"));
    Files.delete(checkout.resolve("native/build"));
    Call call = launch();
    assertThat(call.mavenRuns()).isEqualTo(1);
    assertThat(call.err()).contains("(no native/build yet;");

    Files.delete(checkout.resolve(JAR));
    call = launch();
    assertThat(call.mavenRuns()).isEqualTo(1);
    assertThat(call.exit()).isEqualTo(1);
    assertThat(call.err())
        .contains("(no CLI jar yet;")
        .contains("wrote no " + checkout.resolve(JAR));
  }

  @Test
  void aFailedBuildShowsItsLogAndStops() throws Exception {
    stub(
        "mvn",
        "echo \"$*\" >> '" + mvnLog + "'\necho '[ERROR] A.java:[3,1] class expected'\nexit 1\n");
    touch("vnpu-quota/src/main/java/io/vnpu/quota/A.java", Instant.now().minusSeconds(5));
    Call call = launch();
    assertThat(call.exit()).isEqualTo(1);
    assertThat(call.err()).contains("A.java:[3,1] class expected").contains("build failed");
    assertThat(call.out()).isEmpty();
  }

  @Test
  void twoCallsAtOnceBuildOnce() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/flock")) || Files.isExecutable(Path.of("/bin/flock")),
        "flock (util-linux) is not installed: the launcher then builds without a lock");
    // a build that takes a while, as Maven's does: the second call comes while it runs
    stub("mvn", "echo \"$*\" >> '" + mvnLog + "'\nsleep 2\n");
    touch("vnpu-quota/src/main/java/io/vnpu/quota/A.java", Instant.now().minusSeconds(5));
    Process first = start("first");
    Thread.sleep(500);
    Process second = start("second");
    Call b = finish(second, "second");
    Call a = finish(first, "first");
    assertThat(a.mavenRuns() + b.mavenRuns()).as("Maven runs of both calls").isEqualTo(1);
    assertThat(a.err()).contains("building the CLI with Maven");
    assertThat(b.err()).contains("another ./vnpu is building the CLI; waiting for it");
    assertThat(b.err()).doesNotContain("building the CLI with Maven");
    assertThat(a.out()).contains("--version");
    assertThat(b.out()).contains("--version");
    assertThat(a.exit()).isZero();
    assertThat(b.exit()).isZero();
  }

  @Test
  void aSourceDatedInTheFutureIsNamedOnce() throws Exception {
    touch("native/limiter/compute.c", Instant.now().plusSeconds(3600));
    Call call = launch();
    assertThat(call.mavenRuns()).isEqualTo(1);
    assertThat(call.err())
        .contains("native/limiter/compute.c: modification time is in the future")
        .contains("touch '" + checkout.resolve("native/limiter/compute.c") + "'");
  }
}
