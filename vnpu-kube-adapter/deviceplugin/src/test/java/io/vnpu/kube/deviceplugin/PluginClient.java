package io.vnpu.kube.deviceplugin;

import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateRequest;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vnpu.kube.deviceplugin.v1beta1.DevicePluginOptions;
import io.vnpu.kube.deviceplugin.v1beta1.Empty;
import io.vnpu.kube.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vnpu.kube.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vnpu.kube.deviceplugin.v1beta1.PreferredAllocationResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet's side of one plugin connection (part of {@link KubeletStandIn}).
 *
 * <p>{@link #admit(List)} is the kubelet's own path (use it wherever a test stands for a pod being
 * admitted); {@link #allocate(List)} and {@link #blocking()} are the bare RPCs for protocol tests.
 */
public final class PluginClient implements AutoCloseable {

  private final ManagedChannel channel;

  /**
   * The device list as the kubelet's own ListAndWatch stream last delivered it (opened by {@link
   * #admit}).
   */
  private volatile ListAndWatchRecorder kubeletWatch;

  /**
   * Devices admitted through {@link #admit} and not {@link #release}d: the kubelet's allocated set.
   */
  private final Set<String> admitted = new HashSet<>();

  private final List<PreferredAllocationRequest> preferredRequests = new ArrayList<>();
  private final List<List<String>> admissions = new ArrayList<>();

  PluginClient(ManagedChannel channel) {
    this.channel = channel;
  }

  /**
   * Deadline of each call: only a guard, so a plugin that hangs fails the test instead of hanging
   * the build. The kubelet sets none on GetDevicePluginOptions, GetPreferredAllocation and Allocate
   * ({@code context.Background()} in its device-plugin endpoint), so no answer time is a promise a
   * plugin makes to it; a bound as tight as 5 s failed admissions on two cores at load 20-30 (an
   * Allocate that lists and claims its pod through the mock API server), never for a fault.
   */
  public static final Duration CALL_DEADLINE = Duration.ofSeconds(60);

  /** A blocking stub with the {@link #CALL_DEADLINE} per call. */
  public DevicePluginGrpc.DevicePluginBlockingStub blocking() {
    return DevicePluginGrpc.newBlockingStub(channel)
        .withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * The kubelet's deadline on PreStartContainer ({@code KubeletPreStartContainerRPCTimeoutInSecs}).
   */
  public static final Duration PRE_START_DEADLINE = Duration.ofSeconds(30);

  /** A blocking stub with the kubelet's {@link #PRE_START_DEADLINE}, for PreStartContainer. */
  public DevicePluginGrpc.DevicePluginBlockingStub preStart() {
    return DevicePluginGrpc.newBlockingStub(channel)
        .withDeadlineAfter(PRE_START_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Allocate with one container request per list of device IDs, in order. */
  public AllocateResponse allocate(List<List<String>> containers) {
    AllocateRequest.Builder b = AllocateRequest.newBuilder();
    containers.forEach(
        ids -> b.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids)));
    return blocking().allocate(b.build());
  }

  /**
   * Admits one container as the kubelet's device manager does ({@code devicesToAllocate}, then one
   * Allocate per container): the container needs {@code kubeletChoice.size()} devices. When the
   * plugin advertises {@code get_preferred_allocation_available} and fewer devices are needed than
   * are healthy and free, the kubelet asks GetPreferredAllocation (available: the healthy devices
   * of the plugin's latest ListAndWatch list not yet admitted through this client, in list order;
   * no must-include IDs) and allocates the answer; otherwise it allocates {@code kubeletChoice}
   * (the kubelet's own pick, arbitrary among the free devices). A failed GetPreferredAllocation
   * fails the admission, as the kubelet's {@code UnexpectedAdmissionError}.
   *
   * @return the plugin's answer for the container
   * @throws io.grpc.StatusRuntimeException when GetPreferredAllocation or Allocate fails
   * @throws AssertionError when the preferred answer breaks the contract (size, subset)
   */
  public ContainerAllocateResponse admit(List<String> kubeletChoice) throws InterruptedException {
    DevicePluginOptions options = blocking().getDevicePluginOptions(Empty.getDefaultInstance());
    List<String> ids = List.copyOf(kubeletChoice);
    if (options.getGetPreferredAllocationAvailable()) {
      List<String> free = freeHealthy();
      if (ids.size() < free.size()) {
        PreferredAllocationRequest req =
            PreferredAllocationRequest.newBuilder()
                .addContainerRequests(
                    ContainerPreferredAllocationRequest.newBuilder()
                        .addAllAvailableDeviceIDs(free)
                        .setAllocationSize(ids.size()))
                .build();
        synchronized (preferredRequests) {
          preferredRequests.add(req);
        }
        PreferredAllocationResponse r = blocking().getPreferredAllocation(req);
        List<String> preferred = r.getContainerResponses(0).getDeviceIDsList();
        if (preferred.size() != ids.size()
            || !free.containsAll(preferred)
            || new LinkedHashSet<>(preferred).size() != preferred.size()) {
          throw new AssertionError(
              "GetPreferredAllocation answered "
                  + preferred
                  + " for "
                  + ids.size()
                  + " of "
                  + free);
        }
        ids = List.copyOf(preferred);
      }
    }
    ContainerAllocateResponse answer = allocate(List.of(ids)).getContainerResponses(0);
    synchronized (admitted) {
      admitted.addAll(ids);
      admissions.add(ids);
    }
    return answer;
  }

  /**
   * Checks what a kubelet relies on after a registration: GetDevicePluginOptions says what the
   * RegisterRequest said, and every RPC it advertises is served (GetPreferredAllocation for one
   * device of the full healthy list; PreStartContainer for one device).
   *
   * @throws AssertionError naming the option that is advertised but not served
   * @throws io.grpc.StatusRuntimeException when an advertised RPC fails
   */
  public void assertAdvertisedOptionsServed(
      io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest registration) throws InterruptedException {
    DevicePluginOptions options = blocking().getDevicePluginOptions(Empty.getDefaultInstance());
    if (!options.equals(registration.getOptions())) {
      throw new AssertionError(
          "GetDevicePluginOptions "
              + options
              + " differs from the registration's "
              + registration.getOptions());
    }
    List<String> healthy;
    try (ListAndWatchRecorder w = listAndWatch()) {
      healthy =
          w.next(Duration.ofSeconds(20)).getDevicesList().stream()
              .filter(d -> d.getHealth().equals("Healthy"))
              .map(Device::getID)
              .toList();
    }
    if (healthy.isEmpty()) throw new AssertionError("no healthy device to check the options with");
    if (options.getGetPreferredAllocationAvailable()) {
      PreferredAllocationResponse r =
          blocking()
              .getPreferredAllocation(
                  PreferredAllocationRequest.newBuilder()
                      .addContainerRequests(
                          ContainerPreferredAllocationRequest.newBuilder()
                              .addAllAvailableDeviceIDs(healthy)
                              .setAllocationSize(1))
                      .build());
      if (r.getContainerResponses(0).getDeviceIDsCount() != 1) {
        throw new AssertionError("GetPreferredAllocation of 1 device answered " + r);
      }
    }
    if (options.getPreStartRequired()) {
      preStart()
          .preStartContainer(
              io.vnpu.kube.deviceplugin.v1beta1.PreStartContainerRequest.newBuilder()
                  .addDevicesIds(healthy.get(0))
                  .build());
    }
  }

  /**
   * The kubelet forgets the devices of a pod that is gone: they are free again for {@link #admit}.
   */
  public void release(List<String> deviceIds) {
    synchronized (admitted) {
      deviceIds.forEach(admitted::remove);
    }
  }

  /** The device IDs each {@link #admit} allocated, in order. */
  public List<List<String>> admissions() {
    synchronized (admitted) {
      return List.copyOf(admissions);
    }
  }

  /** Every GetPreferredAllocation request {@link #admit} sent, in order. */
  public List<PreferredAllocationRequest> preferredRequests() {
    synchronized (preferredRequests) {
      return List.copyOf(preferredRequests);
    }
  }

  /** Healthy devices of the kubelet's latest list, minus those admitted through this client. */
  private List<String> freeHealthy() throws InterruptedException {
    ListAndWatchRecorder w = kubeletWatch;
    if (w == null) {
      w = listAndWatch();
      kubeletWatch = w;
    }
    ListAndWatchResponse list = w.latest(Duration.ofSeconds(20));
    synchronized (admitted) {
      return list.getDevicesList().stream()
          .filter(d -> d.getHealth().equals("Healthy"))
          .map(Device::getID)
          .filter(id -> !admitted.contains(id))
          .toList();
    }
  }

  /** Opens a ListAndWatch stream that records every message. */
  public ListAndWatchRecorder listAndWatch() {
    ListAndWatchRecorder r = new ListAndWatchRecorder();
    DevicePluginGrpc.newStub(channel).listAndWatch(Empty.getDefaultInstance(), r);
    return r;
  }

  @Override
  public void close() {
    ListAndWatchRecorder w = kubeletWatch;
    if (w != null) w.close();
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Records the messages of one ListAndWatch stream. */
  public static final class ListAndWatchRecorder
      implements ClientResponseObserver<Empty, ListAndWatchResponse>, AutoCloseable {
    private final BlockingQueue<ListAndWatchResponse> messages = new LinkedBlockingQueue<>();
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile Throwable error;
    private volatile ClientCallStreamObserver<Empty> call;

    @Override
    public void beforeStart(ClientCallStreamObserver<Empty> requestStream) {
      this.call = requestStream;
    }

    @Override
    public void onNext(ListAndWatchResponse value) {
      messages.add(value);
    }

    @Override
    public void onError(Throwable t) {
      error = t;
      ended.countDown();
    }

    @Override
    public void onCompleted() {
      ended.countDown();
    }

    /**
     * The next message of the stream.
     *
     * @throws AssertionError when none arrives within {@code timeout}
     */
    public ListAndWatchResponse next(Duration timeout) throws InterruptedException {
      ListAndWatchResponse m = messages.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (m == null) {
        throw new AssertionError(
            "no ListAndWatch message within "
                + timeout
                + (error != null ? " (stream failed: " + error + ")" : ""));
      }
      return m;
    }

    /**
     * The newest message received: waits up to {@code timeout} for the first, then drains what is
     * buffered and keeps the last (each message is the full list).
     */
    ListAndWatchResponse latest(Duration timeout) throws InterruptedException {
      ListAndWatchResponse m = last != null ? last : next(timeout);
      for (ListAndWatchResponse more; (more = messages.poll()) != null; ) m = more;
      last = m;
      return m;
    }

    private ListAndWatchResponse last;

    /** Messages received but not yet taken by {@link #next}. */
    public int buffered() {
      return messages.size();
    }

    /** Waits until the server ended the stream (completed or failed). */
    public boolean awaitEnd(Duration timeout) throws InterruptedException {
      return ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The error that ended the stream, empty when it completed normally or is still open. */
    public Optional<Throwable> error() {
      return Optional.ofNullable(error);
    }

    /** Cancels the stream from the client side. */
    @Override
    public void close() {
      ClientCallStreamObserver<Empty> c = call;
      if (c != null) {
        c.cancel("closed by the test", null);
      }
    }
  }
}
