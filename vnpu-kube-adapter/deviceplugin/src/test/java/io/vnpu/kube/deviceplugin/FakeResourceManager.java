package io.vnpu.kube.deviceplugin;

import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import io.vnpu.kube.resource.ResourceManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A scriptable {@link ResourceManager} for tests of the gRPC side: the device list is set by the
 * test, Allocate answers are looked up by the exact device-ID list, and every call is recorded.
 */
public final class FakeResourceManager implements ResourceManager {

  /**
   * What {@link #preferredAllocation} does; defaults to the first {@code size} IDs with
   * must-include first.
   */
  public interface Preference {
    List<String> choose(List<String> available, List<String> mustInclude, int size);
  }

  private final String resourceName;
  private volatile List<PluginDevice> devices;
  private final List<Runnable> watchers = new CopyOnWriteArrayList<>();
  private final Map<List<String>, ContainerAllocation> answers = new ConcurrentHashMap<>();
  private final Map<List<String>, String> refusals = new ConcurrentHashMap<>();
  private final List<List<String>> allocateCalls = new CopyOnWriteArrayList<>();
  private final List<List<String>> preStartCalls = new CopyOnWriteArrayList<>();
  private volatile boolean preStartRequired;
  private volatile Preference preference =
      (available, mustInclude, size) -> {
        List<String> out = new ArrayList<>(mustInclude);
        for (String id : available) {
          if (out.size() == size) {
            break;
          }
          if (!out.contains(id)) {
            out.add(id);
          }
        }
        return out;
      };
  private volatile Function<List<String>, RuntimeException> crash = ids -> null;

  public FakeResourceManager(String resourceName, List<PluginDevice> devices) {
    this.resourceName = resourceName;
    this.devices = List.copyOf(devices);
  }

  @Override
  public String resourceName() {
    return resourceName;
  }

  @Override
  public List<PluginDevice> devices() {
    return devices;
  }

  /** Replaces the device list and notifies every watcher. */
  public void setDevices(List<PluginDevice> next) {
    devices = List.copyOf(next);
    watchers.forEach(Runnable::run);
  }

  public int watcherCount() {
    return watchers.size();
  }

  @Override
  public AutoCloseable watch(Runnable onChange) {
    watchers.add(onChange);
    return () -> watchers.remove(onChange);
  }

  /** Allocate of exactly {@code ids} answers {@code allocation}. */
  public void answer(List<String> ids, ContainerAllocation allocation) {
    answers.put(List.copyOf(ids), allocation);
  }

  /** Allocate of exactly {@code ids} throws an AllocationException with {@code message}. */
  public void refuse(List<String> ids, String message) {
    refusals.put(List.copyOf(ids), message);
  }

  /** Allocate throws the exception the function returns (null: no crash). */
  public void crashOn(Function<List<String>, RuntimeException> f) {
    crash = f;
  }

  @Override
  public ContainerAllocation allocate(List<String> deviceIds) throws AllocationException {
    allocateCalls.add(List.copyOf(deviceIds));
    RuntimeException boom = crash.apply(deviceIds);
    if (boom != null) {
      throw boom;
    }
    String refusal = refusals.get(deviceIds);
    if (refusal != null) {
      throw new AllocationException(refusal);
    }
    ContainerAllocation a = answers.get(deviceIds);
    if (a == null) {
      throw new AllocationException("no scripted answer for " + deviceIds);
    }
    return a;
  }

  public List<List<String>> allocateCalls() {
    return List.copyOf(allocateCalls);
  }

  public void setPreference(Preference p) {
    preference = p;
  }

  @Override
  public List<String> preferredAllocation(
      List<String> available, List<String> mustInclude, int size) {
    return preference.choose(available, mustInclude, size);
  }

  public void setPreStartRequired(boolean required) {
    preStartRequired = required;
  }

  @Override
  public boolean preStartRequired() {
    return preStartRequired;
  }

  @Override
  public void preStartContainer(List<String> deviceIds) {
    preStartCalls.add(List.copyOf(deviceIds));
  }

  public List<List<String>> preStartCalls() {
    return List.copyOf(preStartCalls);
  }
}
