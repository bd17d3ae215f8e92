package io.vnpu.kube.dra.kubelet;

import io.grpc.BindableService;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's device health service {@code DRAResourceHealth.NodeWatchResources}, in {@code
 * v1alpha1} (kubelet 1.34-1.36) and {@code v1} (1.37), served on the DRA socket. Every stream gets
 * the complete device list when it opens, after every {@link #changed()} and every {@code resend}
 * (well inside the kubelet's timeout, after which it reports the devices Unknown). One thread
 * sends; a stream the kubelet cancelled is dropped.
 */
public final class ResourceHealthServer implements AutoCloseable {
  /** The health services, preferred first, as advertised in {@code supported_versions}. */
  public static final List<String> VERSIONS =
      List.of("v1.DRAResourceHealth", "v1alpha1.DRAResourceHealth");

  /** Longest {@code message} the kubelet accepts, in characters. */
  public static final int MAX_MESSAGE = 1024;

  private static final Logger log = LoggerFactory.getLogger(ResourceHealthServer.class);

  /**
   * The health of one device.
   *
   * @param pool the ResourceSlice pool name
   * @param device the device name in the slice
   * @param health its state
   * @param message why (the fault text), empty when healthy; cut to {@value #MAX_MESSAGE}
   */
  public record DeviceReport(String pool, String device, State health, String message) {
    public DeviceReport {
      Objects.requireNonNull(pool, "pool");
      Objects.requireNonNull(device, "device");
      Objects.requireNonNull(health, "health");
      message = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
    }
  }

  /** The proto {@code HealthStatus} values. */
  public enum State {
    UNKNOWN,
    HEALTHY,
    UNHEALTHY
  }

  private interface Sink {
    void send(List<DeviceReport> devices, long unixSeconds);

    void close();
  }

  private final Supplier<List<DeviceReport>> devices;
  private final Duration timeout;
  private final Clock clock;
  private final Set<Sink> sinks = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService sender;

  /**
   * @param devices the complete device list now (called on the sender thread)
   * @param resend period between complete lists on a quiet stream
   * @param timeout the {@code health_check_timeout_seconds} sent: how long the kubelet trusts a
   *     message; longer than {@code resend}
   */
  public ResourceHealthServer(
      Supplier<List<DeviceReport>> devices, Duration resend, Duration timeout, Clock clock) {
    this.devices = Objects.requireNonNull(devices, "devices");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (timeout.compareTo(resend) <= 0) {
      throw new IllegalArgumentException(
          "timeout = " + timeout + ": must exceed resend = " + resend);
    }
    ScheduledThreadPoolExecutor exec =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "dra-health-stream");
              t.setDaemon(true);
              return t;
            });
    exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.sender = exec;
    exec.scheduleWithFixedDelay(
        this::broadcast, resend.toMillis(), resend.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The gRPC services, v1 and v1alpha1. */
  public List<BindableService> services() {
    return List.of(new V1(), new V1alpha1());
  }

  /** The device health changed: every open stream gets the complete list soon. */
  public void changed() {
    submit(this::broadcast);
  }

  /** Open streams. */
  public int streams() {
    return sinks.size();
  }

  @Override
  public void close() {
    sender.shutdownNow();
    sinks.forEach(Sink::close);
    sinks.clear();
  }

  private void submit(Runnable r) {
    try {
      sender.execute(r);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  private void broadcast() {
    if (sinks.isEmpty()) {
      return;
    }
    List<DeviceReport> now;
    try {
      now = List.copyOf(devices.get());
    } catch (RuntimeException e) {
      log.warn("reading device health failed: {}", e.toString());
      return;
    }
    long t = clock.instant().getEpochSecond();
    for (Sink s : sinks) {
      sendOrDrop(s, now, t);
    }
  }

  private void sendOrDrop(Sink s, List<DeviceReport> now, long t) {
    try {
      s.send(now, t);
    } catch (RuntimeException e) {
      sinks.remove(s); // cancelled or broken: the kubelet opens a new stream
    }
  }

  private void open(Sink s, ServerCallStreamObserver<?> call) {
    call.setOnCancelHandler(() -> sinks.remove(s));
    sinks.add(s);
    submit(
        () -> {
          if (sinks.contains(s)) {
            sendOrDrop(s, List.copyOf(devices.get()), clock.instant().getEpochSecond());
          }
        });
  }

  /**
   * The v1 message of one report; v1alpha1 has the same wire table, so it is re-read from these
   * bytes.
   */
  private io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesResponse message(
      List<DeviceReport> devices, long unixSeconds) {
    var b = io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesResponse.newBuilder();
    for (DeviceReport d : devices) {
      b.addDevices(
          io.vnpu.kube.dra.proto.health.v1.DeviceHealth.newBuilder()
              .setDevice(
                  io.vnpu.kube.dra.proto.health.v1.DeviceIdentifier.newBuilder()
                      .setPoolName(d.pool())
                      .setDeviceName(d.device()))
              .setHealth(
                  io.vnpu.kube.dra.proto.health.v1.HealthStatus.forNumber(d.health().ordinal()))
              .setLastUpdatedTime(unixSeconds)
              .setHealthCheckTimeoutSeconds(timeout.toSeconds())
              .setMessage(d.message()));
    }
    return b.build();
  }

  private <T> void serve(
      ServerCallStreamObserver<T> call,
      java.util.function.Function<io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesResponse, T>
          as) {
    open(
        new Sink() {
          @Override
          public void send(List<DeviceReport> devices, long unixSeconds) {
            call.onNext(as.apply(message(devices, unixSeconds)));
          }

          @Override
          public void close() {
            call.onCompleted();
          }
        },
        call);
  }

  private final class V1alpha1
      extends io.vnpu.kube.dra.proto.health.v1alpha1.DRAResourceHealthGrpc
          .DRAResourceHealthImplBase {
    @Override
    public void nodeWatchResources(
        io.vnpu.kube.dra.proto.health.v1alpha1.NodeWatchResourcesRequest request,
        StreamObserver<io.vnpu.kube.dra.proto.health.v1alpha1.NodeWatchResourcesResponse> out) {
      serve(
          (ServerCallStreamObserver<
                  io.vnpu.kube.dra.proto.health.v1alpha1.NodeWatchResourcesResponse>)
              out,
          m -> {
            try {
              return io.vnpu.kube.dra.proto.health.v1alpha1.NodeWatchResourcesResponse.parseFrom(
                  m.toByteString());
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
              throw new IllegalStateException(
                  "v1 and v1alpha1 health messages share one wire table", e);
            }
          });
    }
  }

  private final class V1
      extends io.vnpu.kube.dra.proto.health.v1.DRAResourceHealthGrpc.DRAResourceHealthImplBase {
    @Override
    public void nodeWatchResources(
        io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesRequest request,
        StreamObserver<io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesResponse> out) {
      serve(
          (ServerCallStreamObserver<io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesResponse>)
              out,
          m -> m);
    }
  }
}
