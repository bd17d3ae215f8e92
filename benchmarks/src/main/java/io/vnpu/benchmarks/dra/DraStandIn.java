package io.vnpu.benchmarks.dra;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.vnpu.kube.dra.proto.registration.InfoRequest;
import io.vnpu.kube.dra.proto.registration.PluginInfo;
import io.vnpu.kube.dra.proto.registration.RegistrationGrpc;
import io.vnpu.kube.dra.proto.registration.RegistrationStatus;
import io.vnpu.kube.dra.proto.v1.Claim;
import io.vnpu.kube.dra.proto.v1.DRAPluginGrpc;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1.NodeUnprepareResourcesRequest;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A cluster for {@code vnpu dra --simulate} on one machine: the fabric8 mock API server (CRUD) with
 * a Node, and a kubelet stand-in that registers the driver through its registration socket, reads
 * the published ResourceSlice, prepares a claim allocated to {@code npu-3}, shows the CDI spec and
 * unprepares it. Then it keeps the API server up until killed (for RSS measurements). With {@code
 * --hold} the claim stays prepared (a container runtime can start containers from its CDI spec,
 * docs/operations.md "Try it with podman") until the file {@code DIR/unprepare} appears. With
 * {@code --api-only} it is only the API server (and {@code DIR/kubeconfig}), for {@code vnpu
 * plugin}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.vnpu.benchmarks.dra.DraStandIn DIR [NODE] [--hold | --api-only]
 * </pre>
 */
public final class DraStandIn {
  private static final String DRIVER = "npu.huawei.com";

  private DraStandIn() {}

  public static void main(String[] args) throws Exception {
    java.util.List<String> positional = new java.util.ArrayList<>(java.util.List.of(args));
    boolean hold = positional.remove("--hold");
    boolean apiOnly = positional.remove("--api-only");
    if (positional.isEmpty() || positional.size() > 2) {
      System.err.println("usage: DraStandIn DIR [NODE] [--hold | --api-only]");
      System.exit(2);
    }
    args = positional.toArray(String[]::new);
    // the stand-in prints what it sees itself and ships no SLF4J backend (the benchmarks must not
    // log): do not warn about the missing one (SLF4J 2.0.10+ reads this before binding)
    System.setProperty("slf4j.internal.verbosity", "ERROR");
    // grpc-netty asks for SO_KEEPALIVE on unix sockets, which netty cannot set there, and says so
    // through JUL on every connection: noise in a demo; kept referenced so the level holds
    java.util.logging.Logger nettyBootstrap =
        java.util.logging.Logger.getLogger("io.netty.bootstrap");
    nettyBootstrap.setLevel(java.util.logging.Level.SEVERE);
    Path dir = Files.createDirectories(Path.of(args[0]).toAbsolutePath());
    String node = args.length > 1 ? args[1] : "node-1";
    Path registrar = Files.createDirectories(dir.resolve("plugins_registry"));
    Path plugins = Files.createDirectories(dir.resolve("plugins"));
    Path cdi = dir.resolve("cdi");
    try (MockApiServer api = new MockApiServer(node);
        UnixSocketTransport transport = new UnixSocketTransport(1)) {
      Path kubeconfig = api.writeKubeconfig(dir.resolve("kubeconfig"));
      if (apiOnly) {
        // the API server of the device-plugin quick starts (README "vnpu plugin"): no kubelet here
        say(
            "API server stand-in on "
                + api.url()
                + " with Node "
                + node
                + "; use KUBECONFIG="
                + kubeconfig);
        Thread.currentThread().join();
      }
      say("API server stand-in on " + api.url() + "; start the driver with:");
      say(
          "  ./vnpu dra --simulate --node-name "
              + node
              + " --kubeconfig "
              + kubeconfig
              + " --kubelet-registrar-directory-path "
              + registrar
              + " --kubelet-plugins-directory-path "
              + plugins
              + " --cdi-root "
              + cdi);
      Path reg = registrar.resolve(DRIVER + "-reg.sock");
      waitFor(() -> Files.exists(reg), 300, "the registration socket " + reg);
      PluginInfo info =
          call(
              transport,
              reg,
              ch ->
                  RegistrationGrpc.newBlockingStub(ch)
                      .withDeadlineAfter(45, TimeUnit.SECONDS)
                      .getInfo(InfoRequest.getDefaultInstance()));
      say(
          "kubelet: GetInfo -> type "
              + info.getType()
              + ", name "
              + info.getName()
              + ", versions "
              + info.getSupportedVersionsList());
      call(
          transport,
          reg,
          ch ->
              RegistrationGrpc.newBlockingStub(ch)
                  .withDeadlineAfter(45, TimeUnit.SECONDS)
                  .notifyRegistrationStatus(
                      RegistrationStatus.newBuilder().setPluginRegistered(true).build()));
      say("kubelet: registered " + info.getName());
      KubernetesClient client = api.client();
      waitFor(() -> !slices(client).isEmpty(), 300, "a ResourceSlice");
      ResourceSlice s = slices(client).get(0);
      say(
          "ResourceSlice pool "
              + s.getSpec().getPool().getName()
              + " generation "
              + s.getSpec().getPool().getGeneration()
              + ": "
              + s.getSpec().getDevices().stream()
                  .map(DraStandIn::describe)
                  .collect(Collectors.joining(", ")));
      ResourceClaim claim = createClaim(client, node);
      String uid = claim.getMetadata().getUid();
      Path draSocket = Path.of(info.getEndpoint());
      NodePrepareResourceResponse r =
          call(
                  transport,
                  draSocket,
                  ch ->
                      DRAPluginGrpc.newBlockingStub(ch)
                          .withDeadlineAfter(45, TimeUnit.SECONDS)
                          .nodePrepareResources(
                              NodePrepareResourcesRequest.newBuilder()
                                  .addClaims(
                                      Claim.newBuilder()
                                          .setNamespace("demo")
                                          .setName("npu-claim")
                                          .setUid(uid))
                                  .build()))
              .getClaimsOrThrow(uid);
      if (!r.getError().isEmpty()) {
        say("kubelet: NodePrepareResources failed: " + r.getError());
        System.exit(1);
      }
      say(
          "kubelet: NodePrepareResources demo/npu-claim -> "
              + r.getDevicesList().stream()
                  .map(d -> d.getDeviceName() + " " + d.getCdiDeviceIdsList())
                  .toList());
      Path spec = cdi.resolve("npu.huawei.com-npu_" + uid + ".json");
      say("CDI spec " + spec + ":");
      System.out.println(Files.readString(spec));
      if (hold) {
        Path release = dir.resolve("unprepare");
        Files.deleteIfExists(release);
        say("kubelet: holding the claim prepared; touch " + release + " to unprepare it");
        waitFor(() -> Files.exists(release), Integer.MAX_VALUE / 1000, "the file " + release);
      }
      call(
          transport,
          draSocket,
          ch ->
              DRAPluginGrpc.newBlockingStub(ch)
                  .withDeadlineAfter(45, TimeUnit.SECONDS)
                  .nodeUnprepareResources(
                      NodeUnprepareResourcesRequest.newBuilder()
                          .addClaims(
                              Claim.newBuilder()
                                  .setNamespace("demo")
                                  .setName("npu-claim")
                                  .setUid(uid))
                          .build()));
      say(
          "kubelet: NodeUnprepareResources demo/npu-claim -> CDI spec "
              + (Files.exists(spec) ? "still there" : "removed"));
      say("done; the API server stand-in keeps running until interrupted");
      Thread.currentThread().join();
    } finally {
      java.lang.ref.Reference.reachabilityFence(nettyBootstrap);
    }
  }

  /**
   * "npu-3 (910B3, 64Gi)": the chip and the HBM capacity, whichever name the driver publishes it
   * under (memCapacity for whole chips and hard vNPUs, memory or memCapacity for soft slices, plus
   * the AI-core capacity then).
   */
  private static String describe(Device d) {
    String chip =
        d.getAttributes() == null || d.getAttributes().get("chipName") == null
            ? "?"
            : d.getAttributes().get("chipName").getString();
    String capacity =
        d.getCapacity() == null
            ? ""
            : d.getCapacity().entrySet().stream()
                .map(
                    e ->
                        e.getKey().equals("memCapacity") && d.getCapacity().size() == 1
                            ? e.getValue().getValue().toString()
                            : e.getKey() + " " + e.getValue().getValue())
                .collect(Collectors.joining(", "));
    return d.getName() + " (" + chip + (capacity.isEmpty() ? "" : ", " + capacity) + ")";
  }

  private static List<ResourceSlice> slices(KubernetesClient client) {
    return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
  }

  private static ResourceClaim createClaim(KubernetesClient client, String node) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("demo").endMetadata().build())
        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("demo")
        .resource(
            new ResourceClaimBuilder()
                .withNewMetadata()
                .withNamespace("demo")
                .withName("npu-claim")
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("npu")
                .withNewExactly()
                .withDeviceClassName(DRIVER)
                .endExactly()
                .endRequest()
                .endDevices()
                .endSpec()
                .withNewStatus()
                .withNewAllocation()
                .withNewDevices()
                .withResults(
                    new DeviceRequestAllocationResultBuilder()
                        .withRequest("npu")
                        .withDriver(DRIVER)
                        .withPool(node)
                        .withDevice("npu-3")
                        .build())
                .endDevices()
                .endAllocation()
                .endStatus()
                .build())
        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
  }

  interface Call<T> {
    T on(ManagedChannel ch);
  }

  private static <T> T call(UnixSocketTransport t, Path socket, Call<T> call) {
    ManagedChannel ch = t.channel(socket);
    try {
      return call.on(ch);
    } finally {
      ch.shutdownNow();
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier c, int seconds, String what)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > end) {
        say("gave up waiting for " + what);
        System.exit(1);
      }
      Thread.sleep(100);
    }
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
