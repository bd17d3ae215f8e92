package io.vnpu.kube.deviceplugin;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateRequest;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import io.vnpu.kube.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vnpu.kube.deviceplugin.v1beta1.DevicePluginOptions;
import io.vnpu.kube.deviceplugin.v1beta1.Empty;
import io.vnpu.kube.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vnpu.kube.deviceplugin.v1beta1.PreStartContainerRequest;
import io.vnpu.kube.deviceplugin.v1beta1.PreStartContainerResponse;
import io.vnpu.kube.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vnpu.kube.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ResourceManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The v1beta1 {@code DevicePlugin} service over one {@link ResourceManager}, for one generation of
 * the gRPC server (a kubelet restart gets a fresh instance, so no stream outlives its server).
 *
 * <p>Error mapping: {@link AllocationException} from the manager becomes {@code INVALID_ARGUMENT},
 * an {@link IllegalArgumentException} from the manager or a malformed request becomes {@code
 * INVALID_ARGUMENT}, any other exception {@code INTERNAL}; the status description names the
 * container request and its device IDs.
 */
final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase
    implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DevicePluginService.class);

  private final ResourceManager manager;

  /**
   * Serialises every ListAndWatch send so that each stream sees the lists in notification order.
   */
  private final Object sendLock = new Object();

  private final Set<ServerCallStreamObserver<ListAndWatchResponse>> streams = new LinkedHashSet<>();
  private boolean closed;
  private AutoCloseable watch;

  /** Told the count after every failed send (on the thread that published); never null. */
  private final IntConsumer sendFailures;

  // Guarded by sendLock: the kubelet's stream health as the sends see it.
  /** A ListAndWatch stream was opened on this service (the kubelet was watching). */
  private boolean watched;

  /** Sends in a row that reached no stream; a new stream or a delivered send resets it. */
  private int failedSends;

  private Instant lastFailedSend = Instant.EPOCH;

  /** When a list was last sent (or a send attempted) on this service. */
  private Instant lastSend = Instant.EPOCH;

  private final Clock clock;

  private DevicePluginService(ResourceManager manager, IntConsumer sendFailures, Clock clock) {
    this.manager = manager;
    this.sendFailures = sendFailures;
    this.clock = clock;
  }

  /** Creates the service and subscribes it to the manager's change notifications. */
  static DevicePluginService open(ResourceManager manager) {
    return open(manager, n -> {}, Clock.systemUTC());
  }

  /**
   * As {@link #open(ResourceManager)}, telling {@code sendFailures} the number of consecutive
   * failed ListAndWatch sends after each one. A send fails when the kubelet had opened a stream and
   * the update reaches none: every stream was cancelled or broke (the kubelet stopped watching
   * without a restart), or each {@code onNext} threw.
   */
  static DevicePluginService open(ResourceManager manager, IntConsumer sendFailures, Clock clock) {
    DevicePluginService s = new DevicePluginService(manager, sendFailures, clock);
    s.watch = manager.watch(s::publish);
    return s;
  }

  /** Consecutive failed sends so far (0 after a delivered send or a new stream). */
  int failedSends() {
    synchronized (sendLock) {
      return failedSends;
    }
  }

  /**
   * Sends the current list again, without a device change, when the last send failed at least
   * {@code failedGap} before {@code now}, or when nothing was sent for {@code refresh} (MindCluster
   * retries a failed send after a minute and pushes at least hourly), so that a kubelet that
   * stopped watching is noticed without waiting for a health change.
   */
  void resendIfDue(Instant now, Duration failedGap, Duration refresh) {
    synchronized (sendLock) {
      boolean retry = failedSends > 0 && !now.isBefore(lastFailedSend.plus(failedGap));
      boolean periodic = watched && !now.isBefore(lastSend.plus(refresh));
      if (!retry && !periodic) {
        return;
      }
      lastSend = now; // one attempt per period, whether it is delivered or not
    }
    publish();
  }

  static DevicePluginOptions options(ResourceManager manager) {
    return DevicePluginOptions.newBuilder()
        .setPreStartRequired(manager.preStartRequired())
        .setGetPreferredAllocationAvailable(manager.preferredAllocationAvailable())
        .build();
  }

  /** Number of ListAndWatch streams currently open. */
  int openStreams() {
    synchronized (sendLock) {
      return streams.size();
    }
  }

  @Override
  public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
    out.onNext(options(manager));
    out.onCompleted();
  }

  @Override
  public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
    ServerCallStreamObserver<ListAndWatchResponse> stream =
        (ServerCallStreamObserver<ListAndWatchResponse>) out;
    stream.setOnCancelHandler(
        () -> {
          synchronized (sendLock) {
            streams.remove(stream);
          }
        });
    synchronized (sendLock) {
      if (closed) {
        stream.onError(
            Status.UNAVAILABLE
                .withDescription("device plugin is shutting down")
                .asRuntimeException());
        return;
      }
      ListAndWatchResponse first;
      try {
        first = ProtoMapping.deviceList(manager.devices());
      } catch (RuntimeException e) {
        log.error("ListAndWatch: reading the device list of {} failed", manager.resourceName(), e);
        stream.onError(
            Status.INTERNAL
                .withDescription(
                    "ListAndWatch: reading the device list of "
                        + manager.resourceName()
                        + " failed: "
                        + e)
                .withCause(e)
                .asRuntimeException());
        return;
      }
      stream.onNext(first);
      streams.add(stream);
      lastSend = clock.instant();
      watched = true;
      failedSends = 0;
    }
  }

  /** Sends the full current list to every open stream (called on every manager change). */
  void publish() {
    int failed;
    synchronized (sendLock) {
      if (closed || (streams.isEmpty() && !watched)) {
        return; // the kubelet has not started watching yet: nothing was lost
      }
      failed = send();
    }
    if (failed > 0) {
      sendFailures.accept(failed);
    }
  }

  /** One send under sendLock; returns the consecutive failures after it, 0 when delivered. */
  private int send() {
    ListAndWatchResponse list;
    try {
      list = ProtoMapping.deviceList(manager.devices());
    } catch (RuntimeException e) {
      // The previous list stays in force at the kubelet; the next notification retries.
      log.error(
          "ListAndWatch: reading the device list of {} failed, update not sent",
          manager.resourceName(),
          e);
      return 0;
    }
    boolean delivered = false;
    for (var it = streams.iterator(); it.hasNext(); ) {
      ServerCallStreamObserver<ListAndWatchResponse> s = it.next();
      try {
        s.onNext(list);
        delivered = true;
      } catch (StatusRuntimeException | IllegalStateException e) {
        log.debug("ListAndWatch stream gone: {}", e.toString());
        it.remove();
      }
    }
    if (delivered) {
      lastSend = clock.instant();
      failedSends = 0;
      return 0;
    }
    failedSends++;
    lastFailedSend = clock.instant();
    log.warn(
        "ListAndWatch update of {} reached no kubelet stream ({} in a row)",
        manager.resourceName(),
        failedSends);
    return failedSends;
  }

  @Override
  public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
    AllocateResponse.Builder response = AllocateResponse.newBuilder();
    int n = request.getContainerRequestsCount();
    for (int i = 0; i < n; i++) {
      ContainerAllocateRequest c = request.getContainerRequests(i);
      List<String> ids = List.copyOf(c.getDevicesIdsList());
      String where =
          "Allocate container request " + (i + 1) + " of " + n + " (device IDs " + ids + ")";
      try {
        response.addContainerResponses(ProtoMapping.containerResponse(manager.allocate(ids)));
      } catch (AllocationException e) {
        log.warn("{} refused: {}", where, e.getMessage());
        out.onError(refused(where, e));
        return;
      } catch (RuntimeException e) {
        out.onError(failed(where, e));
        return;
      }
    }
    out.onNext(response.build());
    out.onCompleted();
  }

  /** INVALID_ARGUMENT for a container request the resource manager refused. */
  private static StatusRuntimeException refused(String where, Exception e) {
    return Status.INVALID_ARGUMENT
        .withDescription(where + ": " + e.getMessage())
        .withCause(e)
        .asRuntimeException();
  }

  /** INTERNAL for a resource manager that failed on a container request; logged with its trace. */
  private static StatusRuntimeException failed(String where, RuntimeException e) {
    log.error("{} failed", where, e);
    return Status.INTERNAL
        .withDescription(where + " failed: " + e)
        .withCause(e)
        .asRuntimeException();
  }

  @Override
  public void getPreferredAllocation(
      PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> out) {
    if (!manager.preferredAllocationAvailable()) {
      out.onError(
          Status.UNIMPLEMENTED
              .withDescription(
                  "GetPreferredAllocation is not supported by " + manager.resourceName())
              .asRuntimeException());
      return;
    }
    PreferredAllocationResponse.Builder response = PreferredAllocationResponse.newBuilder();
    int n = request.getContainerRequestsCount();
    for (int i = 0; i < n; i++) {
      ContainerPreferredAllocationRequest c = request.getContainerRequests(i);
      List<String> available = List.copyOf(c.getAvailableDeviceIDsList());
      List<String> mustInclude = List.copyOf(c.getMustIncludeDeviceIDsList());
      int size = c.getAllocationSize();
      String where =
          "GetPreferredAllocation container request "
              + (i + 1)
              + " of "
              + n
              + " (allocation_size "
              + size
              + ", available "
              + available
              + ", must_include "
              + mustInclude
              + ")";
      String bad = validateRequest(available, mustInclude, size);
      if (bad != null) {
        out.onError(
            Status.INVALID_ARGUMENT.withDescription(where + ": " + bad).asRuntimeException());
        return;
      }
      List<String> chosen;
      try {
        chosen = manager.preferredAllocation(available, mustInclude, size);
      } catch (IllegalArgumentException e) {
        out.onError(refused(where, e));
        return;
      } catch (RuntimeException e) {
        out.onError(failed(where, e));
        return;
      }
      String wrong = validateAnswer(available, mustInclude, size, chosen);
      if (wrong != null) {
        out.onError(
            Status.INTERNAL
                .withDescription(where + ": resource manager answered " + chosen + ", " + wrong)
                .asRuntimeException());
        return;
      }
      response.addContainerResponses(
          ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(chosen));
    }
    out.onNext(response.build());
    out.onCompleted();
  }

  private static String validateRequest(
      List<String> available, List<String> mustInclude, int size) {
    if (size < 0 || size > available.size()) {
      return "allocation_size must be between 0 and the "
          + available.size()
          + " available device IDs";
    }
    if (mustInclude.size() > size) {
      return "must_include has more IDs than allocation_size";
    }
    Set<String> avail = new HashSet<>(available);
    for (String id : mustInclude) {
      if (!avail.contains(id)) {
        return "must_include ID " + id + " is not among the available IDs";
      }
    }
    return null;
  }

  private static String validateAnswer(
      List<String> available, List<String> mustInclude, int size, List<String> chosen) {
    if (chosen == null || chosen.size() != size) {
      return "expected exactly " + size + " IDs";
    }
    Set<String> set = new HashSet<>(chosen);
    if (set.size() != chosen.size()) {
      return "which repeats an ID";
    }
    if (!set.containsAll(mustInclude)) {
      return "which misses a must_include ID";
    }
    if (!new HashSet<>(available).containsAll(set)) {
      return "which names an ID that is not available";
    }
    return null;
  }

  @Override
  public void preStartContainer(
      PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> out) {
    List<String> ids = List.copyOf(request.getDevicesIdsList());
    try {
      manager.preStartContainer(ids);
    } catch (RuntimeException e) {
      log.error("PreStartContainer for device IDs {} failed", ids, e);
      out.onError(
          Status.INTERNAL
              .withDescription("PreStartContainer for device IDs " + ids + " failed: " + e)
              .withCause(e)
              .asRuntimeException());
      return;
    }
    out.onNext(PreStartContainerResponse.getDefaultInstance());
    out.onCompleted();
  }

  /**
   * Ends every ListAndWatch stream (the kubelet sees a clean end) and unsubscribes from changes.
   */
  @Override
  public void close() {
    synchronized (sendLock) {
      if (closed) {
        return;
      }
      closed = true;
      for (ServerCallStreamObserver<ListAndWatchResponse> s : streams) {
        try {
          s.onCompleted();
        } catch (StatusRuntimeException | IllegalStateException e) {
          log.debug("ListAndWatch stream already gone: {}", e.toString());
        }
      }
      streams.clear();
    }
    try {
      watch.close();
    } catch (Exception e) {
      log.warn("unsubscribing from device changes of {} failed", manager.resourceName(), e);
    }
  }
}
