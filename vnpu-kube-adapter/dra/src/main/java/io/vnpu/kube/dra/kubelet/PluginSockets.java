package io.vnpu.kube.dra.kubelet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where a DRA driver's sockets and data live: {@code <registrar dir>/<driver>-reg.sock} (the
 * kubelet's plugin watcher finds it there), {@code <plugins dir>/<driver>/dra.sock} (the endpoint
 * announced in GetInfo) and the data directory {@code <plugins dir>/<driver>} (checkpoint). Both
 * directories must have the same path inside and outside the plugin's container: the kubelet dials
 * the path we report.
 *
 * <p>Rolling updates ({@link #rollingUpdate}): two pods of the driver run at once on a node (a
 * DaemonSet with {@code maxSurge: 1}), each with its own sockets named after its pod UID, both
 * registered with the kubelet (1.33 and later keep several registrations per driver and call the
 * most recently registered one that is connected). The data directory, and so the checkpoint, is
 * the one both share.
 *
 * @param registrationSocket the registration socket
 * @param draSocket the DRA node service socket
 * @param dataDir the plugin's data directory
 */
public record PluginSockets(Path registrationSocket, Path draSocket, Path dataDir) {
  /** Longest unix socket path Linux accepts: 108 bytes of {@code sun_path} including the NUL. */
  public static final int MAX_SOCKET_PATH_BYTES = 107;

  public PluginSockets {
    check("registration socket", registrationSocket);
    check("DRA socket", draSocket);
    Objects.requireNonNull(dataDir, "dataDir");
  }

  /**
   * The standard layout for a driver.
   *
   * @throws IllegalArgumentException naming the path when a socket path is longer than {@value
   *     #MAX_SOCKET_PATH_BYTES} bytes (bind would fail with "invalid argument")
   */
  public static PluginSockets of(String driverName, Path registrarDir, Path pluginsDir) {
    Path data = pluginsDir.toAbsolutePath().resolve(driverName);
    return new PluginSockets(
        registrarDir.toAbsolutePath().resolve(driverName + "-reg.sock"),
        data.resolve("dra.sock"),
        data);
  }

  /**
   * The per-instance layout of a rolling update: the DRA socket {@code dra-<podUID>.sock} in the
   * data directory, and the first registration socket name that fits in a unix socket path: {@code
   * <driver>-<podUID>-reg.sock}, then {@code <driver>-<h8>-reg.sock} with {@code h8} the unpadded
   * base64url of the first 8 bytes of SHA-256(podUID), then {@code dra-<h16>-reg.sock} with {@code
   * h16} that of the first 16 bytes of SHA-256(driver NUL podUID) (the names of the Kubernetes
   * kubeletplugin helper).
   *
   * @param podUid the pod's {@code metadata.uid} (env {@code POD_UID} from the downward API)
   * @throws IllegalArgumentException naming the value when the pod UID is not a UID, or naming the
   *     path when even the shortest names do not fit
   */
  public static PluginSockets rollingUpdate(
      String driverName, Path registrarDir, Path pluginsDir, String podUid) {
    if (podUid == null || !POD_UID.matcher(podUid).matches()) {
      throw new IllegalArgumentException(
          "--pod-uid = "
              + io.vnpu.kube.errors.Shown.string(podUid)
              + ": must be a pod UID (lowercase letters, digits and '-', 1 to 64 characters)");
    }
    Path data = pluginsDir.toAbsolutePath().resolve(driverName);
    Path registrar = registrarDir.toAbsolutePath();
    Path reg = null;
    for (String name :
        List.of(
            driverName + "-" + podUid + "-reg.sock",
            driverName + "-" + hash(podUid, 8) + "-reg.sock",
            "dra-" + hash(driverName + "\0" + podUid, 16) + "-reg.sock")) {
      reg = registrar.resolve(name);
      if (bytes(reg) <= MAX_SOCKET_PATH_BYTES) {
        break;
      }
    }
    return new PluginSockets(reg, data.resolve("dra-" + podUid + ".sock"), data);
  }

  private static final java.util.regex.Pattern POD_UID =
      java.util.regex.Pattern.compile("[a-z0-9][-a-z0-9]{0,63}");

  private static String hash(String text, int bytes) {
    try {
      byte[] d =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(text.getBytes(StandardCharsets.UTF_8));
      return java.util.Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(java.util.Arrays.copyOf(d, bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  private static int bytes(Path p) {
    return p.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8).length;
  }

  private static void check(String what, Path p) {
    Objects.requireNonNull(p, what);
    int len = p.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8).length;
    if (len > MAX_SOCKET_PATH_BYTES) {
      throw new IllegalArgumentException(
          what
              + " path "
              + p.toAbsolutePath()
              + " is "
              + len
              + " bytes long; unix sockets allow at most "
              + MAX_SOCKET_PATH_BYTES);
    }
  }
}
