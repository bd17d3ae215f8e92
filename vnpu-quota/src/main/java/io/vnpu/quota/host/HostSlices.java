package io.vnpu.quota.host;

import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.quota.host.process.ChildCommand;
import io.vnpu.quota.host.process.ChildSupervisor;
import io.vnpu.quota.host.process.ExitStatus;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Host slicing as a library: what {@code vnpu run} does, for any Java program on an Ascend host.
 * Slices live in a {@link StateDir} ({@code slices/<name>/} with the record and the quota region;
 * {@code registry/npu<phyId>.reg} compute registries), so {@code vnpu top} and other processes see
 * them.
 *
 * <pre>{@code
 * try (HostSlices slices = new HostSlices(StateDir.resolve(null, System.getenv(), uid), new QuotaRegions());
 *      SliceSession s = slices.create(new HostSliceRequest("train", 0, device, List.of("python", "train.py")))) {
 *   ExitStatus st = slices.run(s, limiter, NodeRuntime.INSTALLED, List.of("python", "train.py"),
 *       System.getenv(), supervisor);
 * }
 * }</pre>
 *
 * <p>One instance per state directory per JVM: the compute registries and quota regions may be open
 * only once in a JVM ({@link QuotaRegions} guards it). Thread-safe.
 */
public final class HostSlices implements AutoCloseable {
  private final StateDir dir;
  private final QuotaRegions regions;
  private final SliceStore store;
  private final NpuRegistries registries;

  /**
   * @param dir the state directory (created on first use)
   * @param regions this JVM's region registry
   */
  public HostSlices(StateDir dir, QuotaRegions regions) {
    this.dir = Objects.requireNonNull(dir, "dir");
    this.regions = Objects.requireNonNull(regions, "regions");
    this.store = new SliceStore(dir);
    this.registries = new NpuRegistries(dir.registry());
  }

  /** The state directory. */
  public StateDir stateDir() {
    return dir;
  }

  /** The slice store of the state directory. */
  public SliceStore store() {
    return store;
  }

  /**
   * Creates a slice owned by this process: its record, its quota region ({@link
   * RegionConfig#forSlice}: memory enforced, compute weight and ceiling, fail-open on registry
   * trouble) and its compute-registry entry. A stale slice of the same name (owner gone) is
   * replaced. Close the session to remove the slice.
   *
   * @throws java.nio.file.FileAlreadyExistsException when a live slice of that name exists
   * @throws IOException when the state directory, region or registry cannot be written
   */
  public SliceSession create(HostSliceRequest request) throws IOException {
    SliceShare.SoftQuota q = request.device().softQuota();
    int weight = q.computeWeight() > 0 ? q.computeWeight() : 1;
    SliceDevice device =
        new SliceDevice(
            request.device().npu(),
            new SliceShare.SoftQuota(
                q.memoryLimitBytes(), weight, q.computeCapPct(), q.priority(), q.policy()));
    ProcessHandle me = ProcessHandle.current();
    SliceRecord record =
        new SliceRecord(
            request.name(),
            request.logicId(),
            device.npu().phyId(),
            q.memoryLimitBytes(),
            weight,
            q.computeCapPct(),
            q.priority(),
            me.pid(),
            me.info().startInstant().map(i -> i.toEpochMilli()).orElse(0L),
            System.currentTimeMillis(),
            request.command());
    RegionConfig config = RegionConfig.forSlice(List.of(device), dir.registry().toString());
    return SliceSession.create(store, regions, registries, record, config);
  }

  /**
   * Runs {@code command} in the slice under {@code supervisor} and waits for its end: the limiter
   * preloaded, pointed at the slice's region, the NPU the only visible one.
   *
   * @param limiter the limiter {@code libvnpu.so} ({@link LimiterLibrary#locate})
   * @param runtime what the node's CANN runtime needs ({@link
   *     WorkloadEnvironment.NodeRuntime#INSTALLED} on a real host)
   * @param inherited the environment the command inherits (our variables are set on top)
   * @throws io.vnpu.quota.host.process.CommandLaunchException when the program cannot be started
   * @throws InterruptedException when this thread is interrupted (the child is terminated first)
   */
  public ExitStatus run(
      SliceSession slice,
      Path limiter,
      WorkloadEnvironment.NodeRuntime runtime,
      List<String> command,
      Map<String, String> inherited,
      ChildSupervisor supervisor)
      throws IOException, InterruptedException {
    SliceRecord r = slice.record();
    WorkloadEnvironment env =
        new WorkloadEnvironment(
            limiter, slice.regionFile(), r.memoryLimitBytes(), r.weight(), r.logicId(), runtime);
    return supervisor.run(new ChildCommand(command, env.variables(inherited), null));
  }

  /**
   * Every slice of the state directory, by name; a malformed record is reported, not skipped.
   *
   * @throws IOException naming the file of a malformed record
   */
  public List<SliceRecord> list() throws IOException {
    List<SliceRecord> out = new ArrayList<>();
    for (String name : store.names()) store.read(name).ifPresent(out::add);
    return out;
  }

  /**
   * Resizes a running slice of this state directory, whichever process owns it ({@code vnpu slices
   * resize}): its quota region (the limiters of its processes re-read it: memory at the next
   * allocation, the AI-core share within 5 ms), its compute-registry entry and its record. Only a
   * slice made by host slicing is resized; one a scheduler charged for keeps its sizes. The caller
   * bounds the memory quota by the NPU's HBM. Its owner, holding the region open in this JVM, uses
   * {@link SliceSession#resize} instead.
   *
   * @return the new record
   * @throws SliceResizeException (one line, nothing changed) when no slice has that name, its owner
   *     is gone, a scheduler sized it, it does not enforce a share and one is asked for, or nothing
   *     is asked
   * @throws IllegalArgumentException for an invalid name
   * @throws IllegalStateException if this JVM holds the slice's region open
   * @throws IOException when the region, registry or record cannot be read or written
   */
  public SliceRecord resize(String name, SliceResize change) throws IOException {
    SliceRecord.checkName(name);
    Optional<SliceRecord> r = store.read(name);
    if (r.isEmpty())
      throw new SliceResizeException("no slice named '" + name + "' in " + dir.root());
    if (SliceStore.ownerGone(r.get())) {
      throw new SliceResizeException(
          "slice "
              + name
              + ": its owner (pid "
              + r.get().ownerPid()
              + ") is gone; remove it with 'vnpu slices rm "
              + name
              + "'");
    }
    QuotaRegion region;
    try {
      region = regions.open(store.regionFile(name));
    } catch (java.nio.file.NoSuchFileException e) {
      // its owner ended between our reading the record and opening the region: one line, no stack
      throw new SliceResizeException(
          "slice "
              + name
              + ": removed while being resized (its quota region "
              + store.regionFile(name)
              + " is gone); nothing changed");
    }
    try (region) {
      return SliceResizing.applyToSlice(
          store, r.get(), region, registries.forNpu(Math.max(0, r.get().phyId())), change);
    }
  }

  /**
   * Removes the slices whose owner process is gone (it died without cleaning up).
   *
   * @return the names removed, sorted
   */
  public List<String> reap() throws IOException {
    List<String> removed = new ArrayList<>();
    for (SliceRecord r : list()) {
      if (SliceStore.ownerGone(r)) {
        unregister(r);
        store.remove(r.name());
        removed.add(r.name());
      }
    }
    return removed;
  }

  /**
   * Removes one slice whose owner is gone.
   *
   * @return false when no slice of that name exists
   * @throws IllegalStateException when its owner is alive (stop the owner instead)
   */
  public boolean remove(String name) throws IOException {
    Optional<SliceRecord> r = store.read(name);
    if (r.isEmpty()) return false;
    if (!SliceStore.ownerGone(r.get())) {
      throw new IllegalStateException(
          "slice "
              + name
              + " is in use by pid "
              + r.get().ownerPid()
              + "; stop that process instead");
    }
    unregister(r.get());
    store.remove(name);
    return true;
  }

  /**
   * Frees the compute-registry entry of a slice whose owner died without closing it (kill -9): left
   * in place, it counted as a busy neighbour at its weight for every later slice of the NPU (a lone
   * slice got half the chip) and each later publisher logged its missing region.
   */
  private void unregister(SliceRecord r) throws IOException {
    Path region = store.regionFile(r.name()).toAbsolutePath().normalize();
    ComputeRegistry registry = registries.forNpu(Math.max(0, r.phyId()));
    for (long key : registry.keys()) {
      Optional<ComputeRegistry.RegisteredRegion> registered = registry.registeredRegion(key);
      if (registered.isPresent()
          && registered.get().file().toAbsolutePath().normalize().equals(region)) {
        registry.unregister(key);
      }
    }
  }

  /** Closes the compute registries this instance opened. */
  @Override
  public void close() throws IOException {
    registries.close();
  }
}
