package io.vnpu.kube.testing.podman;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tiny image the real-runtime tests run: a static busybox (Debian {@code busybox-static}) as
 * {@code /bin/sh} and the usual tools, {@code /opt/npu/npu-burn} with the simulated CANN runtime
 * ({@code libascendcl.so}, {@code libruntime.so}) beside it and the C library the native build
 * links (found with {@code ldd}), so the limiter that a spec mounts in loads as well.
 *
 * <p>{@code /opt/npu/burn} runs npu-burn on the chips the container was given: a real driver shows
 * a container the chips whose {@code /dev/davinciN} nodes it has; the simulated CANN runtime is one
 * process-wide view of the simulated host and takes that list from {@code
 * ASCEND_RT_VISIBLE_DEVICES} (logic ID = phy ID on the 910B3x8 profile), so the script sets it from
 * the device nodes the runtime created in the container, and nothing else.
 */
public final class WorkloadImage {
  /** The image name after {@link #build}. */
  public static final String NAME = "vnpu-workload:latest";

  private static final List<String> TOOLS =
      List.of(
          "sh", "ls", "cat", "stat", "env", "grep", "head", "sleep", "true", "echo", "test", "[");

  private WorkloadImage() {}

  /** A statically linked busybox on this machine. */
  public static Optional<Path> busybox() {
    for (String p : List.of("/bin/busybox", "/usr/bin/busybox")) {
      Path b = Path.of(p);
      if (Files.isExecutable(b) && isStatic(b)) {
        return Optional.of(b);
      }
    }
    return Optional.empty();
  }

  /** Builds the root under {@code work} and imports it into {@code podman} as {@link #NAME}. */
  public static void build(Podman podman, Path work, Path nativeDir)
      throws IOException, InterruptedException {
    Path root = work.resolve("workload-rootfs");
    for (String d : List.of("bin", "opt/npu", "etc", "dev", "proc", "sys", "tmp", "var")) {
      Files.createDirectories(root.resolve(d));
    }
    Files.copy(
        busybox().orElseThrow(() -> new IOException("no static busybox")),
        root.resolve("bin/busybox"));
    for (String t : TOOLS) {
      Files.createSymbolicLink(root.resolve("bin").resolve(t), Path.of("busybox"));
    }
    for (String f : List.of("npu-burn", "libascendcl.so", "libruntime.so")) {
      Files.copy(nativeDir.resolve(f), root.resolve("opt/npu").resolve(f));
    }
    Set<Path> libs = new LinkedHashSet<>();
    libs.addAll(sharedLibraries(nativeDir.resolve("npu-burn")));
    libs.addAll(sharedLibraries(nativeDir.resolve("libvnpu.so")));
    for (Path lib : libs) {
      if (lib.startsWith(nativeDir)) {
        continue;
      }
      Path target = root.resolve(lib.toString().substring(1));
      Files.createDirectories(target.getParent());
      if (!Files.exists(target)) {
        Files.copy(lib.toRealPath(), target);
      }
    }
    Files.writeString(root.resolve("etc/passwd"), "root:x:0:0:root:/:/bin/sh\n");
    Path burn = root.resolve("opt/npu/burn");
    Files.writeString(
        burn,
        String.join(
            "\n",
            "#!/bin/sh",
            "# the chips of this container are the /dev/davinciN nodes the runtime created",
            "v=",
            "for d in /dev/davinci[0-9]*; do",
            "  [ -c \"$d\" ] || continue",
            "  v=\"${v:+$v,}${d#/dev/davinci}\"",
            "done",
            "export ASCEND_RT_VISIBLE_DEVICES=\"${v:-none}\"",
            "exec /opt/npu/npu-burn \"$@\"",
            ""));
    Files.setPosixFilePermissions(burn, PosixFilePermissions.fromString("rwxr-xr-x"));
    podman.importImage(root, NAME);
  }

  private static final Pattern LDD = Pattern.compile("(?:=>\\s*)?(/\\S+)\\s+\\(0x");

  /** The absolute paths {@code ldd} resolves for {@code elf}, the dynamic loader included. */
  static Set<Path> sharedLibraries(Path elf) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("ldd", elf.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("ldd " + elf + " failed: " + out.strip());
    }
    Set<Path> libs = new LinkedHashSet<>();
    for (String line : out.split("\n")) {
      Matcher m = LDD.matcher(line.trim());
      if (m.find()) {
        libs.add(Path.of(m.group(1)));
      }
    }
    return libs;
  }

  private static boolean isStatic(Path elf) {
    try {
      Process p = new ProcessBuilder("ldd", elf.toString()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(30, TimeUnit.SECONDS);
      return out.contains("not a dynamic executable") || out.contains("statically linked");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
