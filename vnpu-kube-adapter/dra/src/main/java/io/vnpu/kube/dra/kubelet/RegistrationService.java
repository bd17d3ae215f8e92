package io.vnpu.kube.dra.kubelet;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.dra.proto.registration.InfoRequest;
import io.vnpu.kube.dra.proto.registration.PluginInfo;
import io.vnpu.kube.dra.proto.registration.RegistrationGrpc;
import io.vnpu.kube.dra.proto.registration.RegistrationStatus;
import io.vnpu.kube.dra.proto.registration.RegistrationStatusResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet plugin-watcher side ({@code pluginregistration.Registration}) of a DRA driver: {@code
 * GetInfo} answers type {@code DRAPlugin}, the driver name, the DRA socket and the DRA services
 * served, {@code v1.DRAPlugin} first (a kubelet takes the first one it knows). {@code GetInfo} is
 * answered from fields only: the kubelet calls it again periodically and deregisters a plugin that
 * does not answer, so it never waits on the API server or DCMI. {@code NotifyRegistrationStatus} is
 * logged and handed to a listener; a refusal is answered with an error status, as the kubelet
 * expects.
 */
public final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {

  /** Plugin type of a DRA driver. */
  public static final String DRA_PLUGIN_TYPE = "DRAPlugin";

  /** DRA node services served, preferred first. */
  public static final List<String> SUPPORTED_VERSIONS =
      List.of("v1.DRAPlugin", "v1beta1.DRAPlugin");

  private static final Logger log = LoggerFactory.getLogger(RegistrationService.class);

  private final PluginInfo info;
  private final Consumer<RegistrationStatus> listener;

  /**
   * @param driverName the DRA driver name, e.g. {@code npu.huawei.com}
   * @param draSocket absolute path of the DRA node service socket
   * @param listener told of every NotifyRegistrationStatus
   */
  public RegistrationService(
      String driverName, Path draSocket, Consumer<RegistrationStatus> listener) {
    this(driverName, draSocket, SUPPORTED_VERSIONS, listener);
  }

  /**
   * @param versions the services advertised in {@code supported_versions}, preferred first
   */
  public RegistrationService(
      String driverName,
      Path draSocket,
      List<String> versions,
      Consumer<RegistrationStatus> listener) {
    this.info =
        PluginInfo.newBuilder()
            .setType(DRA_PLUGIN_TYPE)
            .setName(driverName)
            .setEndpoint(draSocket.toAbsolutePath().toString())
            .addAllSupportedVersions(versions)
            .build();
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
    response.onNext(info);
    response.onCompleted();
  }

  @Override
  public void notifyRegistrationStatus(
      RegistrationStatus status, StreamObserver<RegistrationStatusResponse> response) {
    listener.accept(status);
    if (status.getPluginRegistered()) {
      log.info(
          "kubelet registered DRA driver {} (endpoint {})", info.getName(), info.getEndpoint());
      response.onNext(RegistrationStatusResponse.getDefaultInstance());
      response.onCompleted();
    } else {
      log.error("kubelet refused DRA driver {}: {}", info.getName(), status.getError());
      response.onError(
          Status.INTERNAL
              .withDescription(
                  "registration of "
                      + info.getName()
                      + " refused by the kubelet: "
                      + status.getError())
              .asRuntimeException());
    }
  }
}
