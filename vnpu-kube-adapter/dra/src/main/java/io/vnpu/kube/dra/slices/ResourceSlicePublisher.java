package io.vnpu.kube.dra.slices;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.vnpu.kube.errors.Causes;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's pool of ResourceSlices ({@code resource.k8s.io/v1}) equal to the {@link
 * PoolContent} it was last given: one pool named after the node; counter sets in slices of their
 * own (at most 8 sets each, written before the device slices); devices in slices of at most 128 (64
 * when any device has taints or consumes counters); {@code resourceSliceCount} counts both kinds;
 * each slice owned by the Node object as it is now (so they go away with it; a Node registered
 * again under the same name has a new UID, which the slices follow at the next sync).
 *
 * <p>Dropped fields: after every create or update the slice the API server returned is compared
 * with the one sent ({@link DroppedField#between}); each field it dropped (its feature gate is off)
 * is logged once as a warning naming the field, the gate and the consequence, and reported to the
 * {@link #onDroppedFields} listener. When the dropped field is one the chips' exclusivity rests on
 * ({@link DroppedField#overCommits()}), the rest of that generation is not written, so the pool
 * stays incomplete (the scheduler allocates nothing from an incomplete pool) until the listener
 * publishes a layout without it; content that still carries such a field is not written again.
 * Other dropped fields are left out when comparing, so they do not cause endless rewrites.
 *
 * <p>Sync (idempotent, one thread): list the pool's slices; match them to the wanted ones (one and
 * one, or by identical device-name sets); if anything differs, write every wanted slice with the
 * next generation (higher than any seen or written before) and {@code resourceSliceCount}, after
 * deleting the obsolete ones; if nothing differs, write nothing. It runs after {@link #publish},
 * shortly after a watch event on the pool's slices (a kubelet restart deletes all slices of its
 * node; so does an operator), and every {@code resync} in case an event was missed. Until the first
 * {@link #publish} nothing is written: an unknown device set is never published as an empty pool.
 *
 * <p>Slices carry the label {@value #NODE_LABEL} (the node name, or a hash of it when it is not a
 * valid label value) so they can be listed and watched without field selectors on {@code spec}; the
 * driver and node name are also checked on every listed slice.
 */
public final class ResourceSlicePublisher implements AutoCloseable {
  /** Label with the node (or its hash) on every slice this publisher writes. */
  public static final String NODE_LABEL = "dra.vnpu.io/node";

  /** Most devices in one slice. */
  public static final int MAX_DEVICES_PER_SLICE = 128;

  /**
   * Most devices in one slice when any device of the pool has taints or consumes counters (API
   * server limit).
   */
  public static final int MAX_TAINTED_DEVICES_PER_SLICE = 64;

  /** Most counter sets in one slice (API server limit). */
  public static final int MAX_COUNTER_SETS_PER_SLICE = 8;

  private static final Logger log = LoggerFactory.getLogger(ResourceSlicePublisher.class);
  private static final Pattern LABEL_VALUE =
      Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");

  private final KubernetesClient client;
  private final String driverName;
  private final String nodeName;
  private final String nodeLabel;
  private final Duration resync;
  private final Duration eventDelay;
  private final ScheduledExecutorService executor;

  /** A sync for {@link #publish} is queued (runs at once). */
  private final AtomicBoolean syncQueued = new AtomicBoolean();

  /**
   * A sync for a watch event is queued (runs after {@code eventDelay}). Kept apart from {@link
   * #syncQueued}: our own write's MODIFIED event queues one, and a health change published inside
   * that delay must not wait for it (device taints are due within a second).
   */
  private final AtomicBoolean eventSyncQueued = new AtomicBoolean();

  private volatile PoolContent desired; // null until the first publish
  private volatile Consumer<Set<DroppedField>> droppedListener = f -> {};
  private final Set<DroppedField> dropped = EnumSet.noneOf(DroppedField.class); // guarded by this
  // executor thread only
  private long lastGeneration;
  private String nodeUid;
  private Watch watch;
  private boolean closed;
  private volatile long writes;
  private volatile boolean started;

  /**
   * @param resync period of the full sync
   * @param eventDelay delay between a watch event and the sync it triggers (events come in bursts)
   */
  public ResourceSlicePublisher(
      KubernetesClient client,
      String driverName,
      String nodeName,
      Duration resync,
      Duration eventDelay) {
    this.client = Objects.requireNonNull(client, "client");
    this.driverName = Objects.requireNonNull(driverName, "driverName");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.nodeLabel = labelValue(nodeName);
    this.resync = resync;
    this.eventDelay = eventDelay;
    ScheduledThreadPoolExecutor exec =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "resource-slice-publisher");
              t.setDaemon(true);
              return t;
            });
    exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.executor = exec;
  }

  /** Starts the periodic sync and the watch. */
  public void start() {
    started = true;
    executor.scheduleWithFixedDelay(
        this::syncSafely, resync.toMillis(), resync.toMillis(), TimeUnit.MILLISECONDS);
    executor.execute(this::ensureWatch);
  }

  /**
   * Sets the devices of the pool and syncs soon (once started; else at the next {@link #syncNow}).
   */
  public void publish(List<Device> devices) {
    publish(PoolContent.of(devices));
  }

  /**
   * Sets the counter sets and devices of the pool and syncs soon (once started; else at the next
   * {@link #syncNow}).
   */
  public void publish(PoolContent content) {
    desired = Objects.requireNonNull(content, "content");
    if (started) {
      queue(syncQueued, 0);
    }
  }

  /**
   * Tells {@code listener} the fields the API server dropped, each time a write reveals one not
   * seen before (on the publisher's thread, inside the sync; it may call {@link #publish}).
   */
  public void onDroppedFields(Consumer<Set<DroppedField>> listener) {
    droppedListener = Objects.requireNonNull(listener, "listener");
  }

  /** The fields the API server has dropped so far. */
  public synchronized Set<DroppedField> droppedFields() {
    return Set.copyOf(dropped);
  }

  /** Slice writes (create, update, delete) done so far. */
  public long writes() {
    return writes;
  }

  /**
   * Runs one sync now on the caller's thread, bypassing the queue (for benchmarks and tests that
   * drive the publisher by hand; do not mix with {@link #start()}).
   */
  public void syncNow() {
    sync();
  }

  @Override
  public void close() {
    try {
      executor
          .submit(
              () -> {
                closed = true;
                if (watch != null) {
                  watch.close();
                }
              })
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.debug("closing the ResourceSlice publisher: {}", e.toString());
    }
    executor.shutdownNow();
  }

  /** Queues one sync after {@code delayMs} unless one of the same kind ({@code flag}) is queued. */
  private void queue(AtomicBoolean flag, long delayMs) {
    if (flag.compareAndSet(false, true)) {
      try {
        executor.schedule(
            () -> {
              flag.set(false);
              syncSafely();
            },
            delayMs,
            TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        flag.set(false);
      }
    }
  }

  private void syncSafely() {
    if (closed) {
      return;
    }
    try {
      ensureWatch();
      sync();
    } catch (KubernetesClientException e) {
      log.warn(
          "publishing ResourceSlices of pool {} failed: {}; retrying in {} ms",
          nodeName,
          Causes.describe(e),
          resync.toMillis());
    } catch (RuntimeException e) {
      log.warn("publishing ResourceSlices of pool {} failed", nodeName, e);
    }
  }

  private void ensureWatch() {
    if (watch != null || closed) {
      return;
    }
    try {
      watch =
          client
              .dynamicResourceAllocation()
              .v1()
              .resourcesSlices()
              .withLabel(NODE_LABEL, nodeLabel)
              .watch(
                  new Watcher<ResourceSlice>() {
                    @Override
                    public void eventReceived(Action action, ResourceSlice slice) {
                      if (action == Action.DELETED || action == Action.MODIFIED) {
                        queue(eventSyncQueued, eventDelay.toMillis());
                      }
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                      log.info(
                          "watch on ResourceSlices of pool {} closed ({}); re-opening at the next"
                              + " sync",
                          nodeName,
                          cause.getMessage());
                      try {
                        executor.execute(() -> watch = null);
                      } catch (RejectedExecutionException e) {
                        // closed
                      }
                    }
                  });
    } catch (KubernetesClientException e) {
      log.warn("watching ResourceSlices of pool {} failed: {}", nodeName, Causes.describe(e));
    }
  }

  private synchronized void sync() {
    PoolContent want = desired;
    if (want == null) {
      return;
    }
    for (DroppedField f : dropped) {
      if (f.overCommits() && carries(want, f)) {
        log.debug(
            "not publishing pool {}: it still needs {}, which the API server drops",
            nodeName,
            f.path());
        return;
      }
    }
    // read every sync: a Node deleted and registered again has a new UID, and slices owned by
    // the old one are deleted by the garbage collector (and would be written back, in a loop)
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      log.warn(
          "Node {} not found; ResourceSlices are published once it exists (they are owned"
              + " by it)",
          nodeName);
      return;
    }
    String uid = node.getMetadata().getUid();
    if (nodeUid != null && !nodeUid.equals(uid)) {
      log.info(
          "Node {} was registered again (uid {} -> {}): its ResourceSlices are owned by the"
              + " new Node object",
          nodeName,
          nodeUid,
          uid);
    }
    nodeUid = uid;
    List<ResourceSlice> existing = new ArrayList<>();
    for (ResourceSlice s :
        client
            .dynamicResourceAllocation()
            .v1()
            .resourcesSlices()
            .withLabel(NODE_LABEL, nodeLabel)
            .list()
            .getItems()) {
      if (s.getSpec() != null
          && driverName.equals(s.getSpec().getDriver())
          && nodeName.equals(s.getSpec().getNodeName())) {
        existing.add(s);
      }
    }
    List<Chunk> chunks = chunks(want);
    long seen =
        existing.stream().mapToLong(s -> s.getSpec().getPool().getGeneration()).max().orElse(0);
    Map<Integer, ResourceSlice> matched = match(existing, chunks, seen);
    List<ResourceSlice> obsolete = new ArrayList<>(existing);
    obsolete.removeAll(matched.values());
    boolean changed = !obsolete.isEmpty() || matched.size() < chunks.size();
    for (var e : matched.entrySet()) {
      changed |= !upToDate(e.getValue(), chunks.get(e.getKey()), chunks.size());
    }
    if (!changed) {
      return;
    }
    long gen = Math.max(seen, lastGeneration) + 1;
    lastGeneration = gen;
    for (ResourceSlice s : obsolete) {
      client.dynamicResourceAllocation().v1().resourcesSlices().resource(s).delete();
      writes++;
    }
    // counter slices come first: a server that drops sharedCounters is noticed before any device
    // slice that relies on them completes the pool
    for (int i = 0; i < chunks.size(); i++) {
      ResourceSlice current = matched.get(i);
      ResourceSlice next = slice(current, chunks.get(i), gen, chunks.size());
      ResourceSlice stored =
          current == null
              ? client.dynamicResourceAllocation().v1().resourcesSlices().resource(next).create()
              : client.dynamicResourceAllocation().v1().resourcesSlices().resource(next).update();
      writes++;
      Set<DroppedField> lost =
          DroppedField.between(next.getSpec(), stored == null ? null : stored.getSpec());
      if (!lost.isEmpty()
          && droppedNow(lost, stored == null ? null : stored.getMetadata().getName())) {
        log.warn(
            "stopped publishing generation {} of pool {} after {} of {} slice(s): the pool"
                + " stays incomplete (nothing is allocated from it) until it is published without"
                + " the dropped field(s)",
            gen,
            nodeName,
            i + 1,
            chunks.size());
        return;
      }
    }
    log.info(
        "published ResourceSlice pool {} generation {}: {} devices, {} counter set(s) in {}"
            + " slice(s){}",
        nodeName,
        gen,
        want.devices().size(),
        want.counterSets().size(),
        chunks.size(),
        obsolete.isEmpty() ? "" : ", removed " + obsolete.size() + " obsolete slice(s)");
  }

  /**
   * Records {@code lost}, warns once per field, tells the listener about new ones; true when a
   * field the chips' exclusivity rests on was dropped (stop writing this generation).
   */
  private boolean droppedNow(Set<DroppedField> lost, String sliceName) {
    Set<DroppedField> fresh = EnumSet.noneOf(DroppedField.class);
    for (DroppedField f : lost) {
      if (dropped.add(f)) {
        fresh.add(f);
        log.warn("{}", f.warning(sliceName));
      }
    }
    if (!fresh.isEmpty()) {
      droppedListener.accept(Set.copyOf(fresh));
    }
    return lost.stream().anyMatch(DroppedField::overCommits);
  }

  private static boolean carries(PoolContent want, DroppedField f) {
    if (f == DroppedField.SHARED_COUNTERS) {
      return !want.counterSets().isEmpty();
    }
    return want.devices().stream().anyMatch(f::in);
  }

  /** One slice's worth: counter sets or devices, never both. */
  private record Chunk(List<CounterSet> counterSets, List<Device> devices) {
    Set<String> key() {
      Set<String> k = new HashSet<>();
      counterSets.forEach(c -> k.add("counterSet:" + c.getName()));
      devices.forEach(d -> k.add("device:" + d.getName()));
      return k;
    }
  }

  private static List<Chunk> chunks(PoolContent content) {
    List<Chunk> out = new ArrayList<>();
    List<CounterSet> sets = content.counterSets();
    for (int i = 0; i < sets.size(); i += MAX_COUNTER_SETS_PER_SLICE) {
      out.add(
          new Chunk(
              sets.subList(i, Math.min(sets.size(), i + MAX_COUNTER_SETS_PER_SLICE)), List.of()));
    }
    List<Device> devices = content.devices();
    int max =
        devices.stream()
                .anyMatch(
                    d ->
                        d.getTaints() != null && !d.getTaints().isEmpty()
                            || d.getConsumesCounters() != null
                                && !d.getConsumesCounters().isEmpty())
            ? MAX_TAINTED_DEVICES_PER_SLICE
            : MAX_DEVICES_PER_SLICE;
    for (int i = 0; i < devices.size(); i += max) {
      out.add(new Chunk(List.of(), devices.subList(i, Math.min(devices.size(), i + max))));
    }
    if (devices.isEmpty()) {
      out.add(new Chunk(List.of(), List.of())); // "driver up, no devices" differs from "no driver"
    }
    return out;
  }

  private static Set<String> key(ResourceSlice s) {
    Set<String> k = new HashSet<>();
    if (s.getSpec().getSharedCounters() != null) {
      s.getSpec().getSharedCounters().forEach(c -> k.add("counterSet:" + c.getName()));
    }
    if (s.getSpec().getDevices() != null) {
      s.getSpec().getDevices().forEach(d -> k.add("device:" + d.getName()));
    }
    return k;
  }

  private static Map<Integer, ResourceSlice> match(
      List<ResourceSlice> existing, List<Chunk> chunks, long generation) {
    Map<Integer, ResourceSlice> m = new HashMap<>();
    List<ResourceSlice> current =
        existing.stream().filter(s -> s.getSpec().getPool().getGeneration() == generation).toList();
    if (current.size() == 1 && chunks.size() == 1) {
      m.put(0, current.get(0));
      return m;
    }
    Set<ResourceSlice> used = new HashSet<>();
    for (int i = 0; i < chunks.size(); i++) {
      Set<String> k = chunks.get(i).key();
      for (ResourceSlice s : current) {
        if (!used.contains(s) && key(s).equals(k)) {
          m.put(i, s);
          used.add(s);
          break;
        }
      }
    }
    return m;
  }

  private boolean upToDate(ResourceSlice s, Chunk chunk, int count) {
    return s.getSpec().getPool().getResourceSliceCount() == count
        && nodeName.equals(s.getSpec().getPool().getName())
        && orEmpty(s.getSpec().getSharedCounters()).equals(chunk.counterSets())
        && orEmpty(withoutTaintTimes(s.getSpec().getDevices()))
            .equals(DroppedField.strip(dropped, chunk.devices()))
        && s.getMetadata().getOwnerReferences().stream()
            .anyMatch(o -> "Node".equals(o.getKind()) && nodeUid.equals(o.getUid()));
  }

  private static <T> List<T> orEmpty(List<T> l) {
    return l == null ? List.of() : l;
  }

  /**
   * The API server stamps {@code timeAdded} on taints we write without it; ignoring it keeps a
   * stamped slice from looking different from the wanted one (which would rewrite it forever).
   */
  private static List<Device> withoutTaintTimes(List<Device> devices) {
    if (devices == null
        || devices.stream().allMatch(d -> d.getTaints() == null || d.getTaints().isEmpty())) {
      return devices;
    }
    List<Device> out = new ArrayList<>(devices.size());
    for (Device d : devices) {
      if (d.getTaints() == null || d.getTaints().isEmpty()) {
        out.add(d);
        continue;
      }
      out.add(
          new io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder(d)
              .withTaints(
                  d.getTaints().stream()
                      .map(
                          t ->
                              new io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder(t)
                                  .withTimeAdded(null)
                                  .build())
                      .toList())
              .build());
    }
    return out;
  }

  private ResourceSlice slice(ResourceSlice current, Chunk chunk, long generation, int count) {
    List<CounterSet> counters = chunk.counterSets().isEmpty() ? null : chunk.counterSets();
    List<Device> devices = counters == null ? chunk.devices() : null;
    ResourceSliceBuilder b =
        current == null
            ? new ResourceSliceBuilder()
                .withNewMetadata()
                .withGenerateName(nodeName + "-" + driverName + "-")
                .endMetadata()
            : new ResourceSliceBuilder(current);
    return b.editMetadata()
        .addToLabels(NODE_LABEL, nodeLabel)
        .withOwnerReferences(
            new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Node")
                .withName(nodeName)
                .withUid(nodeUid)
                .withController(true)
                .build())
        .endMetadata()
        .withNewSpec()
        .withDriver(driverName)
        .withNodeName(nodeName)
        .withNewPool()
        .withName(nodeName)
        .withGeneration(generation)
        .withResourceSliceCount((long) count)
        .endPool()
        .withSharedCounters(counters)
        .withDevices(devices)
        .endSpec()
        .build();
  }

  /** The node name when it is a valid label value, else {@code sha256-<first 28 hex digits>}. */
  static String labelValue(String nodeName) {
    if (nodeName.length() <= 63 && LABEL_VALUE.matcher(nodeName).matches()) {
      return nodeName;
    }
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256").digest(nodeName.getBytes(StandardCharsets.UTF_8));
      return "sha256-" + HexFormat.of().formatHex(d).substring(0, 28);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
