package io.vnpu.kube.dra.slices;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Set;

/**
 * The fabric8 mock API server in CRUD mode, except that it clears the given gated fields from every
 * ResourceSlice it creates or updates, as a real API server does with the field's feature gate off
 * ({@code dropDisabledFields} in the resource strategy: the object is stored and returned without
 * the field, no error).
 */
public final class FieldDroppingApiServer implements AutoCloseable {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  // held: java.util.logging keeps loggers weakly, a level set on a collected one is lost
  private static final java.util.logging.Logger QUIET =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
  private final Set<DroppedField> drop = EnumSet.noneOf(DroppedField.class);
  private final KubernetesMockServer server;
  private final KubernetesClient client;

  public FieldDroppingApiServer(String nodeName) {
    QUIET.setLevel(java.util.logging.Level.WARNING);
    server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), new Dropping(), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    client = server.createClient();
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(nodeName).endMetadata().build())
        .create();
  }

  /** From now on, clears {@code fields} from written slices (as with their gates off). */
  public synchronized FieldDroppingApiServer dropping(DroppedField... fields) {
    drop.clear();
    drop.addAll(java.util.List.of(fields));
    return this;
  }

  public KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }

  private synchronized String strip(String body) {
    ResourceSlice slice = SERIALIZATION.unmarshal(body, ResourceSlice.class);
    if (slice.getSpec() == null || drop.isEmpty()) {
      return body;
    }
    if (drop.contains(DroppedField.SHARED_COUNTERS)) {
      slice.getSpec().setSharedCounters(null);
    }
    if (slice.getSpec().getDevices() != null) {
      slice.getSpec().setDevices(DroppedField.strip(drop, slice.getSpec().getDevices()));
    }
    return SERIALIZATION.asJson(slice);
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
      return new RecordedRequest(
          r.getHttpVersion(),
          r.method(),
          r.getPath(),
          r.getHeaders(),
          new Buffer(strip(r.getUtf8Body()).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
  }
}
