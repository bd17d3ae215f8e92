package io.vnpu.dcmi;

import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import io.vnpu.api.health.SwitchFault;
import io.vnpu.api.health.SwitchFaultProbe;
import io.vnpu.dcmi.jna.DcmiStructs;
import io.vnpu.dcmi.jna.LingQuLibrary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's LingQu (HCCS) switch faults through {@code liblingqu-dcmi.so}, which the driver ships
 * on A3 servers next to {@code libdcmi.so}: {@code lq_dcmi_init} once, then {@code
 * lq_dcmi_get_fault_info} per poll (MindCluster polls; it keeps the events of assertion 1).
 * Thread-safe: calls are serialised.
 */
public final class LingQuSwitch implements SwitchFaultProbe {
  private static final Logger LOG = LoggerFactory.getLogger(LingQuSwitch.class);

  /** The file name the driver ships. */
  public static final String LIBRARY = "liblingqu-dcmi.so";

  private static final int MAX_EVENTS = 128;

  private final LingQuLibrary lib;
  private final Path path;
  private final ReentrantLock lock = new ReentrantLock();

  private LingQuSwitch(LingQuLibrary lib, Path path) {
    this.lib = lib;
    this.path = path;
  }

  /**
   * Opens the switch library next to the DCMI library that was found, when it is there and its
   * {@code lq_dcmi_init} succeeds (only A3 servers have LingQu switches); empty otherwise, with one
   * log line saying why.
   */
  public static Optional<LingQuSwitch> open(DcmiLibrarySource dcmi) {
    Path candidate = dcmi.path().resolveSibling(LIBRARY);
    if (!Files.isRegularFile(candidate)) {
      LOG.debug("no {} beside {}: no switch faults reported", LIBRARY, dcmi.path());
      return Optional.empty();
    }
    LingQuLibrary lib;
    try {
      lib =
          Native.load(
              candidate.toString(),
              LingQuLibrary.class,
              Map.of(com.sun.jna.Library.OPTION_OPEN_FLAGS, 0x1)); // RTLD_LAZY
    } catch (UnsatisfiedLinkError e) {
      LOG.warn("{}: cannot load ({}); no switch faults reported", candidate, e.getMessage());
      return Optional.empty();
    }
    int rc;
    try {
      rc = lib.lq_dcmi_init();
    } catch (UnsatisfiedLinkError e) {
      LOG.warn("{} lacks lq_dcmi_init; no switch faults reported", candidate);
      return Optional.empty();
    }
    if (rc != 0) {
      LOG.info(
          "{}: lq_dcmi_init returned {} (no LingQu switch on this node); no switch faults reported",
          candidate,
          rc);
      return Optional.empty();
    }
    return Optional.of(new LingQuSwitch(lib, candidate));
  }

  /** The loaded library file. */
  public Path path() {
    return path;
  }

  @Override
  public List<SwitchFault> read() {
    DcmiStructs.LqDcmiEvent first = new DcmiStructs.LqDcmiEvent();
    DcmiStructs.LqDcmiEvent[] events = (DcmiStructs.LqDcmiEvent[]) first.toArray(MAX_EVENTS);
    IntByReference count = new IntByReference();
    int rc;
    lock.lock();
    try {
      rc = lib.lq_dcmi_get_fault_info(MAX_EVENTS, count, first);
    } finally {
      lock.unlock();
    }
    if (rc != 0) throw new DcmiException("lq_dcmi_get_fault_info", rc, path.toString());
    int n = count.getValue();
    if (n < 0 || n > MAX_EVENTS) {
      throw new DcmiException(
          "lq_dcmi_get_fault_info",
          DcmiErrorCode.INNER_ERR.code(),
          path + ": event count " + n + " outside 0.." + MAX_EVENTS);
    }
    List<SwitchFault> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      DcmiStructs.LqDcmiEvent e = events[i];
      e.read();
      out.add(
          new SwitchFault(
              e.eventType,
              e.subType,
              e.peerportDevice & 0xFFFF,
              e.peerportId & 0xFFFF,
              e.switchChipid & 0xFFFF,
              e.switchPortid & 0xFFFF,
              e.severity & 0xFF,
              e.assertion & 0xFF,
              Instant.ofEpochSecond(e.alarmRaisedTime)));
    }
    return out;
  }
}
