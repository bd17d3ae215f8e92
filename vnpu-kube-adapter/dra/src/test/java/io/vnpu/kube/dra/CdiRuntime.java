package io.vnpu.kube.dra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * What a container runtime does with a CDI spec for one device, done on the host for a test: the
 * env of the spec and the device, and the bind mounts as path substitutions (a container path under
 * a mount's {@code containerPath} is the same path under its {@code hostPath}); the preload list
 * mounted at {@code /etc/ld.so.preload} becomes {@code LD_PRELOAD} with its entries resolved the
 * same way (the host's dynamic linker does not read the mounted file).
 */
final class CdiRuntime {
  private final Map<String, String> env = new LinkedHashMap<>();

  /** container path → host path, longest first when resolving. */
  private final TreeMap<String, String> mounts = new TreeMap<>();

  private CdiRuntime() {}

  /** The edits of CDI device {@code deviceName} of the spec in {@code specFile}. */
  static CdiRuntime of(Path specFile, String deviceName) throws IOException {
    JsonNode spec = new ObjectMapper().readTree(Files.readAllBytes(specFile));
    CdiRuntime r = new CdiRuntime();
    r.apply(spec.get("containerEdits"));
    boolean found = false;
    for (JsonNode d : spec.get("devices")) {
      if (d.get("name").asString().equals(deviceName)) {
        r.apply(d.get("containerEdits"));
        found = true;
      }
    }
    if (!found) {
      throw new IllegalArgumentException(specFile + ": no CDI device " + deviceName);
    }
    return r;
  }

  private void apply(JsonNode edits) {
    if (edits == null) {
      return;
    }
    if (edits.has("env")) {
      for (JsonNode e : edits.get("env")) {
        String kv = e.asString();
        int eq = kv.indexOf('=');
        env.put(kv.substring(0, eq), kv.substring(eq + 1));
      }
    }
    if (edits.has("mounts")) {
      for (JsonNode m : edits.get("mounts")) {
        mounts.put(m.get("containerPath").asString(), m.get("hostPath").asString());
      }
    }
  }

  /** The container's env as the spec sets it. */
  Map<String, String> env() {
    return env;
  }

  /** Container mounts: container path → host path. */
  Map<String, String> mounts() {
    return mounts;
  }

  /** The host path a container path reaches through the mounts; unchanged when none covers it. */
  Path resolve(String containerPath) {
    String best = null;
    for (String c : mounts.keySet()) {
      if ((containerPath.equals(c) || containerPath.startsWith(c + "/"))
          && (best == null || c.length() > best.length())) {
        best = c;
      }
    }
    return Path.of(
        best == null ? containerPath : mounts.get(best) + containerPath.substring(best.length()));
  }

  /**
   * npu-burn from the native build with {@code args}, under this container's env: every {@code
   * NPU_}/{@code VNPU_}/{@code LD_PRELOAD} of the test JVM removed, the spec's env with {@code
   * NPU_LOCAL_SHM_PATH} resolved, {@code LD_PRELOAD} from the mounted preload list, and the
   * simulated CANN runtime at {@code simRoot}.
   */
  ProcessBuilder npuBurn(Path simRoot, String... args) throws IOException {
    Path nativeDir =
        Path.of(System.getProperty("vnpu.native.dir", System.getenv("VNPU_NATIVE_DIR")));
    List<String> cmd = new ArrayList<>(List.of(nativeDir.resolve("npu-burn").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> e = pb.environment();
    e.keySet()
        .removeIf(k -> k.startsWith("NPU_") || k.startsWith("VNPU_") || k.equals("LD_PRELOAD"));
    e.putAll(env);
    if (env.containsKey("NPU_LOCAL_SHM_PATH")) {
      e.put("NPU_LOCAL_SHM_PATH", resolve(env.get("NPU_LOCAL_SHM_PATH")).toString());
    }
    Path preload = resolve("/etc/ld.so.preload");
    if (mounts.containsKey("/etc/ld.so.preload")) {
      List<String> libs = new ArrayList<>();
      for (String line : Files.readAllLines(preload, StandardCharsets.US_ASCII)) {
        if (!line.isBlank()) {
          libs.add(resolve(line.trim()).toString());
        }
      }
      e.put("LD_PRELOAD", String.join(":", libs));
    }
    e.put("VNPU_SIM_ROOT", simRoot.toString());
    e.put("VNPU_SIM_QUIET", "1");
    return pb;
  }
}
