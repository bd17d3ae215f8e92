package io.vnpu.benchmarks.dra;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.dra.proto.registration.InfoRequest;
import io.vnpu.kube.dra.proto.registration.PluginInfo;
import io.vnpu.kube.dra.proto.registration.RegistrationGrpc;
import io.vnpu.kube.dra.proto.registration.RegistrationStatus;
import io.vnpu.kube.dra.proto.registration.RegistrationStatusResponse;
import io.vnpu.kube.dra.proto.v1.Claim;
import io.vnpu.kube.dra.proto.v1.DRAPluginGrpc;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesResponse;
import io.vnpu.kube.dra.proto.v1.NodeUnprepareResourceResponse;
import io.vnpu.kube.dra.proto.v1.NodeUnprepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1.NodeUnprepareResourcesResponse;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The floor under the DRA plugin's RSS ({@code benchmarks/measure-dra-rss.sh} with {@code
 * VNPU_DRA_RSS_FLOOR=1}): the least a JVM does for the {@link DraStandIn} kubelet and API server
 * with the libraries the plugin is built on, and nothing of the plugin itself. The fabric8 client
 * from the kubeconfig (JDK HttpClient, Jackson 3, the resource.k8s.io/v1 model) reads the Node,
 * creates one ResourceSlice of 16 devices owned by it and watches the pool's slices; grpc-java on
 * Netty serves the kubelet's Registration service and the DRA v1 service on unix sockets through
 * {@link UnixSocketTransport}; NodePrepareResources reads the claim (GET), writes a CDI spec file
 * and the claim's {@code status.devices} (read-modify-write patch, as the plugin does),
 * NodeUnprepareResources deletes it. No DCMI, no checkpoint, no health, no CLI parser, no metrics:
 * what the plugin costs above this is what its own parts cost.
 *
 * <pre>
 * java -cp vnpu-cli-all.jar:benchmarks-thin.jar io.vnpu.benchmarks.dra.DraRssFloor \
 *   KUBECONFIG REGISTRAR_DIR PLUGINS_DIR CDI_DIR NODE
 * </pre>
 */
public final class DraRssFloor {
  private static final String DRIVER = "npu.huawei.com";
  private static final String LABEL = "dra.vnpu.io/node";

  private DraRssFloor() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println(
          "usage: DraRssFloor KUBECONFIG REGISTRAR_DIR PLUGINS_DIR CDI_DIR NODE (got "
              + args.length
              + " arguments)");
      System.exit(2);
    }
    Path kubeconfig = Path.of(args[0]);
    Path registrar = Path.of(args[1]);
    Path pluginDir = Files.createDirectories(Path.of(args[2]).resolve(DRIVER));
    Path cdi = Files.createDirectories(Path.of(args[3]));
    String node = args[4];
    KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(kubeconfig.toFile()))
            .build();
    publish(client, node);
    client
        .dynamicResourceAllocation()
        .v1()
        .resourcesSlices()
        .withLabel(LABEL, node)
        .watch(
            new Watcher<ResourceSlice>() {
              @Override
              public void eventReceived(Action action, ResourceSlice slice) {}

              @Override
              public void onClose(WatcherException cause) {}
            });
    Path draSocket = pluginDir.resolve("dra.sock");
    UnixSocketTransport transport = new UnixSocketTransport(2);
    transport.startServer(draSocket, List.of(new Dra(client, node, cdi)));
    transport.startServer(
        registrar.resolve(DRIVER + "-reg.sock"), List.of(new Registration(draSocket)));
    System.out.println("floor serving " + draSocket);
    Thread.currentThread().join();
  }

  private static void publish(KubernetesClient client, String node) {
    Node n = client.nodes().withName(node).get();
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      devices.add(
          new DeviceBuilder()
              .withName("npu-" + i)
              .withAttributes(
                  Map.of("chipName", new DeviceAttributeBuilder().withString("Ascend910").build()))
              .withCapacity(
                  Map.of(
                      "memCapacity",
                      new DeviceCapacityBuilder().withValue(new Quantity("64Gi")).build()))
              .build());
    }
    client
        .dynamicResourceAllocation()
        .v1()
        .resourcesSlices()
        .resource(
            new ResourceSliceBuilder()
                .withNewMetadata()
                .withGenerateName(node + "-" + DRIVER + "-")
                .addToLabels(LABEL, node)
                .withOwnerReferences(
                    new OwnerReferenceBuilder()
                        .withApiVersion("v1")
                        .withKind("Node")
                        .withName(node)
                        .withUid(n.getMetadata().getUid())
                        .build())
                .endMetadata()
                .withNewSpec()
                .withDriver(DRIVER)
                .withNodeName(node)
                .withNewPool()
                .withName(node)
                .withGeneration(1L)
                .withResourceSliceCount(1L)
                .endPool()
                .withDevices(devices)
                .endSpec()
                .build())
        .create();
  }

  private static final class Registration extends RegistrationGrpc.RegistrationImplBase {
    private final PluginInfo info;

    Registration(Path draSocket) {
      info =
          PluginInfo.newBuilder()
              .setType("DRAPlugin")
              .setName(DRIVER)
              .setEndpoint(draSocket.toString())
              .addSupportedVersions("v1.DRAPlugin")
              .build();
    }

    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
      response.onNext(info);
      response.onCompleted();
    }

    @Override
    public void notifyRegistrationStatus(
        RegistrationStatus status, StreamObserver<RegistrationStatusResponse> response) {
      response.onNext(RegistrationStatusResponse.getDefaultInstance());
      response.onCompleted();
    }
  }

  private static final class Dra extends DRAPluginGrpc.DRAPluginImplBase {
    private final KubernetesClient client;
    private final String node;
    private final Path cdi;

    Dra(KubernetesClient client, String node, Path cdi) {
      this.client = client;
      this.node = node;
      this.cdi = cdi;
    }

    @Override
    public void nodePrepareResources(
        NodePrepareResourcesRequest request,
        StreamObserver<NodePrepareResourcesResponse> response) {
      NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
      for (Claim c : request.getClaimsList()) {
        ResourceClaim claim =
            client
                .dynamicResourceAllocation()
                .v1()
                .resourceClaims()
                .inNamespace(c.getNamespace())
                .withName(c.getName())
                .get();
        NodePrepareResourceResponse.Builder r = NodePrepareResourceResponse.newBuilder();
        try {
          for (var result : claim.getStatus().getAllocation().getDevices().getResults()) {
            String id = DRIVER + "/npu=" + c.getUid() + "-" + result.getDevice();
            Files.writeString(
                spec(c.getUid()),
                "{\"cdiVersion\":\"0.6.0\",\"kind\":\""
                    + DRIVER
                    + "/npu\",\"devices\":[{\"name\":\""
                    + c.getUid()
                    + "-"
                    + result.getDevice()
                    + "\",\"containerEdits\":{}}]}\n");
            r.addDevices(
                io.vnpu.kube.dra.proto.v1.Device.newBuilder()
                    .addRequestNames(result.getRequest())
                    .setPoolName(node)
                    .setDeviceName(result.getDevice())
                    .addCdiDeviceIds(id));
          }
          // status.devices, as the plugin writes it (KEP-4817): a read-modify-write patch
          client
              .dynamicResourceAllocation()
              .v1()
              .resourceClaims()
              .inNamespace(c.getNamespace())
              .withName(c.getName())
              .editStatus(
                  rc -> {
                    rc.getStatus()
                        .setDevices(
                            rc.getStatus().getAllocation().getDevices().getResults().stream()
                                .map(
                                    d ->
                                        new io.fabric8.kubernetes.api.model.resource.v1
                                                .AllocatedDeviceStatusBuilder()
                                            .withDriver(DRIVER)
                                            .withPool(node)
                                            .withDevice(d.getDevice())
                                            .withData(Map.of("physicalId", 3))
                                            .build())
                                .toList());
                    return rc;
                  });
        } catch (java.io.IOException e) {
          r.setError(e.toString());
        }
        out.putClaims(c.getUid(), r.build());
      }
      response.onNext(out.build());
      response.onCompleted();
    }

    @Override
    public void nodeUnprepareResources(
        NodeUnprepareResourcesRequest request,
        StreamObserver<NodeUnprepareResourcesResponse> response) {
      NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
      for (Claim c : request.getClaimsList()) {
        NodeUnprepareResourceResponse.Builder r = NodeUnprepareResourceResponse.newBuilder();
        try {
          Files.deleteIfExists(spec(c.getUid()));
        } catch (java.io.IOException e) {
          r.setError(e.toString());
        }
        out.putClaims(c.getUid(), r.build());
      }
      response.onNext(out.build());
      response.onCompleted();
    }

    private Path spec(String uid) {
      return cdi.resolve(DRIVER + "-npu_" + uid + ".json");
    }
  }
}
