package io.vnpu.kube.deviceplugin;

import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateRequest;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vnpu.kube.deviceplugin.v1beta1.DevicePluginGrpc;
import io.vnpu.kube.deviceplugin.v1beta1.Empty;
import io.vnpu.kube.deviceplugin.v1beta1.ListAndWatchResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** The kubelet's side of one plugin connection (part of {@link KubeletStandIn}). */
public final class PluginClient implements AutoCloseable {

  private final ManagedChannel channel;

  PluginClient(ManagedChannel channel) {
    this.channel = channel;
  }

  /** A blocking stub with a 5 s deadline per call. */
  public DevicePluginGrpc.DevicePluginBlockingStub blocking() {
    return DevicePluginGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  /** Allocate with one container request per list of device IDs, in order. */
  public AllocateResponse allocate(List<List<String>> containers) {
    AllocateRequest.Builder b = AllocateRequest.newBuilder();
    containers.forEach(ids -> b.addContainerRequests(
        ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids)));
    return blocking().allocate(b.build());
  }

  /** Opens a ListAndWatch stream that records every message. */
  public ListAndWatchRecorder listAndWatch() {
    ListAndWatchRecorder r = new ListAndWatchRecorder();
    DevicePluginGrpc.newStub(channel).listAndWatch(Empty.getDefaultInstance(), r);
    return r;
  }

  @Override
  public void close() {
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
        throw new AssertionError("no ListAndWatch message within " + timeout
            + (error != null ? " (stream failed: " + error + ")" : ""));
      }
      return m;
    }

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
