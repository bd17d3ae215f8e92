package io.vnpu.benchmarks.dra;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

/**
 * The fabric8 mock API server in CRUD mode on a loopback port, with one Node, and a kubeconfig file
 * pointing at it: the API server stand-in of the DRA benchmarks and of the README demo.
 */
final class MockApiServer implements AutoCloseable {
  private final KubernetesMockServer server =
      new KubernetesMockServer(
          new Context(),
          new MockWebServer(),
          new HashMap<>(),
          new KubernetesCrudDispatcher(),
          false);
  private final KubernetesClient client;
  private static final java.util.logging.Logger QUIET =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  MockApiServer(String nodeName) {
    // the mock web server logs every request at INFO through java.util.logging
    QUIET.setLevel(java.util.logging.Level.WARNING);
    server.init(InetAddress.getLoopbackAddress(), 0);
    client = server.createClient();
    // create-or-update: on a loaded machine the client retries a POST that timed out but was stored
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(nodeName).endMetadata().build())
        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
  }

  KubernetesClient client() {
    return client;
  }

  String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** Writes a kubeconfig for this server to {@code file}. */
  Path writeKubeconfig(Path file) throws IOException {
    return Files.writeString(
        file,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "current-context: stand-in",
            "clusters:",
            "- name: stand-in",
            "  cluster:",
            "    server: " + url(),
            "contexts:",
            "- name: stand-in",
            "  context:",
            "    cluster: stand-in",
            "    user: stand-in",
            "    namespace: default",
            "users:",
            "- name: stand-in",
            "  user:",
            "    token: stand-in",
            ""));
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
