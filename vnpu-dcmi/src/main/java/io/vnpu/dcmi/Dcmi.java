package io.vnpu.dcmi;

import com.sun.jna.Native;
import com.sun.jna.Structure;
import com.sun.jna.ptr.IntByReference;
import io.vnpu.api.model.SuperPodInfo;
import io.vnpu.dcmi.jna.DcmiLibrary;
import io.vnpu.dcmi.jna.DcmiStructs;
import io.vnpu.dcmi.jna.DcmiStructure;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Typed access to {@code libdcmi.so}: one method per DCMI function vnpu uses, results as records,
 * errors as {@link DcmiException}. Calls are serialised by one lock (the driver is not documented
 * thread-safe); waiting for it is bounded by {@link #LOCK_TIMEOUT_SECONDS}. Optional functions an
 * older driver lacks degrade that one feature (empty result) with a single log line.
 */
public final class Dcmi {
  /** Longest wait for the DCMI call lock before failing with -8006. */
  public static final long LOCK_TIMEOUT_SECONDS = 30;

  /** {@code vdev_id}/{@code vfg_id} value that lets the driver choose. */
  public static final int AUTO_ID = 0xFFFFFFFF;

  /** {@code enum dcmi_die_type} VDIE: the die ID used as the chip UUID. */
  public static final int VDIE = 1;

  /** {@code dcmi_get_device_utilization_rate} input type for AI Core. */
  public static final int UTIL_AICORE = 2;

  /** {@code enum dcmi_reset_channel} INBAND_CHANNEL. */
  public static final int INBAND_CHANNEL = 1;

  /** {@code dcmi_get_device_boot_status} value of a fully booted chip. */
  public static final int BOOT_FINISHED = 16;

  /** {@code enum dcmi_port_type} ROCE: the parameter-plane port. */
  public static final int ROCE_PORT = 1;

  /** {@code enum dcmi_ip_addr_type} values. */
  public static final int IPADDR_TYPE_V4 = 0;

  public static final int IPADDR_TYPE_V6 = 1;

  private static final Logger LOG = LoggerFactory.getLogger(Dcmi.class);
  private static final int MAIN_CMD_VDEV_MNG = 52;
  private static final int MAIN_CMD_CHIP_INF = 12;
  private static final int SUB_SPOD_INFO = 1;
  private static final int SUB_VDEV_RESOURCE = 0;
  private static final int SUB_TOTAL_RESOURCE = 1;
  private static final int SUB_FREE_RESOURCE = 2;
  private static final int MAX_CARDS = 64;
  private static final int MAX_ERROR_CODES = 128;
  private static final int MAX_PROCESSES = 32;
  private static final int AFFINITY_LEN = 32;
  private static final int PRODUCT_TYPE_LEN = 65;
  private static final int VERSION_LEN = 33;

  private final DcmiLibrary lib;
  private final Path path;
  private final ReentrantLock lock = new ReentrantLock();
  private final Set<String> missing = ConcurrentHashMap.newKeySet();

  /**
   * Every subscribed callback of the process. DCMI has no unsubscribe: the driver keeps the
   * function pointer until the process exits, so the JNA callback behind it must never be
   * collected, even after this binding is dropped (a collected callback would crash the process on
   * the next event). Hence process-wide, and append-only.
   */
  private static final List<DcmiLibrary.FaultEventCallback> SUBSCRIBED =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  Dcmi(DcmiLibrary lib, Path path) {
    this.lib = lib;
    this.path = path;
  }

  /**
   * Loads the library (without calling {@code dcmi_init}).
   *
   * @throws DcmiException code -99999 when the file cannot be loaded
   */
  public static Dcmi load(DcmiLibrarySource source) {
    try {
      DcmiLibrary lib =
          Native.load(
              source.path().toString(),
              DcmiLibrary.class,
              Map.of(
                  com.sun.jna.Library.OPTION_OPEN_FLAGS, 0x1 | 0x100)); // RTLD_LAZY | RTLD_GLOBAL
      return new Dcmi(lib, source.path());
    } catch (UnsatisfiedLinkError e) {
      throw new DcmiException(
          "dlopen",
          DcmiErrorCode.LIBRARY_NOT_LOADED.code(),
          source.path() + " (" + source.origin() + "): " + e.getMessage(),
          e);
    }
  }

  /** The loaded library file. */
  public Path path() {
    return path;
  }

  /**
   * Optional functions found missing so far (each was logged once); their features are degraded.
   */
  public Set<String> missingFunctions() {
    return Set.copyOf(missing);
  }

  /** {@code dcmi_init}: must be the first call. */
  public void init() {
    check("dcmi_init", lib::dcmi_init, "");
  }

  /** Card IDs ({@code dcmi_get_card_list}, or its deprecated alias on drivers without it). */
  public List<Integer> cardList() {
    int[] cards = new int[MAX_CARDS];
    IntByReference num = new IntByReference();
    Optional<Integer> rc =
        optional(
            "dcmi_get_card_list",
            "card list",
            () -> lib.dcmi_get_card_list(num, cards, cards.length));
    if (rc.isEmpty()) {
      check(
          "dcmi_get_card_num_list", () -> lib.dcmi_get_card_num_list(num, cards, cards.length), "");
    } else if (rc.get() != 0) {
      throw new DcmiException("dcmi_get_card_list", rc.get(), "");
    }
    int n = Math.min(Math.max(num.getValue(), 0), cards.length);
    List<Integer> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(cards[i]);
    }
    return out;
  }

  /** Number of chips on a card ({@code dcmi_get_device_num_in_card}). */
  public int deviceNumInCard(int cardId) {
    IntByReference n = new IntByReference();
    check(
        "dcmi_get_device_num_in_card",
        () -> lib.dcmi_get_device_num_in_card(cardId, n),
        "card " + cardId);
    return n.getValue();
  }

  /** Logic ID of a chip ({@code dcmi_get_device_logic_id}). */
  public int logicId(int cardId, int deviceId) {
    IntByReference id = new IntByReference();
    check(
        "dcmi_get_device_logic_id",
        () -> lib.dcmi_get_device_logic_id(id, cardId, deviceId),
        at(cardId, deviceId));
    return id.getValue();
  }

  /** Card and device of a logic ID ({@code dcmi_get_card_id_device_id_from_logicid}). */
  public CardDevice cardDevice(int logicId) {
    IntByReference card = new IntByReference();
    IntByReference dev = new IntByReference();
    check(
        "dcmi_get_card_id_device_id_from_logicid",
        () -> lib.dcmi_get_card_id_device_id_from_logicid(card, dev, logicId),
        "logic " + logicId);
    return new CardDevice(card.getValue(), dev.getValue());
  }

  /** Phy ID of a logic ID ({@code dcmi_get_device_phyid_from_logicid}). */
  public int phyId(int logicId) {
    IntByReference phy = new IntByReference();
    check(
        "dcmi_get_device_phyid_from_logicid",
        () -> lib.dcmi_get_device_phyid_from_logicid(logicId, phy),
        "logic " + logicId);
    return phy.getValue();
  }

  /** Logic ID of a phy ID ({@code dcmi_get_device_logicid_from_phyid}). */
  public int logicIdOfPhy(int phyId) {
    IntByReference logic = new IntByReference();
    check(
        "dcmi_get_device_logicid_from_phyid",
        () -> lib.dcmi_get_device_logicid_from_phyid(phyId, logic),
        "phy " + phyId);
    return logic.getValue();
  }

  /**
   * Chip info: {@code dcmi_get_device_chip_info_v2}, falling back to v1 when v2 is missing or fails
   * (as MindCluster does).
   */
  public ChipInfo chipInfo(int cardId, int deviceId) {
    DcmiStructs.ChipInfoV2 v2 = new DcmiStructs.ChipInfoV2();
    Optional<Integer> rc =
        optional(
            "dcmi_get_device_chip_info_v2",
            "chip info v2",
            () -> lib.dcmi_get_device_chip_info_v2(cardId, deviceId, v2));
    if (rc.isPresent() && rc.get() == 0) {
      return new ChipInfo(
          DcmiStructure.text(v2.chip_type),
          DcmiStructure.text(v2.chip_name),
          DcmiStructure.text(v2.chip_ver),
          v2.aicore_cnt,
          DcmiStructure.text(v2.npu_name));
    }
    DcmiStructs.ChipInfo v1 = new DcmiStructs.ChipInfo();
    check(
        "dcmi_get_device_chip_info",
        () -> lib.dcmi_get_device_chip_info(cardId, deviceId, v1),
        at(cardId, deviceId));
    return new ChipInfo(
        DcmiStructure.text(v1.chip_type),
        DcmiStructure.text(v1.chip_name),
        DcmiStructure.text(v1.chip_ver),
        v1.aicore_cnt,
        "");
  }

  /** Health value ({@code dcmi_get_device_health}): 0 ok, 1 minor, 2 major, 3 critical. */
  public long health(int cardId, int deviceId) {
    IntByReference h = new IntByReference();
    check(
        "dcmi_get_device_health",
        () -> lib.dcmi_get_device_health(cardId, deviceId, h),
        at(cardId, deviceId));
    return h.getValue() & 0xFFFFFFFFL;
  }

  /**
   * Active fault codes ({@code dcmi_get_device_errorcode_v2}; the deprecated v1 gives only the
   * first), zero entries dropped.
   */
  public List<Long> errorCodes(int cardId, int deviceId) {
    int[] codes = new int[MAX_ERROR_CODES];
    IntByReference count = new IntByReference();
    Optional<Integer> rc =
        optional(
            "dcmi_get_device_errorcode_v2",
            "fault code list",
            () -> lib.dcmi_get_device_errorcode_v2(cardId, deviceId, count, codes, codes.length));
    List<Long> out = new ArrayList<>();
    if (rc.isEmpty()) {
      IntByReference code = new IntByReference();
      IntByReference width = new IntByReference();
      check(
          "dcmi_get_device_errorcode",
          () -> lib.dcmi_get_device_errorcode(cardId, deviceId, count, code, width),
          at(cardId, deviceId));
      if (count.getValue() > 0 && code.getValue() != 0) {
        out.add(code.getValue() & 0xFFFFFFFFL);
      }
      return out;
    }
    if (rc.get() != 0) {
      throw new DcmiException("dcmi_get_device_errorcode_v2", rc.get(), at(cardId, deviceId));
    }
    int n = Math.min(Math.max(count.getValue(), 0), codes.length);
    for (int i = 0; i < n; i++) {
      if (codes[i] != 0) {
        out.add(codes[i] & 0xFFFFFFFFL);
      }
    }
    return out;
  }

  /** HBM capacity and use ({@code dcmi_get_device_hbm_info}); empty on chips without HBM. */
  public Optional<MemoryInfo> hbmInfo(int cardId, int deviceId) {
    DcmiStructs.HbmInfo info = new DcmiStructs.HbmInfo();
    return supported(
            "dcmi_get_device_hbm_info",
            "HBM info",
            () -> lib.dcmi_get_device_hbm_info(cardId, deviceId, info),
            at(cardId, deviceId))
        .map(ok -> new MemoryInfo(info.memory_size, info.memory_usage));
  }

  /** DDR capacity and use ({@code dcmi_get_device_memory_info_v3}); empty on HBM-only chips. */
  public Optional<MemoryInfo> memoryInfo(int cardId, int deviceId) {
    DcmiStructs.MemoryInfoV3 info = new DcmiStructs.MemoryInfoV3();
    return supported(
            "dcmi_get_device_memory_info_v3",
            "DDR memory info",
            () -> lib.dcmi_get_device_memory_info_v3(cardId, deviceId, info),
            at(cardId, deviceId))
        .map(ok -> new MemoryInfo(info.memory_size, info.memory_size - info.memory_available));
  }

  /** Utilisation in percent ({@code dcmi_get_device_utilization_rate}); empty when unsupported. */
  public OptionalInt utilization(int cardId, int deviceId, int inputType) {
    IntByReference rate = new IntByReference();
    return supported(
            "dcmi_get_device_utilization_rate",
            "utilisation",
            () -> lib.dcmi_get_device_utilization_rate(cardId, deviceId, inputType, rate),
            at(cardId, deviceId))
        .map(ok -> OptionalInt.of(rate.getValue()))
        .orElse(OptionalInt.empty());
  }

  /** Die ID words ({@code dcmi_get_device_die_v2}); {@link #VDIE} is the chip UUID. */
  public long[] dieId(int cardId, int deviceId, int dieType) {
    DcmiStructs.DieId die = new DcmiStructs.DieId();
    check(
        "dcmi_get_device_die_v2",
        () -> lib.dcmi_get_device_die_v2(cardId, deviceId, dieType, die),
        at(cardId, deviceId));
    long[] words = new long[die.soc_die.length];
    for (int i = 0; i < words.length; i++) {
      words[i] = die.soc_die[i] & 0xFFFFFFFFL;
    }
    return words;
  }

  /** Board ID ({@code dcmi_get_device_board_info}); distinguishes A3 and some 910B cards. */
  public OptionalInt boardId(int cardId, int deviceId) {
    DcmiStructs.BoardInfo info = new DcmiStructs.BoardInfo();
    return supported(
            "dcmi_get_device_board_info",
            "board info",
            () -> lib.dcmi_get_device_board_info(cardId, deviceId, info),
            at(cardId, deviceId))
        .map(ok -> OptionalInt.of(info.board_id))
        .orElse(OptionalInt.empty());
  }

  /** PCIe identity ({@code dcmi_get_device_pcie_info_v2}). */
  public Optional<PcieInfo> pcieInfo(int cardId, int deviceId) {
    DcmiStructs.PcieInfoAll info = new DcmiStructs.PcieInfoAll();
    return supported(
            "dcmi_get_device_pcie_info_v2",
            "PCIe info",
            () -> lib.dcmi_get_device_pcie_info_v2(cardId, deviceId, info),
            at(cardId, deviceId))
        .map(
            ok ->
                new PcieInfo(
                    info.venderid,
                    info.deviceid,
                    info.domain,
                    info.bdf_busid,
                    info.bdf_deviceid,
                    info.bdf_funcid));
  }

  /** CPUs near the chip as a Linux cpulist, e.g. {@code 0-23}. */
  public Optional<String> affinityCpus(int cardId, int deviceId) {
    byte[] buf = new byte[AFFINITY_LEN];
    IntByReference len = new IntByReference();
    return supported(
            "dcmi_get_affinity_cpu_info_by_device_id",
            "CPU affinity",
            () -> lib.dcmi_get_affinity_cpu_info_by_device_id(cardId, deviceId, buf, len),
            at(cardId, deviceId))
        .map(
            ok ->
                new String(
                        buf,
                        0,
                        Math.min(Math.max(len.getValue(), 0), buf.length),
                        StandardCharsets.US_ASCII)
                    .trim());
  }

  /**
   * Creates a vNPU ({@code dcmi_create_vdevice}) letting the driver choose the ID.
   *
   * @return the new vNPU ID
   */
  public int createVdevice(int cardId, int deviceId, String template) {
    byte[] name = template.getBytes(StandardCharsets.US_ASCII);
    if (name.length >= 32) {
      throw new DcmiException(
          "dcmi_create_vdevice",
          DcmiErrorCode.INVALID_PARAMETER.code(),
          "template name longer than 31 bytes: '" + template + "'");
    }
    DcmiStructs.CreateVdevRes in = new DcmiStructs.CreateVdevRes();
    in.vdev_id = AUTO_ID;
    in.vfg_id = AUTO_ID;
    System.arraycopy(name, 0, in.template_name, 0, name.length);
    DcmiStructs.CreateVdevOut out = new DcmiStructs.CreateVdevOut();
    check(
        "dcmi_create_vdevice",
        () -> lib.dcmi_create_vdevice(cardId, deviceId, in, out),
        at(cardId, deviceId) + ", template " + template);
    return out.vdev_id;
  }

  /** Destroys a vNPU ({@code dcmi_set_destroy_vdevice}); -8020 while a container uses it. */
  public void destroyVdevice(int cardId, int deviceId, int vdevId) {
    check(
        "dcmi_set_destroy_vdevice",
        () -> lib.dcmi_set_destroy_vdevice(cardId, deviceId, vdevId),
        at(cardId, deviceId) + ", vNPU " + vdevId);
  }

  /** Chip totals and existing vNPU IDs ({@code dcmi_get_device_info(52, 1)}). */
  public ChipResources totalResource(int cardId, int deviceId) {
    DcmiStructs.SocTotalResource res = new DcmiStructs.SocTotalResource();
    deviceInfo(cardId, deviceId, SUB_TOTAL_RESOURCE, res);
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < Math.min(Math.max(res.vdev_num, 0), res.vdev_id.length); i++) {
      ids.add(res.vdev_id[i]);
    }
    return new ChipResources(
        res.computing.aic, res.computing.device_aicpu & 0xFFFF, res.computing.memory_size, ids);
  }

  /** Remaining resources ({@code dcmi_get_device_info(52, 2)}). */
  public ChipResources freeResource(int cardId, int deviceId) {
    DcmiStructs.SocFreeResource res = new DcmiStructs.SocFreeResource();
    deviceInfo(cardId, deviceId, SUB_FREE_RESOURCE, res);
    return new ChipResources(
        res.computing.aic,
        res.computing.device_aicpu & 0xFFFF,
        res.computing.memory_size,
        List.of());
  }

  /** One vNPU ({@code dcmi_get_device_info(52, 0)}). */
  public VdevInfo queryVdev(int cardId, int deviceId, int vdevId) {
    DcmiStructs.VdevQueryStru q = new DcmiStructs.VdevQueryStru();
    q.vdev_id = vdevId;
    deviceInfo(cardId, deviceId, SUB_VDEV_RESOURCE, q);
    DcmiStructs.VdevQueryInfo info = q.query_info;
    return new VdevInfo(
        vdevId,
        DcmiStructure.text(info.name),
        info.computing.aic,
        info.computing.device_aicpu & 0xFFFF,
        info.computing.memory_size,
        info.is_container_used != 0,
        info.vfg_id,
        info.container_id);
  }

  /**
   * Device memory per host process ({@code dcmi_get_device_resource_info}), if the driver has it.
   */
  public Optional<List<ProcessMemory>> processMemory(int cardId, int deviceId) {
    DcmiStructs.ProcMemInfo first = new DcmiStructs.ProcMemInfo();
    Structure[] procs = first.toArray(MAX_PROCESSES);
    IntByReference num = new IntByReference();
    return supported(
            "dcmi_get_device_resource_info",
            "per-process device memory",
            () -> lib.dcmi_get_device_resource_info(cardId, deviceId, first, num),
            at(cardId, deviceId))
        .map(
            ok -> {
              List<ProcessMemory> out = new ArrayList<>();
              for (int i = 0; i < Math.min(Math.max(num.getValue(), 0), procs.length); i++) {
                DcmiStructs.ProcMemInfo p = (DcmiStructs.ProcMemInfo) procs[i];
                p.read();
                out.add(new ProcessMemory(p.proc_id, p.proc_mem_usage.longValue()));
              }
              return out;
            });
  }

  /**
   * Subscribes to fault events of every chip ({@code dcmi_subscribe_fault_event} with card and
   * device -1 and a zero filter). The handler runs on the driver's thread; it is kept strongly
   * referenced for the life of this binding (the driver keeps calling it).
   *
   * @return false when the driver lacks the function or answers -8255 (polling only)
   * @throws DcmiException on any other error
   */
  public boolean subscribeFaultEvents(java.util.function.Consumer<DmsFaultEvent> handler) {
    DcmiLibrary.FaultEventCallback cb =
        p -> {
          try {
            DcmiStructs.Event ev = new DcmiStructs.Event(p);
            ev.read();
            DcmiStructs.DmsFaultEvent e = ev.event_t;
            handler.accept(
                new DmsFaultEvent(
                    e.event_id & 0xFFFFFFFFL,
                    e.deviceid & 0xFFFF,
                    e.severity & 0xFF,
                    e.assertion & 0xFF,
                    e.alarm_raised_time,
                    DcmiStructure.text(e.event_name)));
          } catch (RuntimeException e) {
            // never let an exception unwind into the driver's thread
            LOG.warn("fault event handler failed: {}", e.toString());
          }
        };
    DcmiStructs.EventFilter.ByValue all = new DcmiStructs.EventFilter.ByValue();
    SUBSCRIBED.add(cb); // before the call: the driver may call it at once
    Optional<Integer> rc =
        optional(
            "dcmi_subscribe_fault_event",
            "fault event subscription",
            () -> lib.dcmi_subscribe_fault_event(-1, -1, all, cb));
    if (rc.isEmpty() || rc.get() == DcmiErrorCode.NOT_SUPPORT.code()) return false;
    if (rc.get() != 0) throw new DcmiException("dcmi_subscribe_fault_event", rc.get(), "all chips");
    return true;
  }

  /**
   * Parameter-plane network health ({@code dcmi_get_device_network_health}): 0 OK, 1 socket
   * failure, 2 receive timeout, 3 unreachable, 4 time exceeded, 5 fault, 6 init (no detection
   * configured), 7 thread error, 8 IP set; empty on chips without RoCE (-8255 or missing function).
   */
  public OptionalInt networkHealth(int cardId, int deviceId) {
    String fn = "dcmi_get_device_network_health";
    if (missing.contains(fn)) return OptionalInt.empty();
    IntByReference result = new IntByReference();
    int rc;
    try {
      // not under the call lock: the driver may block here after a card drop (MindCluster bounds
      // it with a 1 s timeout), and a blocked call must not hold every other DCMI call up
      rc = lib.dcmi_get_device_network_health(cardId, deviceId, result);
    } catch (UnsatisfiedLinkError e) {
      if (missing.add(fn)) LOG.warn("{} lacks {}: network health unavailable", path, fn);
      return OptionalInt.empty();
    }
    if (rc == DcmiErrorCode.NOT_SUPPORT.code()) return OptionalInt.empty();
    if (rc != 0) throw new DcmiException(fn, rc, at(cardId, deviceId));
    return OptionalInt.of(result.getValue());
  }

  /**
   * The driver's DCMI version ({@code dcmi_get_dcmi_version}, buffer of 33 bytes as the MindCluster
   * plugin passes), e.g. {@code 24.1.rc2}; empty when the driver lacks the function or answers with
   * an error.
   */
  public Optional<String> dcmiVersion() {
    byte[] buf = new byte[VERSION_LEN];
    Optional<Integer> rc =
        optional(
            "dcmi_get_dcmi_version",
            "driver version",
            () -> lib.dcmi_get_dcmi_version(buf, buf.length));
    if (rc.isEmpty() || rc.get() != 0) {
      rc.ifPresent(code -> LOG.debug("dcmi_get_dcmi_version returned {}", code));
      return Optional.empty();
    }
    String v = DcmiStructure.text(buf).strip();
    return v.isEmpty() ? Optional.empty() : Optional.of(v);
  }

  /**
   * Product (card model) name ({@code dcmi_get_product_type}, buffer of 65 bytes as the MindCluster
   * plugin passes), e.g. {@code Atlas 300I Pro}, {@code Atlas 300V Pro}, {@code Atlas 300I Duo}.
   * Many server products answer with an error: any non-zero return, an empty name and a driver
   * without the function are all "no product type" (empty).
   */
  public Optional<String> productType(int cardId, int deviceId) {
    byte[] buf = new byte[PRODUCT_TYPE_LEN];
    Optional<Integer> rc =
        optional(
            "dcmi_get_product_type",
            "product type",
            () -> lib.dcmi_get_product_type(cardId, deviceId, buf, buf.length));
    if (rc.isEmpty() || rc.get() != 0) {
      rc.ifPresent(
          code -> LOG.debug("dcmi_get_product_type({}) returned {}", at(cardId, deviceId), code));
      return Optional.empty();
    }
    String name = DcmiStructure.text(buf).strip();
    return name.isEmpty() ? Optional.empty() : Optional.of(name);
  }

  /**
   * Address of a chip's port ({@code dcmi_get_device_ip}, port id {@code portId}; the mask is
   * ignored): the IPv4 address, or with {@code ipv6} the IPv6 one ({@code ip_type} set to 1 on the
   * way in, as the driver wants).
   *
   * @param portType {@link #ROCE_PORT} (parameter plane) or 0 (VNIC)
   * @throws DcmiException with the driver's code when the chip has no such address (-8255 on chips
   *     without the port), or -99998 when the driver lacks the function
   */
  public InetAddress deviceIp(int cardId, int deviceId, int portType, int portId, boolean ipv6) {
    DcmiStructs.IpAddr ip = new DcmiStructs.IpAddr();
    ip.ip_type = ipv6 ? IPADDR_TYPE_V6 : IPADDR_TYPE_V4;
    DcmiStructs.IpAddr mask = new DcmiStructs.IpAddr();
    check(
        "dcmi_get_device_ip",
        () -> lib.dcmi_get_device_ip(cardId, deviceId, portType, portId, ip, mask),
        at(cardId, deviceId)
            + ", port type "
            + portType
            + " port "
            + portId
            + (ipv6 ? ", IPv6" : ", IPv4"));
    try {
      return InetAddress.getByAddress(ipv6 ? ip.u_addr : java.util.Arrays.copyOf(ip.u_addr, 4));
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(
          "address of length " + ip.u_addr.length, e); // lengths are fixed
    }
  }

  /** Boot status ({@code dcmi_get_device_boot_status}): 16 when the chip is fully up. */
  public int bootStatus(int cardId, int deviceId) {
    IntByReference st = new IntByReference();
    check(
        "dcmi_get_device_boot_status",
        () -> lib.dcmi_get_device_boot_status(cardId, deviceId, st),
        at(cardId, deviceId));
    return st.getValue();
  }

  /**
   * Hot reset ({@code dcmi_set_device_reset}); returns at once, poll {@link #bootStatus}.
   *
   * @param channel {@link #INBAND_CHANNEL} (normal) or 0 out-of-band
   * @throws DcmiException -8020 while processes use the chip, -8015 when the reset failed
   */
  public void reset(int cardId, int deviceId, int channel) {
    check(
        "dcmi_set_device_reset",
        () -> lib.dcmi_set_device_reset(cardId, deviceId, channel),
        at(cardId, deviceId) + ", channel " + channel);
  }

  /**
   * Super-pod membership of an A3/A5 chip ({@code dcmi_get_device_info(12, 1)}, {@code
   * dcmi_spod_info}), in MindCluster's terms: the IDs as reported, -1 where the driver reports
   * 0xFFFFFFFF (not in a super-pod), -2 for both where the query is unsupported (-8255) or fails.
   */
  public SuperPodInfo superPodInfo(int cardId, int deviceId) {
    DcmiStructs.SpodInfo info = new DcmiStructs.SpodInfo();
    IntByReference size = new IntByReference(info.size());
    int rc;
    try {
      rc =
          invoke(
              "dcmi_get_device_info",
              () ->
                  lib.dcmi_get_device_info(
                      cardId, deviceId, MAIN_CMD_CHIP_INF, SUB_SPOD_INFO, info, size));
    } catch (DcmiException e) {
      return SuperPodInfo.UNKNOWN;
    }
    if (rc != 0) {
      if (rc != DcmiErrorCode.NOT_SUPPORT.code()) {
        LOG.warn("dcmi_get_device_info(CHIP_INF, SPOD) on {} failed: {}", at(cardId, deviceId), rc);
      }
      return SuperPodInfo.UNKNOWN;
    }
    return new SuperPodInfo(
        info.super_pod_id == -1 ? -1 : info.super_pod_id,
        info.server_id == -1 ? -1 : info.server_id,
        info.sdid);
  }

  private void deviceInfo(int cardId, int deviceId, int sub, DcmiStructure buf) {
    IntByReference size = new IntByReference(buf.size());
    check(
        "dcmi_get_device_info",
        () -> lib.dcmi_get_device_info(cardId, deviceId, MAIN_CMD_VDEV_MNG, sub, buf, size),
        at(cardId, deviceId) + ", VDEV_MNG sub-command " + sub);
  }

  private static String at(int cardId, int deviceId) {
    return "card " + cardId + " device " + deviceId;
  }

  private void check(String function, IntSupplier call, String context) {
    int rc = invoke(function, call);
    if (rc != 0) {
      throw new DcmiException(function, rc, context);
    }
  }

  /** Return code, or empty when the symbol is missing (logged once per function). */
  private Optional<Integer> optional(String function, String feature, IntSupplier call) {
    if (missing.contains(function)) {
      return Optional.empty();
    }
    try {
      return Optional.of(invokeRaw(function, call));
    } catch (UnsatisfiedLinkError e) {
      if (missing.add(function)) {
        LOG.warn("{} lacks {}: {} unavailable", path, function, feature);
      }
      return Optional.empty();
    }
  }

  /** Empty when the symbol is missing or the chip does not support it (-8255); throws otherwise. */
  private Optional<Boolean> supported(
      String function, String feature, IntSupplier call, String context) {
    Optional<Integer> rc = optional(function, feature, call);
    if (rc.isEmpty() || rc.get() == DcmiErrorCode.NOT_SUPPORT.code()) {
      return Optional.empty();
    }
    if (rc.get() != 0) {
      throw new DcmiException(function, rc.get(), context);
    }
    return Optional.of(Boolean.TRUE);
  }

  private int invoke(String function, IntSupplier call) {
    try {
      return invokeRaw(function, call);
    } catch (UnsatisfiedLinkError e) {
      throw new DcmiException(
          function, DcmiErrorCode.SYMBOL_NOT_FOUND.code(), path + ": " + e.getMessage(), e);
    }
  }

  private int invokeRaw(String function, IntSupplier call) {
    boolean locked;
    try {
      locked = lock.tryLock(LOCK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DcmiException(
          function,
          DcmiErrorCode.TIME_OUT.code(),
          "interrupted while waiting for the DCMI call lock",
          e);
    }
    if (!locked) {
      throw new DcmiException(
          function,
          DcmiErrorCode.TIME_OUT.code(),
          "DCMI call lock not obtained within " + LOCK_TIMEOUT_SECONDS + " s");
    }
    try {
      return call.getAsInt();
    } finally {
      lock.unlock();
    }
  }
}
