package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.vnpu.kube.dra.proto.registration.PluginInfo;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.testing.DraClaims;
import io.vnpu.kube.testing.DraKubeletStandIn;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the CLI ITs run {@code vnpu} processes against: the fabric8 mock API server (CRUD, on
 * loopback) holding Node {@value #NODE}, a kubeconfig file by which a process reaches it, and
 * {@code vnpu dra --simulate} from the shaded jar registered with the DRA kubelet stand-in. Closing
 * it closes the test's client and the server.
 */
final class ClusterStandIn implements AutoCloseable {
  static final String NODE = "node-1";
  static final String DRIVER = "npu.huawei.com";

  /** How long a started agent may take to register or publish (a cold JVM on a loaded machine). */
  static final Duration START = Duration.ofSeconds(120);

  private final KubernetesMockServer api;
  private final KubernetesClient client;
  private final Path kubeconfig;

  private ClusterStandIn(KubernetesMockServer api, Path kubeconfig) {
    this.api = api;
    this.client = api.createClient();
    this.kubeconfig = kubeconfig;
  }

  /**
   * Starts the server with Node {@value #NODE} and {@code namespaces}; the kubeconfig is written to
   * {@code dir/kubeconfig}.
   */
  static ClusterStandIn start(Path dir, String... namespaces) throws IOException {
    KubernetesMockServer api =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    api.init(InetAddress.getLoopbackAddress(), 0);
    Path kubeconfig =
        Files.writeString(
            dir.resolve("kubeconfig"),
            String.join(
                "\n",
                "apiVersion: v1",
                "kind: Config",
                "current-context: t",
                "clusters:",
                "- name: t",
                "  cluster:",
                "    server: http://127.0.0.1:" + api.getPort(),
                "contexts:",
                "- name: t",
                "  context:",
                "    cluster: t",
                "    user: t",
                "users:",
                "- name: t",
                "  user:",
                "    token: t",
                ""));
    ClusterStandIn c = new ClusterStandIn(api, kubeconfig);
    try {
      c.client
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
          .create();
      for (String ns : namespaces) {
        c.client
            .namespaces()
            .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
            .create();
      }
      return c;
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  KubernetesClient client() {
    return client;
  }

  Path kubeconfig() {
    return kubeconfig;
  }

  /**
   * A started {@code vnpu dra}, registered: its process, registration socket and plugin info.
   * Closing it stops the process ({@link #stop}).
   */
  record Dra(Process process, Path regSocket, PluginInfo info) implements AutoCloseable {
    /** The DRA service socket the plugin announced. */
    Path draSocket() {
      return Path.of(info.getEndpoint());
    }

    @Override
    public void close() throws InterruptedException {
      stop(process);
    }
  }

  /**
   * Starts {@code vnpu dra --simulate} for {@value #NODE} (log tag {@code dra}) with its
   * registration, plugin and CDI directories under {@code dir} ({@code plugins_registry}, {@code
   * plugins}, {@code cdi}) and {@code more} flags; waits up to {@link #START} for its registration
   * socket and tells it the kubelet registered it.
   */
  Dra startDra(CliJar cli, DraKubeletStandIn kubelet, Path dir, String... more)
      throws IOException, InterruptedException {
    Path reg = dir.resolve("plugins_registry");
    List<String> args =
        new ArrayList<>(
            List.of(
                "dra",
                "--simulate",
                "--node-name",
                NODE,
                "--kubeconfig",
                kubeconfig.toString(),
                "--kubelet-registrar-directory-path",
                reg.toString(),
                "--kubelet-plugins-directory-path",
                dir.resolve("plugins").toString(),
                "--cdi-root",
                dir.resolve("cdi").toString()));
    args.addAll(List.of(more));
    Process p = cli.start("dra", args);
    try {
      Path regSocket = reg.resolve(DRIVER + "-reg.sock");
      CliJar.await(regSocket, START.toSeconds());
      PluginInfo info = kubelet.getInfo(regSocket);
      kubelet.notifyRegistered(regSocket, true, "");
      return new Dra(p, regSocket, info);
    } catch (InterruptedException | RuntimeException | AssertionError e) {
      stop(p);
      throw e;
    }
  }

  /** The published ResourceSlices once there are any (fails after {@link #START}). */
  List<ResourceSlice> awaitSlices() throws InterruptedException {
    long end = System.nanoTime() + START.toNanos();
    while (true) {
      List<ResourceSlice> slices =
          client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
      if (!slices.isEmpty()) {
        return slices;
      }
      if (System.nanoTime() > end) {
        throw new AssertionError("no ResourceSlice published within " + START.toSeconds() + " s");
      }
      Thread.sleep(100);
    }
  }

  /** A claim the kubelet prepared: its name, UID and the plugin's answer for it. */
  record Prepared(String name, String uid, NodePrepareResourceResponse response) {}

  /**
   * Creates claim {@code namespace/name} (UID {@code uid} in its pod reference) allocated {@code
   * results}, and has the kubelet stand-in prepare it through {@code draSocket}.
   */
  Prepared prepare(
      DraKubeletStandIn kubelet,
      Path draSocket,
      String namespace,
      String name,
      String uid,
      DeviceRequestAllocationResult... results) {
    ResourceClaim c =
        client
            .dynamicResourceAllocation()
            .v1()
            .resourceClaims()
            .inNamespace(namespace)
            .resource(DraClaims.allocated(namespace, name, uid, List.of(results)))
            .create();
    String claimUid = c.getMetadata().getUid();
    NodePrepareResourceResponse r =
        kubelet
            .prepareV1(draSocket, DraKubeletStandIn.claim(namespace, claimUid, name))
            .getClaimsOrThrow(claimUid);
    return new Prepared(name, claimUid, r);
  }

  /**
   * Unprepares claim {@code namespace/name} through {@code draSocket}; the plugin reports no error.
   */
  void unprepare(
      DraKubeletStandIn kubelet, Path draSocket, String namespace, String name, String uid) {
    assertThat(
            kubelet
                .unprepareV1(draSocket, DraKubeletStandIn.claim(namespace, uid, name))
                .getClaimsOrThrow(uid)
                .getError())
        .as("unprepare %s", name)
        .isEmpty();
  }

  /** SIGTERM, then SIGKILL when {@code p} has not ended within 30 s. */
  static void stop(Process p) throws InterruptedException {
    if (p != null && p.isAlive()) {
      p.destroy();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  @Override
  public void close() {
    client.close();
    api.destroy();
  }
}
