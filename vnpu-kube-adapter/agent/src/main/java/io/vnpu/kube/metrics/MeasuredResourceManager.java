package io.vnpu.kube.metrics;

import io.vnpu.api.spi.DeviceException;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import io.vnpu.kube.resource.ResourceManager;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A {@link ResourceManager} that counts and times every Allocate ({@link RequestMetrics}, operation
 * {@code allocate}) of the manager it wraps; everything else is passed through unchanged, the
 * options the kubelet reads ({@link #preferredAllocationAvailable()}, {@link #preStartRequired()})
 * included: a wrapper that kept an interface default would advertise an RPC the manager does not
 * serve.
 */
public final class MeasuredResourceManager implements ResourceManager {
  /** The {@code operation} label of Allocate. */
  public static final String ALLOCATE = "allocate";

  private final ResourceManager delegate;
  private final RequestMetrics metrics;
  private final LongSupplier nanoClock;

  public MeasuredResourceManager(
      ResourceManager delegate, RequestMetrics metrics, LongSupplier nanoClock) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  @Override
  public String resourceName() {
    return delegate.resourceName();
  }

  @Override
  public List<PluginDevice> devices() {
    return delegate.devices();
  }

  @Override
  public AutoCloseable watch(Runnable onChange) {
    return delegate.watch(onChange);
  }

  @Override
  public ContainerAllocation allocate(List<String> deviceIds) throws AllocationException {
    long start = nanoClock.getAsLong();
    try {
      ContainerAllocation a = delegate.allocate(deviceIds);
      metrics.succeeded(ALLOCATE, Duration.ofNanos(nanoClock.getAsLong() - start));
      return a;
    } catch (AllocationException | RuntimeException e) {
      metrics.failed(ALLOCATE, Duration.ofNanos(nanoClock.getAsLong() - start), kindOf(e));
      throw e;
    }
  }

  /** The kind of a failure: the first limiter or driver exception in the cause chain decides. */
  public static RequestMetrics.ErrorKind kindOf(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof LimiterUnavailableException) return RequestMetrics.ErrorKind.LIMITER;
      if (t instanceof DeviceException) return RequestMetrics.ErrorKind.DEVICE;
    }
    return RequestMetrics.ErrorKind.REQUEST;
  }

  @Override
  public List<String> preferredAllocation(
      List<String> available, List<String> mustInclude, int size) {
    return delegate.preferredAllocation(available, mustInclude, size);
  }

  @Override
  public boolean preferredAllocationAvailable() {
    return delegate.preferredAllocationAvailable();
  }

  @Override
  public boolean preStartRequired() {
    return delegate.preStartRequired();
  }

  @Override
  public void preStartContainer(List<String> deviceIds) {
    delegate.preStartContainer(deviceIds);
  }
}
