package io.vnpu.kube.dra.slices;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
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
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's pool of ResourceSlices ({@code resource.k8s.io/v1}) equal to the devices it
 * was last given: one pool named after the node, slices of at most 128 devices (64 when any device
 * has taints), each owned by the
 * Node object (so they go away with it).
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
 * valid label value) so they can be listed and watched without field selectors on {@code spec};
 * the driver and node name are also checked on every listed slice.
 */
public final class ResourceSlicePublisher implements AutoCloseable {
  /** Label with the node (or its hash) on every slice this publisher writes. */
  public static final String NODE_LABEL = "dra.vnpu.io/node";
  /** Most devices in one slice. */
  public static final int MAX_DEVICES_PER_SLICE = 128;
  /** Most devices in one slice when any device of the pool has taints (API server limit). */
  public static final int MAX_TAINTED_DEVICES_PER_SLICE = 64;

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
   * A sync for a watch event is queued (runs after {@code eventDelay}). Kept apart from
   * {@link #syncQueued}: our own write's MODIFIED event queues one, and a health change published
   * inside that delay must not wait for it (device taints are due within a second).
   */
  private final AtomicBoolean eventSyncQueued = new AtomicBoolean();

  private volatile List<Device> desired; // null until the first publish
  // executor thread only
  private long lastGeneration;
  private String nodeUid;
  private Watch watch;
  private boolean closed;
  private volatile long writes;
  private volatile boolean started;

  /**
   * @param resync     period of the full sync
   * @param eventDelay delay between a watch event and the sync it triggers (events come in bursts)
   */
  public ResourceSlicePublisher(KubernetesClient client, String driverName, String nodeName,
      Duration resync, Duration eventDelay) {
    this.client = Objects.requireNonNull(client, "client");
    this.driverName = Objects.requireNonNull(driverName, "driverName");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.nodeLabel = labelValue(nodeName);
    this.resync = resync;
    this.eventDelay = eventDelay;
    ScheduledThreadPoolExecutor exec = new ScheduledThreadPoolExecutor(1, r -> {
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
    executor.scheduleWithFixedDelay(this::syncSafely, resync.toMillis(), resync.toMillis(),
        TimeUnit.MILLISECONDS);
    executor.execute(this::ensureWatch);
  }

  /** Sets the devices of the pool and syncs soon (once started; else at the next {@link #syncNow}). */
  public void publish(List<Device> devices) {
    desired = List.copyOf(devices);
    if (started) {
      queue(syncQueued, 0);
    }
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
      executor.submit(() -> {
        closed = true;
        if (watch != null) {
          watch.close();
        }
      }).get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.debug("closing the ResourceSlice publisher: {}", e.toString());
    }
    executor.shutdownNow();
  }

  /** Queues one sync after {@code delayMs} unless one of the same kind ({@code flag}) is queued. */
  private void queue(AtomicBoolean flag, long delayMs) {
    if (flag.compareAndSet(false, true)) {
      try {
        executor.schedule(() -> {
          flag.set(false);
          syncSafely();
        }, delayMs, TimeUnit.MILLISECONDS);
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
      log.warn("publishing ResourceSlices of pool {} failed: {}; retrying in {} ms", nodeName,
          e.getMessage(), resync.toMillis());
    } catch (RuntimeException e) {
      log.warn("publishing ResourceSlices of pool {} failed", nodeName, e);
    }
  }

  private void ensureWatch() {
    if (watch != null || closed) {
      return;
    }
    try {
      watch = client.dynamicResourceAllocation().v1().resourcesSlices()
          .withLabel(NODE_LABEL, nodeLabel).watch(new Watcher<ResourceSlice>() {
            @Override
            public void eventReceived(Action action, ResourceSlice slice) {
              if (action == Action.DELETED || action == Action.MODIFIED) {
                queue(eventSyncQueued, eventDelay.toMillis());
              }
            }

            @Override
            public void onClose(WatcherException cause) {
              log.info("watch on ResourceSlices of pool {} closed ({}); re-opening at the next"
                  + " sync", nodeName, cause.getMessage());
              try {
                executor.execute(() -> watch = null);
              } catch (RejectedExecutionException e) {
                // closed
              }
            }
          });
    } catch (KubernetesClientException e) {
      log.warn("watching ResourceSlices of pool {} failed: {}", nodeName, e.getMessage());
    }
  }

  private synchronized void sync() {
    List<Device> want = desired;
    if (want == null) {
      return;
    }
    if (nodeUid == null) {
      Node node = client.nodes().withName(nodeName).get();
      if (node == null) {
        log.warn("Node {} not found; ResourceSlices are published once it exists (they are owned"
            + " by it)", nodeName);
        return;
      }
      nodeUid = node.getMetadata().getUid();
    }
    List<ResourceSlice> existing = new ArrayList<>();
    for (ResourceSlice s : client.dynamicResourceAllocation().v1().resourcesSlices()
        .withLabel(NODE_LABEL, nodeLabel).list().getItems()) {
      if (s.getSpec() != null && driverName.equals(s.getSpec().getDriver())
          && nodeName.equals(s.getSpec().getNodeName())) {
        existing.add(s);
      }
    }
    List<List<Device>> chunks = chunks(want);
    long seen = existing.stream().mapToLong(s -> s.getSpec().getPool().getGeneration())
        .max().orElse(0);
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
    for (ResourceSlice s : obsolete) {
      client.dynamicResourceAllocation().v1().resourcesSlices().resource(s).delete();
      writes++;
    }
    for (int i = 0; i < chunks.size(); i++) {
      ResourceSlice current = matched.get(i);
      ResourceSlice next = slice(current, chunks.get(i), gen, chunks.size());
      if (current == null) {
        client.dynamicResourceAllocation().v1().resourcesSlices().resource(next).create();
      } else {
        client.dynamicResourceAllocation().v1().resourcesSlices().resource(next).update();
      }
      writes++;
    }
    lastGeneration = gen;
    log.info("published ResourceSlice pool {} generation {}: {} devices in {} slice(s){}", nodeName,
        gen, want.size(), chunks.size(), obsolete.isEmpty() ? ""
            : ", removed " + obsolete.size() + " obsolete slice(s)");
  }

  private static List<List<Device>> chunks(List<Device> devices) {
    List<List<Device>> out = new ArrayList<>();
    int max = devices.stream().anyMatch(d -> d.getTaints() != null && !d.getTaints().isEmpty())
        ? MAX_TAINTED_DEVICES_PER_SLICE : MAX_DEVICES_PER_SLICE;
    for (int i = 0; i < devices.size(); i += max) {
      out.add(devices.subList(i, Math.min(devices.size(), i + max)));
    }
    if (out.isEmpty()) {
      out.add(List.of()); // "driver up, no devices" differs from "no driver"
    }
    return out;
  }

  private static Map<Integer, ResourceSlice> match(List<ResourceSlice> existing,
      List<List<Device>> chunks, long generation) {
    Map<Integer, ResourceSlice> m = new HashMap<>();
    List<ResourceSlice> current = existing.stream()
        .filter(s -> s.getSpec().getPool().getGeneration() == generation).toList();
    if (current.size() == 1 && chunks.size() == 1) {
      m.put(0, current.get(0));
      return m;
    }
    Set<ResourceSlice> used = new HashSet<>();
    for (int i = 0; i < chunks.size(); i++) {
      Set<String> names = names(chunks.get(i));
      for (ResourceSlice s : current) {
        if (!used.contains(s) && names(s.getSpec().getDevices()).equals(names)) {
          m.put(i, s);
          used.add(s);
          break;
        }
      }
    }
    return m;
  }

  private static Set<String> names(List<Device> devices) {
    Set<String> s = new HashSet<>();
    devices.forEach(d -> s.add(d.getName()));
    return s;
  }

  private boolean upToDate(ResourceSlice s, List<Device> devices, int count) {
    return s.getSpec().getPool().getResourceSliceCount() == count
        && nodeName.equals(s.getSpec().getPool().getName())
        && withoutTaintTimes(s.getSpec().getDevices()).equals(devices)
        && s.getMetadata().getOwnerReferences().stream()
            .anyMatch(o -> "Node".equals(o.getKind()) && nodeUid.equals(o.getUid()));
  }

  /**
   * The API server stamps {@code timeAdded} on taints we write without it; ignoring it keeps a
   * stamped slice from looking different from the wanted one (which would rewrite it forever).
   */
  private static List<Device> withoutTaintTimes(List<Device> devices) {
    if (devices == null || devices.stream().allMatch(d -> d.getTaints() == null
        || d.getTaints().isEmpty())) {
      return devices;
    }
    List<Device> out = new ArrayList<>(devices.size());
    for (Device d : devices) {
      if (d.getTaints() == null || d.getTaints().isEmpty()) {
        out.add(d);
        continue;
      }
      out.add(new io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder(d)
          .withTaints(d.getTaints().stream().map(t ->
              new io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder(t)
                  .withTimeAdded(null).build()).toList())
          .build());
    }
    return out;
  }

  private ResourceSlice slice(ResourceSlice current, List<Device> devices, long generation,
      int count) {
    ResourceSliceBuilder b = current == null ? new ResourceSliceBuilder()
        .withNewMetadata().withGenerateName(nodeName + "-" + driverName + "-").endMetadata()
        : new ResourceSliceBuilder(current);
    return b.editMetadata()
        .addToLabels(NODE_LABEL, nodeLabel)
        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node")
            .withName(nodeName).withUid(nodeUid).withController(true).build())
        .endMetadata()
        .withNewSpec()
        .withDriver(driverName)
        .withNodeName(nodeName)
        .withNewPool().withName(nodeName).withGeneration(generation)
        .withResourceSliceCount((long) count).endPool()
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
      byte[] d = MessageDigest.getInstance("SHA-256").digest(nodeName.getBytes(StandardCharsets.UTF_8));
      return "sha256-" + HexFormat.of().formatHex(d).substring(0, 28);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
