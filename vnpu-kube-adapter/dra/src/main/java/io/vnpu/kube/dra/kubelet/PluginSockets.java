package io.vnpu.kube.dra.kubelet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a DRA driver's sockets and data live:
 * {@code <registrar dir>/<driver>-reg.sock} (the kubelet's plugin watcher finds it there),
 * {@code <plugins dir>/<driver>/dra.sock} (the endpoint announced in GetInfo) and the data directory
 * {@code <plugins dir>/<driver>} (checkpoint). Both directories must have the same path inside and
 * outside the plugin's container: the kubelet dials the path we report.
 *
 * @param registrationSocket the registration socket
 * @param draSocket          the DRA node service socket
 * @param dataDir            the plugin's data directory
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
   * @throws IllegalArgumentException naming the path when a socket path is longer than
   *     {@value #MAX_SOCKET_PATH_BYTES} bytes (bind would fail with "invalid argument")
   */
  public static PluginSockets of(String driverName, Path registrarDir, Path pluginsDir) {
    Path data = pluginsDir.toAbsolutePath().resolve(driverName);
    return new PluginSockets(registrarDir.toAbsolutePath().resolve(driverName + "-reg.sock"),
        data.resolve("dra.sock"), data);
  }

  private static void check(String what, Path p) {
    Objects.requireNonNull(p, what);
    int len = p.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8).length;
    if (len > MAX_SOCKET_PATH_BYTES) {
      throw new IllegalArgumentException(what + " path " + p.toAbsolutePath() + " is " + len
          + " bytes long; unix sockets allow at most " + MAX_SOCKET_PATH_BYTES);
    }
  }
}
