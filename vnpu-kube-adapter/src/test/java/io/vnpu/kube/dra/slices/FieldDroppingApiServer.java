package io.vnpu.kube.dra.slices;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Set;

/**
 * The fabric8 mock API server in CRUD mode, except that it clears the given gated fields from
 * every ResourceSlice it creates or updates, as a real API server does with the field's feature
 * gate off ({@code dropDisabledFields} in the resource strategy: the object is stored and
 * returned without the field, no error).
 */
final class FieldDroppingApiServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  // held: java.util.logging keeps loggers weakly, a level set on a collected one is lost
  private static final java.util.logging.Logger QUIET =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
  private final Set<DroppedField> drop = EnumSet.noneOf(DroppedField.class);
  private final KubernetesMockServer server;
  private final KubernetesClient client;

  FieldDroppingApiServer(String nodeName) {
    QUIET.setLevel(java.util.logging.Level.WARNING);
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new Dropping(), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    client = server.createClient();
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName(nodeName).endMetadata()
        .build()).create();
  }

  /** From now on, clears {@code fields} from written slices (as with their gates off). */
  synchronized FieldDroppingApiServer dropping(DroppedField... fields) {
    drop.clear();
    drop.addAll(java.util.List.of(fields));
    return this;
  }

  KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }

  private synchronized String strip(String body) {
    try {
      JsonNode root = JSON.readTree(body);
      JsonNode spec = root.path("spec");
      if (!(spec instanceof ObjectNode s) || drop.isEmpty()) {
        return body;
      }
      if (drop.contains(DroppedField.SHARED_COUNTERS)) {
        s.remove("sharedCounters");
      }
      for (JsonNode d : s.path("devices")) {
        ObjectNode dev = (ObjectNode) d;
        if (drop.contains(DroppedField.CONSUMES_COUNTERS)) {
          dev.remove("consumesCounters");
        }
        if (drop.contains(DroppedField.ALLOW_MULTIPLE_ALLOCATIONS)) {
          dev.remove("allowMultipleAllocations");
        }
        if (drop.contains(DroppedField.TAINTS)) {
          dev.remove("taints");
        }
        if (drop.contains(DroppedField.CAPACITY_REQUEST_POLICY)) {
          dev.path("capacity").forEach(c -> ((ObjectNode) c).remove("requestPolicy"));
        }
      }
      return JSON.writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private final class Dropping extends KubernetesCrudDispatcher {
    @Override
    public MockResponse handleCreate(RecordedRequest request) {
      return super.handleCreate(rewritten(request));
    }

    @Override
    public MockResponse handleUpdate(RecordedRequest request) {
      return super.handleUpdate(rewritten(request));
    }

    private RecordedRequest rewritten(RecordedRequest r) {
      if (!r.getPath().contains("/resourceslices")) {
        return r;
      }
      return new RecordedRequest(r.getHttpVersion(), r.method(), r.getPath(), r.getHeaders(),
          new Buffer(strip(r.getUtf8Body()).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
  }
}
