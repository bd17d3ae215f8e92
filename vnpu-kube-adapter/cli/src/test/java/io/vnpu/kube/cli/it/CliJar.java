package io.vnpu.kube.cli.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the built shaded CLI jar (system property {@code shaded.jar}) as a separate JVM, as a user
 * would through {@code ./vnpu}: {@code vnpu.native.dir} set, a private simulator root and state
 * dir.
 */
final class CliJar {

  /** A finished run. */
  record Result(int exitCode, String stdout, String stderr) {}

  private final Path jar = Path.of(required("shaded.jar"));
  private final Path nativeDir = Path.of(required("vnpu.native.dir"));
  private final Path stateDir;
  private final Path simRoot;
  private final Path logs;

  CliJar(Path scratch) throws IOException {
    this.stateDir = Files.createDirectories(scratch.resolve("state"));
    this.simRoot = Files.createDirectories(scratch.resolve("sim"));
    this.logs = Files.createDirectories(scratch.resolve("logs"));
  }

  static String required(String property) {
    String v = System.getProperty(property);
    if (v == null || v.isBlank())
      throw new IllegalStateException("system property " + property + " is not set");
    return v;
  }

  Path nativeDir() {
    return nativeDir;
  }

  Path stateDir() {
    return stateDir;
  }

  Path simRoot() {
    return simRoot;
  }

  /** Starts {@code vnpu ARGS}; stdout and stderr go to files named after {@code tag}. */
  Process start(String tag, List<String> args) throws IOException {
    return start(tag, args, Map.of());
  }

  /** As {@link #start(String, List)}, with {@code extraEnv} added to the environment. */
  Process start(String tag, List<String> args, Map<String, String> extraEnv) throws IOException {
    return start(tag, new ProcessBuilder(command(args)), extraEnv);
  }

  /** {@code java -jar} of the shaded jar with {@code args}. */
  private List<String> command(List<String> args) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dvnpu.native.dir=" + nativeDir,
                "-jar",
                jar.toString()));
    cmd.addAll(args);
    return cmd;
  }

  /**
   * Starts {@code pb} with the private state dir and simulator root, then {@code extraEnv}, in its
   * environment and its output in {@code <tag>.out} and {@code <tag>.err}.
   */
  private Process start(String tag, ProcessBuilder pb, Map<String, String> extraEnv)
      throws IOException {
    Map<String, String> env = pb.environment();
    env.put("VNPU_STATE_DIR", stateDir.toString());
    env.put("VNPU_SIM_ROOT", simRoot.toString());
    env.remove("VNPU_DCMI_LIBRARY");
    env.putAll(extraEnv);
    pb.redirectOutput(logs.resolve(tag + ".out").toFile());
    pb.redirectError(logs.resolve(tag + ".err").toFile());
    return pb.start();
  }

  /**
   * Starts {@code vnpu ARGS} on a pseudo-terminal of its own, as a user at a terminal runs it:
   * util-linux {@code script} opens the terminal, makes it the controlling terminal of the command
   * and copies its output to {@code <tag>.out}. Bytes written to the returned process's standard
   * input arrive as key presses.
   */
  Process startOnTerminal(String tag, List<String> args) throws IOException {
    StringBuilder line = new StringBuilder("exec");
    for (String a : command(args)) line.append(" '").append(a.replace("'", "'\\''")).append('\'');
    // -q no banner, -e the command's exit code, -f output written as it comes
    ProcessBuilder pb =
        new ProcessBuilder("script", "-q", "-e", "-f", "-c", line.toString(), "/dev/null");
    return start(tag, pb, Map.of("TERM", "xterm"));
  }

  /** Runs {@code vnpu ARGS} to the end (at most {@code timeoutSeconds}). */
  Result run(String tag, List<String> args, long timeoutSeconds)
      throws IOException, InterruptedException {
    Process p = start(tag, args);
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError(
          "vnpu " + args + " did not end within " + timeoutSeconds + " s; stderr: " + err(tag));
    }
    return new Result(p.exitValue(), out(tag), err(tag));
  }

  String out(String tag) throws IOException {
    return Files.readString(logs.resolve(tag + ".out"), StandardCharsets.UTF_8);
  }

  String err(String tag) throws IOException {
    return Files.readString(logs.resolve(tag + ".err"), StandardCharsets.UTF_8);
  }

  /** Waits until {@code file} exists. */
  static void await(Path file, long timeoutSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (!Files.exists(file)) {
      if (System.nanoTime() > deadline)
        throw new AssertionError(file + " did not appear within " + timeoutSeconds + " s");
      Thread.sleep(20);
    }
  }
}
