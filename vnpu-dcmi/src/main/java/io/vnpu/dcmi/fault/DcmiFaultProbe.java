package io.vnpu.dcmi.fault;

import io.vnpu.api.health.Assertion;
import io.vnpu.api.health.ChipReading;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultEvent;
import io.vnpu.api.health.FaultOrigin;
import io.vnpu.api.health.FaultProbe;
import io.vnpu.dcmi.CardDevice;
import io.vnpu.dcmi.Dcmi;
import io.vnpu.dcmi.DcmiErrorCode;
import io.vnpu.dcmi.DcmiException;
import io.vnpu.dcmi.DmsFaultEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link FaultProbe} over {@code libdcmi.so} (vnpu DCMI spec sections 1.6, 3.4):
 *
 * <ul>
 *   <li>polling: {@code dcmi_get_device_errorcode_v2} (zero entries dropped);
 *   <li>card drop: {@code dcmi_get_device_health} returning -8012 (MindCluster ignores the health
 *       value itself and so does this probe: levels come from the codes);
 *   <li>link status: {@code dcmi_get_device_network_health} on chips with RoCE: 0 is up, 6 (no
 *       detection configured) and 255 say nothing, any other result is down;
 *   <li>events: {@code dcmi_subscribe_fault_event} for all chips, only on the 910 family (as the
 *       MindCluster device plugin), tried 3 times, else polling alone.
 * </ul>
 *
 * Thread-safe (every DCMI call goes through {@link Dcmi}'s lock).
 */
public final class DcmiFaultProbe implements FaultProbe {
  private static final Logger LOG = LoggerFactory.getLogger(DcmiFaultProbe.class);
  private static final int SUBSCRIBE_TRIES = 3;
  private static final int NET_OK = 0;
  private static final int NET_INIT = 6;
  private static final int NET_MAX = 0xFF;

  private final Dcmi dcmi;
  private final Clock clock;
  private final Map<Integer, CardDevice> chips;
  private final Set<Integer> noNetwork = ConcurrentHashMap.newKeySet();

  /** Chips whose network-health call has not returned yet: no second call piles up behind it. */
  private final Set<Integer> linkPending = ConcurrentHashMap.newKeySet();

  private final ExecutorService linkCalls =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "vnpu-dcmi-network-health");
            t.setDaemon(true);
            return t;
          });
  private final boolean family910;

  /**
   * Enumerates the chips now ({@code dcmi_get_card_list}, {@code dcmi_get_device_num_in_card},
   * {@code dcmi_get_device_logic_id}).
   *
   * @param dcmi an initialised binding
   * @throws DcmiException when the chips cannot be listed
   */
  public DcmiFaultProbe(Dcmi dcmi, Clock clock) {
    this.dcmi = Objects.requireNonNull(dcmi, "dcmi");
    this.clock = Objects.requireNonNull(clock, "clock");
    Map<Integer, CardDevice> found = new TreeMap<>();
    boolean any910 = false;
    for (int card : dcmi.cardList()) {
      int n = dcmi.deviceNumInCard(card);
      for (int dev = 0; dev < n; dev++) {
        found.put(dcmi.logicId(card, dev), new CardDevice(card, dev));
        String name = dcmi.chipInfo(card, dev).name();
        any910 |= name.startsWith("910") || name.startsWith("Ascend910");
      }
    }
    this.chips = Map.copyOf(found);
    this.family910 = any910;
  }

  @Override
  public List<Integer> chips() {
    return new ArrayList<>(new TreeMap<>(chips).keySet());
  }

  @Override
  public ChipReading read(int logicId) {
    CardDevice at = chips.get(logicId);
    if (at == null) return ChipReading.failed("no chip with logic ID " + logicId);
    try {
      dcmi.health(at.cardId(), at.deviceId());
    } catch (DcmiException e) {
      if (e.errorCode() == DcmiErrorCode.NOT_READY) return ChipReading.dropped();
      return ChipReading.failed(e.getMessage());
    }
    Set<FaultCode> codes = new HashSet<>();
    try {
      for (long c : dcmi.errorCodes(at.cardId(), at.deviceId())) codes.add(new FaultCode(c));
    } catch (DcmiException e) {
      if (e.errorCode() == DcmiErrorCode.NOT_READY) return ChipReading.dropped();
      return ChipReading.failed(e.getMessage());
    }
    return ChipReading.of(codes, link(logicId, at));
  }

  /** Longest wait for {@code dcmi_get_device_network_health} (MindCluster: 1 s). */
  public static final Duration LINK_TIMEOUT = Duration.ofSeconds(1);

  private Optional<Boolean> link(int logicId, CardDevice at) {
    if (noNetwork.contains(logicId) || !linkPending.add(logicId)) return Optional.empty();
    Future<OptionalInt> call;
    try {
      call =
          linkCalls.submit(
              () -> {
                try {
                  return dcmi.networkHealth(at.cardId(), at.deviceId());
                } finally {
                  linkPending.remove(logicId);
                }
              });
    } catch (RejectedExecutionException closed) {
      linkPending.remove(logicId);
      return Optional.empty();
    }
    OptionalInt net;
    try {
      net = call.get(LINK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      LOG.warn(
          "dcmi_get_device_network_health of NPU logic {} blocked for more than {} ms: link status unknown",
          logicId,
          LINK_TIMEOUT.toMillis());
      return Optional.empty();
    } catch (ExecutionException e) {
      return Optional.empty(); // a failed link query says nothing about the link
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
    if (net.isEmpty()) {
      noNetwork.add(logicId);
      return Optional.empty();
    }
    int r = net.getAsInt();
    if (r == NET_INIT || r == NET_MAX) return Optional.empty();
    return Optional.of(r == NET_OK);
  }

  @Override
  public boolean subscribe(Consumer<FaultEvent> sink) {
    if (!family910) return false;
    Consumer<DmsFaultEvent> handler =
        e -> {
          FaultEvent ev;
          try {
            Instant t =
                e.raisedSeconds() > 0 ? Instant.ofEpochSecond(e.raisedSeconds()) : clock.instant();
            ev =
                new FaultEvent(
                    e.logicId(),
                    new FaultCode(e.eventId()),
                    Assertion.of(e.assertion()),
                    e.severity(),
                    t,
                    FaultOrigin.EVENT);
          } catch (IllegalArgumentException bad) {
            LOG.warn("fault event ignored: {} ({})", e, bad.getMessage());
            return;
          }
          sink.accept(ev);
        };
    for (int i = 1; i <= SUBSCRIBE_TRIES; i++) {
      try {
        return dcmi.subscribeFaultEvents(handler);
      } catch (DcmiException e) {
        LOG.warn(
            "fault event subscription attempt {}/{} failed: {}",
            i,
            SUBSCRIBE_TRIES,
            e.getMessage());
      }
    }
    return false;
  }

  /** Card and device of a watched chip. */
  public Optional<CardDevice> address(int logicId) {
    return Optional.ofNullable(chips.get(logicId));
  }

  /** Stops the network-health threads (a blocked one is abandoned); the binding is the caller's. */
  @Override
  public void close() {
    linkCalls.shutdownNow();
  }
}
