package io.vnpu.quota.limiter;

import io.vnpu.quota.NativeDir;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the npu-burn workload on the simulated CANN runtime with libvnpu.so preloaded. */
final class NpuBurn {
  private final Path simRoot;
  private final Map<String, String> env = new HashMap<>();
  private boolean preload = true;
  private final List<String> wrapper = new ArrayList<>();
  private Path programs;

  NpuBurn(Path simRoot) {
    this.simRoot = simRoot;
  }

  NpuBurn env(String key, String value) {
    env.put(key, value);
    return this;
  }

  NpuBurn withoutLimiter() {
    preload = false;
    return this;
  }

  /** Runs every command through {@code command} (e.g. setpriv to change the user). */
  NpuBurn wrappedBy(String... command) {
    wrapper.addAll(List.of(command));
    return this;
  }

  /**
   * Runs npu-burn and libvnpu.so from {@code dir} instead of the native build directory: another
   * user cannot reach a checkout under a private (0700) directory such as a home or a mktemp dir.
   */
  NpuBurn programsIn(Path dir) {
    programs = dir;
    return this;
  }

  private Path program(String name) {
    return programs == null ? NativeDir.program(name) : programs.resolve(name);
  }

  ProcessBuilder builder(List<String> command) {
    List<String> full = new ArrayList<>(wrapper);
    full.addAll(command);
    ProcessBuilder pb = new ProcessBuilder(full);
    Map<String, String> e = pb.environment();
    e.keySet()
        .removeIf(k -> k.startsWith("NPU_") || k.startsWith("VNPU_") || k.equals("LD_PRELOAD"));
    e.put("VNPU_SIM_ROOT", simRoot.toString());
    e.put("VNPU_SIM_QUIET", "1");
    if (preload) e.put("LD_PRELOAD", program("libvnpu.so").toString());
    e.putAll(env);
    return pb;
  }

  Process start(String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(program("npu-burn").toString());
    cmd.addAll(List.of(args));
    return builder(cmd).start();
  }

  Result run(String... args) throws IOException, InterruptedException {
    Process p = start(args);
    return Result.of(p);
  }

  /** Output of a finished run. */
  record Result(int exit, List<String> out, List<String> err) {
    static Result of(Process p) throws IOException, InterruptedException {
      byte[] o = p.getInputStream().readAllBytes();
      byte[] e = p.getErrorStream().readAllBytes();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("npu-burn did not finish");
      }
      return new Result(p.exitValue(), lines(o), lines(e));
    }

    private static List<String> lines(byte[] b) {
      String s = new String(b, StandardCharsets.UTF_8);
      return s.isEmpty() ? List.of() : List.of(s.split("\n"));
    }

    /** Lines starting with {@code prefix}, as key=value maps. */
    List<Map<String, String>> lines(String prefix) {
      List<Map<String, String>> r = new ArrayList<>();
      for (String l : out) if (l.startsWith(prefix)) r.add(kv(l));
      return r;
    }
  }

  /**
   * key=value words of one npu-burn result line (the words before the first '=' word are "step").
   */
  static Map<String, String> kv(String line) {
    Map<String, String> m = new HashMap<>();
    StringBuilder step = new StringBuilder();
    for (String w : line.trim().split(" ")) {
      int eq = w.indexOf('=');
      if (eq > 0) m.put(w.substring(0, eq), w.substring(eq + 1));
      else step.append(step.length() == 0 ? "" : " ").append(w);
    }
    m.put("step", step.toString());
    return m;
  }
}
