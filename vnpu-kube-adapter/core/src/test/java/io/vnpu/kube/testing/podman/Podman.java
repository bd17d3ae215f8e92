package io.vnpu.kube.testing.podman;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real container runtime for integration tests: podman (Debian's 4.3, crun, conmon) with its
 * storage under the test's directory, started in a private mount namespace with the settings this
 * kind of machine needs (issue 26): {@code /sys/fs/cgroup/unified} hidden and {@code
 * --cgroups=disabled} (crun refuses the hybrid cgroup layout), {@code --ulimit nofile=1024:1024
 * --ulimit nproc=4096:4096} (no {@code CAP_SYS_RESOURCE} for podman's defaults), vfs storage, the
 * cgroupfs manager, {@code --network none}, and the plugin's CDI directory bind-mounted over {@code
 * /etc/cdi} (podman 4.3 reads CDI specs only from {@code /etc/cdi} and {@code /run/cdi}; when the
 * host has no {@code /etc/cdi}, an overlay over {@code /etc} in the namespace holds the mount
 * point, so nothing on the host changes).
 *
 * <p>No image can be pulled: {@link #importImage} builds one with {@code podman import} from a
 * local root ({@code busybox-static}, npu-burn and the simulated CANN libraries with the C library
 * they need, {@link WorkloadImage}).
 *
 * <p>{@link #unavailable()} says in one line why containers cannot run here (not root, podman
 * missing, a trial container failing); tests skip with that line, printed to the log.
 */
public final class Podman {
  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static volatile Optional<String> unavailable;

  private final Path work;
  private final Path storage;
  private final Path runRoot;

  /**
   * @param work a private directory of the test (storage, run root, scripts)
   */
  public Podman(Path work) throws IOException {
    this.work = Files.createDirectories(work);
    this.storage = Files.createDirectories(work.resolve("storage"));
    this.runRoot = Files.createDirectories(work.resolve("run"));
  }

  /** A finished container. */
  public record Result(int exit, String out, String err) {
    /** Output lines. */
    public List<String> lines() {
      return out.lines().toList();
    }

    /** The first output line starting with {@code prefix}. */
    public String line(String prefix) {
      return lines().stream()
          .filter(l -> l.startsWith(prefix))
          .findFirst()
          .orElseThrow(
              () -> new AssertionError("no line '" + prefix + "' in " + out + "; stderr: " + err));
    }
  }

  /**
   * Why containers cannot run on this machine, or empty when they can. Checked once per JVM: root,
   * {@code podman}, {@code crun}, {@code conmon} and {@code unshare} on the PATH, then a trial
   * container from an imported empty-but-for-busybox image.
   */
  public static Optional<String> unavailable() {
    Optional<String> u = unavailable;
    if (u == null) {
      synchronized (Podman.class) {
        u = unavailable;
        if (u == null) {
          u = probe();
          unavailable = u;
        }
      }
    }
    return u;
  }

  /**
   * Skips the calling test, with one line in the log naming it and the reason, when containers
   * cannot run here.
   */
  public static void assumeAvailable(String test) {
    Optional<String> u = unavailable();
    if (u.isPresent()) {
      System.err.println("[vnpu] " + test + " skipped: " + u.get());
      org.junit.jupiter.api.Assumptions.abort(u.get());
    }
  }

  private static Optional<String> probe() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return Optional.of(
          "the real-runtime tests need root (mount namespaces, mknod of the"
              + " simulated device nodes); running as "
              + System.getProperty("user.name"));
    }
    for (String tool : List.of("podman", "crun", "conmon", "unshare")) {
      if (which(tool).isEmpty()) {
        return Optional.of(
            tool + " is not installed (.ci/run installs podman, crun and conmon" + " from Debian)");
      }
    }
    if (WorkloadImage.busybox().isEmpty()) {
      return Optional.of(
          "no static busybox for the test image (Debian package busybox-static;"
              + " .ci/run installs it)");
    }
    Path dir = null;
    try {
      dir = Files.createTempDirectory("vnpu-podman-probe");
      Podman p = new Podman(dir);
      Path root = Files.createDirectories(dir.resolve("rootfs/bin"));
      Files.copy(WorkloadImage.busybox().get(), root.resolve("busybox"));
      Files.createSymbolicLink(root.resolve("true"), Path.of("busybox"));
      p.importImage(dir.resolve("rootfs"), "vnpu-probe:latest");
      Result r = p.run(null, List.of(), "vnpu-probe:latest", List.of("/bin/true"), 60);
      if (r.exit() != 0) {
        return Optional.of(
            "a trial container failed (exit " + r.exit() + "): " + firstLine(r.err()));
      }
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.of("a trial container failed: " + firstLine(String.valueOf(e.getMessage())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while trying a container");
    } finally {
      if (dir != null) {
        deleteTree(dir);
      }
    }
  }

  /** {@code podman import} of the directory tree {@code rootfs} as {@code image}. */
  public void importImage(Path rootfs, String image) throws IOException, InterruptedException {
    Path tar = work.resolve("rootfs-" + COUNTER.incrementAndGet() + ".tar");
    exec(List.of("tar", "-C", rootfs.toString(), "-cf", tar.toString(), "."), 60);
    List<String> cmd = new ArrayList<>(base());
    cmd.addAll(List.of("import", tar.toString(), image));
    Result r = inNamespace(null, cmd, 120);
    Files.deleteIfExists(tar);
    if (r.exit() != 0) {
      throw new IOException(
          "podman import " + image + " failed (exit " + r.exit() + "): " + r.err().strip());
    }
  }

  /**
   * Runs a container to the end: {@code podman run --rm} with this machine's settings, then {@code
   * runArgs} (as the kubelet and runtime would turn a spec into them: {@code --device}, {@code -v},
   * {@code -e}), {@code image} and {@code command}.
   *
   * @param cdiRoot the directory the runtime reads CDI specs from, or null for none
   */
  public Result run(
      Path cdiRoot, List<String> runArgs, String image, List<String> command, long timeoutSeconds)
      throws IOException, InterruptedException {
    return inNamespace(cdiRoot, runCommand(runArgs, image, command), timeoutSeconds);
  }

  /** As {@link #run}, without waiting: the caller collects it with {@link #finish}. */
  public Process start(Path cdiRoot, List<String> runArgs, String image, List<String> command)
      throws IOException {
    return startInNamespace(cdiRoot, runCommand(runArgs, image, command));
  }

  /** Waits for a started container (at most {@code timeoutSeconds}, then kills it). */
  public static Result finish(Process p, long timeoutSeconds)
      throws IOException, InterruptedException {
    java.util.concurrent.CompletableFuture<String> out = drain(p.getInputStream());
    java.util.concurrent.CompletableFuture<String> err = drain(p.getErrorStream());
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError(
          "container did not end within " + timeoutSeconds + " s; stderr: " + err.getNow(""));
    }
    return new Result(p.exitValue(), out.join(), err.join());
  }

  /**
   * The {@code podman run} arguments for a device plugin's container answer, as the kubelet hands
   * it to the runtime in the CRI container config: each env as {@code -e}, each mount as a bind
   * {@code -v host:container[:ro]}, each DeviceSpec as {@code --device host:container:perms}.
   */
  public static List<String> allocateArgs(
      java.util.Map<String, String> envs,
      List<io.vnpu.api.slice.Mount> mounts,
      List<io.vnpu.api.slice.DeviceNode> devices) {
    List<String> args = new ArrayList<>();
    new java.util.TreeMap<>(envs).forEach((k, v) -> args.addAll(List.of("-e", k + "=" + v)));
    for (io.vnpu.api.slice.Mount m : mounts) {
      args.addAll(
          List.of("-v", m.hostPath() + ":" + m.containerPath() + (m.readOnly() ? ":ro" : "")));
    }
    for (io.vnpu.api.slice.DeviceNode d : devices) {
      args.addAll(
          List.of("--device", d.hostPath() + ":" + d.containerPath() + ":" + d.permissions()));
    }
    return args;
  }

  private List<String> runCommand(List<String> runArgs, String image, List<String> command) {
    List<String> cmd = new ArrayList<>(base());
    cmd.addAll(
        List.of(
            "run",
            "--rm",
            "--pull",
            "never",
            "--network",
            "none",
            "--cgroups",
            "disabled",
            "--ulimit",
            "nofile=1024:1024",
            "--ulimit",
            "nproc=4096:4096"));
    cmd.addAll(runArgs);
    cmd.add(image);
    cmd.addAll(command);
    return cmd;
  }

  /**
   * Runs {@code podman <global options> ARGS} (e.g. {@code build ...}) in the namespace, to the
   * end.
   */
  public Result podman(List<String> args, long timeoutSeconds)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(base());
    cmd.addAll(args);
    return inNamespace(null, cmd, timeoutSeconds);
  }

  private List<String> base() {
    return List.of(
        "podman",
        "--root",
        storage.toString(),
        "--runroot",
        runRoot.toString(),
        "--storage-driver",
        "vfs",
        "--cgroup-manager",
        "cgroupfs",
        "--events-backend",
        "file",
        "--runtime",
        "crun");
  }

  private Result inNamespace(Path cdiRoot, List<String> podman, long timeoutSeconds)
      throws IOException, InterruptedException {
    return finish(startInNamespace(cdiRoot, podman), timeoutSeconds);
  }

  private Process startInNamespace(Path cdiRoot, List<String> podman) throws IOException {
    int n = COUNTER.incrementAndGet();
    StringBuilder s = new StringBuilder("set -e\nmount --make-rprivate /\n");
    s.append(
        "if [ -d /sys/fs/cgroup/unified ]; then mount -t tmpfs vnpu-nocg /sys/fs/cgroup/unified; fi\n");
    // only the test's CDI directory: none of the host's specs
    s.append("if [ -d /run/cdi ]; then mount -t tmpfs vnpu-nocdi /run/cdi; fi\n");
    if (cdiRoot != null) {
      Path up = work.resolve("etc-" + n);
      s.append("if [ ! -d /etc/cdi ]; then\n");
      s.append("  mkdir -p ")
          .append(q(up + "/upper"))
          .append(' ')
          .append(q(up + "/work"))
          .append('\n');
      s.append("  mount -t overlay vnpu-etc -o lowerdir=/etc,upperdir=")
          .append(up)
          .append("/upper,workdir=")
          .append(up)
          .append("/work /etc\n");
      s.append("  mkdir /etc/cdi\nfi\n");
      s.append("mount --bind ").append(q(cdiRoot.toString())).append(" /etc/cdi\n");
    }
    s.append("exec");
    for (String a : podman) {
      s.append(' ').append(q(a));
    }
    s.append('\n');
    Path script = work.resolve("podman-" + n + ".sh");
    Files.writeString(script, s.toString());
    return new ProcessBuilder("unshare", "--mount", "--fork", "sh", script.toString()).start();
  }

  private static Result exec(List<String> cmd, long timeoutSeconds)
      throws IOException, InterruptedException {
    Result r = finish(new ProcessBuilder(cmd).start(), timeoutSeconds);
    if (r.exit() != 0) {
      throw new IOException(
          String.join(" ", cmd) + " failed (exit " + r.exit() + "): " + r.err().strip());
    }
    return r;
  }

  private static java.util.concurrent.CompletableFuture<String> drain(java.io.InputStream in) {
    return java.util.concurrent.CompletableFuture.supplyAsync(
        () -> {
          try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            return "";
          }
        });
  }

  /** The file of {@code tool} on the PATH. */
  static Optional<Path> which(String tool) {
    String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    Set<String> dirs = new LinkedHashSet<>(List.of(path.split(":")));
    dirs.addAll(List.of("/usr/sbin", "/usr/bin", "/sbin", "/bin"));
    for (String d : dirs) {
      if (d.isEmpty()) {
        continue;
      }
      Path p = Path.of(d, tool);
      if (Files.isExecutable(p) && !Files.isDirectory(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  private static String firstLine(String s) {
    return s.strip().lines().findFirst().orElse("(no message)");
  }

  static void deleteTree(Path dir) {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // a leftover in the temporary directory is harmless
                }
              });
    } catch (IOException e) {
      // as above
    }
  }

  static boolean isFile(Path p) {
    return Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS);
  }

  private static String q(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
