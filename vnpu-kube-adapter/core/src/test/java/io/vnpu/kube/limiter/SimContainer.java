package io.vnpu.kube.limiter;

import io.vnpu.api.slice.Mount;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a workload the way a container runtime would run it with an Allocate response: in a mount
 * namespace of its own, chrooted into a root where each of the response's mounts is bind-mounted at
 * its container path (read-only when the response says so), with exactly the response's
 * environment. The rest of the root is the host's (bind-mounted), except {@code /etc}, which is a
 * private copy so that a mount at {@code /etc/ld.so.preload} (the limiter's preload list) takes
 * effect in the container only.
 *
 * <p>The Ascend Docker Runtime's device restriction (only the chips of {@code
 * ASCEND_VISIBLE_DEVICES}, phy IDs, appear in the container, numbered from 0) is modelled with the
 * simulated runtime's {@code ASCEND_RT_VISIBLE_DEVICES} (logic IDs; logic ID = phy ID on the
 * simulated 910B3x8 host). Simulator settings ({@code VNPU_SIM_ROOT}, {@code VNPU_SIM_QUIET}) are
 * added to the environment; nothing else is.
 *
 * <p>Needs mount namespaces: root (the CI and build machines), else an unprivileged user namespace.
 */
public final class SimContainer {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private final Path work;
  private final Path simRoot;

  /**
   * @param work a private directory of the test (roots and scripts go there)
   * @param simRoot the simulated host ({@code VNPU_SIM_ROOT})
   */
  public SimContainer(Path work, Path simRoot) {
    this.work = work;
    this.simRoot = simRoot;
  }

  /** The native build directory (npu-burn, the simulators, libvnpu.so). */
  public static Path nativeDir() {
    return LimiterFixture.nativeLibrary().getParent();
  }

  /**
   * Starts {@code command} in the container. Mount targets are created only inside the container's
   * own parts of the root (new top-level directories, its {@code /etc}); a target elsewhere must
   * already exist on the host.
   *
   * @throws IllegalArgumentException for a mount whose host path does not exist (a runtime refuses
   *     the container) or whose target would have to be created on the host
   */
  public Process start(Map<String, String> env, List<Mount> mounts, List<String> command)
      throws IOException {
    Path root = work.resolve("ctr-root-" + COUNTER.incrementAndGet());
    Files.createDirectories(root);
    StringBuilder s = new StringBuilder();
    s.append("set -e\n");
    s.append("mount --make-rprivate /\n");
    s.append("R=").append(q(root.toString())).append('\n');
    s.append("mount -t tmpfs vnpu-ctr \"$R\"\n");
    s.append("for d in /*; do\n");
    s.append("  n=${d#/}\n");
    s.append("  if [ -L \"$d\" ]; then cp -P \"$d\" \"$R/$n\"; continue; fi\n");
    s.append("  [ -d \"$d\" ] || continue\n");
    s.append("  [ \"$n\" = etc ] && continue\n");
    s.append("  mkdir \"$R/$n\"; mount --rbind \"$d\" \"$R/$n\"\n");
    s.append("done\n");
    // a user namespace cannot read every file of /etc (shadow): what it can read is enough
    s.append(
        "mkdir \"$R/etc\"; mount -t tmpfs vnpu-etc \"$R/etc\"; cp -a /etc/. \"$R/etc/\" 2>/dev/null || true\n");
    for (Mount m : mounts) {
      Path host = Path.of(m.hostPath());
      if (!Files.exists(host, LinkOption.NOFOLLOW_LINKS)) {
        throw new IllegalArgumentException(
            "mount " + m.containerPath() + ": host path " + host + " does not exist");
      }
      Path target = Path.of(m.containerPath());
      String top = target.getNameCount() == 0 ? "" : target.getName(0).toString();
      boolean ours =
          top.equals("etc") || !Files.exists(Path.of("/", top), LinkOption.NOFOLLOW_LINKS);
      if (!ours && !Files.exists(target)) {
        throw new IllegalArgumentException(
            "mount " + m.containerPath() + ": the target would be created on the host");
      }
      String t = "\"$R\"" + q(m.containerPath());
      if (Files.isDirectory(host)) {
        s.append("mkdir -p ").append(t).append('\n');
      } else {
        s.append("mkdir -p \"$(dirname ")
            .append(t)
            .append(")\"; [ -e ")
            .append(t)
            .append(" ] || : > ")
            .append(t)
            .append('\n');
      }
      s.append("mount --bind ").append(q(host.toString())).append(' ').append(t).append('\n');
      if (m.readOnly()) s.append("mount -o remount,bind,ro ").append(t).append('\n');
    }
    Map<String, String> full = new LinkedHashMap<>(env);
    String visible = env.get("ASCEND_VISIBLE_DEVICES");
    if (visible != null) full.put("ASCEND_RT_VISIBLE_DEVICES", visible);
    full.put("VNPU_SIM_ROOT", simRoot.toString());
    full.put("VNPU_SIM_QUIET", "1");
    s.append("exec chroot \"$R\" /usr/bin/env -i");
    full.forEach((k, v) -> s.append(' ').append(q(k + "=" + v)));
    for (String c : command) s.append(' ').append(q(c));
    s.append('\n');
    Path script = work.resolve("ctr-" + COUNTER.get() + ".sh");
    Files.writeString(script, s.toString());
    List<String> cmd = new ArrayList<>(namespacePrefix());
    cmd.addAll(List.of("sh", script.toString()));
    return new ProcessBuilder(cmd).start();
  }

  /** Output of a finished container. */
  public record Result(int exit, List<String> out, String err) {
    /** The first output line starting with {@code prefix}. */
    public String line(String prefix) {
      return out.stream()
          .filter(l -> l.startsWith(prefix))
          .findFirst()
          .orElseThrow(
              () -> new AssertionError("no line '" + prefix + "' in " + out + "; stderr: " + err));
    }
  }

  /** Waits (at most 60 s) for a started container and collects its output. */
  public static Result finish(Process p) throws IOException, InterruptedException {
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("container did not finish in 60 s; stderr: " + err);
    }
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8).lines().toList(), err);
  }

  /** Runs {@code command} in the container to the end. */
  public Result run(Map<String, String> env, List<Mount> mounts, List<String> command)
      throws Exception {
    return finish(start(env, mounts, command));
  }

  /** The value of {@code key=} in an npu-burn result line. */
  public static long field(String line, String key) {
    for (String w : line.split(" ")) {
      if (w.startsWith(key + "=")) return Long.parseLong(w.substring(key.length() + 1));
    }
    throw new AssertionError("no " + key + " in " + line);
  }

  private static volatile Boolean available;

  /**
   * Whether this machine lets the tests make mount namespaces (a container without {@code
   * CAP_SYS_ADMIN} and without user namespaces does not); probed once.
   */
  public static boolean available() {
    Boolean a = available;
    if (a == null) {
      List<String> cmd = new ArrayList<>(namespacePrefix());
      cmd.addAll(List.of("sh", "-c", "mount --make-rprivate / && mount -t tmpfs vnpu-probe /mnt"));
      try {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        a = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
      } catch (IOException e) {
        a = false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        a = false;
      }
      available = a;
    }
    return a;
  }

  /** Why a test that needs {@link #available()} cannot run here. */
  public static final String UNAVAILABLE =
      "mount namespaces are not available (needs root with CAP_SYS_ADMIN or"
          + " unprivileged user namespaces): a container cannot be run as a runtime would";

  private static List<String> namespacePrefix() {
    // root may make mount namespaces directly; anybody else needs a user namespace for it
    return "root".equals(System.getProperty("user.name"))
        ? List.of("unshare", "--mount", "--fork")
        : List.of("unshare", "--map-root-user", "--mount", "--fork");
  }

  private static String q(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
