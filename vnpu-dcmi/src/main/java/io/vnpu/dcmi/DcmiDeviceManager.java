package io.vnpu.dcmi;

import io.vnpu.api.model.ChipModel;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.NpuUsage;
import io.vnpu.api.model.Units;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * {@link DeviceManager} over {@code libdcmi.so}.
 *
 * <ul>
 *   <li>UUID: the VDIE die ID ({@code dcmi_get_device_die_v2}) as five upper-case 8-digit hex words
 *       joined by {@code -}, as HAMi keys devices.
 *   <li>HBM and AI Cores are read from the driver (HBM or DDR info; the vNPU total resources, else
 *       the chip info); the configured {@link ChipModel} of the chip name is only the fallback.
 *   <li>Health: {@code dcmi_get_device_health} return code -8012 means the card dropped; a non-zero
 *       value or an active fault code ({@code dcmi_get_device_errorcode_v2}) is unhealthy.
 *   <li>vNPUs: created by template name with the driver choosing the lowest free ID.
 * </ul>
 *
 * Thread-safe: every DCMI call goes through {@link Dcmi}'s single lock.
 */
public final class DcmiDeviceManager implements DeviceManager {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(DcmiDeviceManager.class);

  /** Synthetic fault code MindCluster reports for a dropped card. */
  public static final long CARD_DROP_FAULT = 0x40F84E00L;

  private final Dcmi dcmi;
  private final Map<String, ChipModel> fallbackModels;
  private final NumaNodes numa;
  private final Map<Integer, CardDevice> addresses = new ConcurrentHashMap<>();

  /**
   * @param dcmi an initialised binding ({@link Dcmi#init()} done)
   * @param fallbackModels configured chip models by chip name, used when the driver does not say
   * @param numa NUMA node lookup for the chips' CPU affinity
   */
  public DcmiDeviceManager(Dcmi dcmi, Map<String, ChipModel> fallbackModels, NumaNodes numa) {
    this.dcmi = dcmi;
    this.fallbackModels = Map.copyOf(fallbackModels);
    this.numa = numa;
  }

  /**
   * Loads the library, calls {@code dcmi_init} and returns a manager without configured fallbacks.
   *
   * @throws DcmiException when loading or {@code dcmi_init} fails
   */
  public static DcmiDeviceManager open(DcmiLibrarySource source) {
    Dcmi dcmi = Dcmi.load(source);
    dcmi.init();
    return new DcmiDeviceManager(dcmi, Map.of(), NumaNodes.system());
  }

  /** The binding, for queries beyond the SPI. */
  public Dcmi dcmi() {
    return dcmi;
  }

  @Override
  public List<Npu> discover() {
    List<Npu> npus = new ArrayList<>();
    for (int card : dcmi.cardList()) {
      int chips = dcmi.deviceNumInCard(card);
      for (int dev = 0; dev < chips; dev++) {
        npus.add(describe(card, dev));
      }
    }
    npus.sort((a, b) -> Integer.compare(a.logicId(), b.logicId()));
    return List.copyOf(npus);
  }

  private Npu describe(int card, int dev) {
    int logic = dcmi.logicId(card, dev);
    addresses.put(logic, new CardDevice(card, dev));
    int phy = dcmi.phyId(logic);
    ChipInfo chip = dcmi.chipInfo(card, dev);
    Optional<ChipModel> configured = Optional.ofNullable(fallbackModels.get(chip.name()));
    long hbmBytes =
        memory(card, dev)
            .map(m -> m.totalMb() * Units.MIB)
            .or(() -> configured.map(ChipModel::hbmBytes))
            .orElse(0L);
    Optional<ChipResources> totals = vnpuTotals(card, dev);
    int aiCores =
        totals
            .map(t -> Math.round(t.aiCores()))
            .filter(n -> n > 0)
            .orElseGet(
                () ->
                    chip.aiCores() > 0
                        ? chip.aiCores()
                        : configured.map(ChipModel::aiCores).orElse(0));
    int aiCpus =
        totals
            .map(ChipResources::aiCpus)
            .filter(n -> n > 0)
            .orElseGet(() -> configured.map(ChipModel::aiCpus).orElse(0));
    int numaNode = dcmi.affinityCpus(card, dev).map(numa::nodeOf).orElse(-1);
    return new Npu(
        uuid(dcmi.dieId(card, dev, Dcmi.VDIE)),
        logic,
        phy,
        card,
        dev,
        chip.name(),
        hbmBytes,
        aiCores,
        aiCpus,
        health(card, dev),
        numaNode);
  }

  private Optional<MemoryInfo> memory(int card, int dev) {
    return dcmi.hbmInfo(card, dev).or(() -> dcmi.memoryInfo(card, dev));
  }

  private Optional<ChipResources> vnpuTotals(int card, int dev) {
    try {
      return Optional.of(dcmi.totalResource(card, dev));
    } catch (DcmiException e) {
      if (e.errorCode() == DcmiErrorCode.NOT_SUPPORT) {
        return Optional.empty(); // chip without virtualisation
      }
      throw e;
    }
  }

  /** Die-ID words as the UUID string: {@code XXXXXXXX-XXXXXXXX-XXXXXXXX-XXXXXXXX-XXXXXXXX}. */
  public static String uuid(long[] words) {
    StringBuilder sb = new StringBuilder();
    for (long w : words) {
      if (sb.length() > 0) {
        sb.append('-');
      }
      sb.append(String.format("%08X", w & 0xFFFFFFFFL));
    }
    return sb.toString();
  }

  @Override
  public DeviceHealth health(int logicId) {
    CardDevice at;
    try {
      at = address(logicId);
    } catch (DeviceException e) {
      return DeviceHealth.unhealthy(e.getMessage());
    }
    return health(at.cardId(), at.deviceId());
  }

  private DeviceHealth health(int card, int dev) {
    long value;
    try {
      value = dcmi.health(card, dev);
    } catch (DcmiException e) {
      if (e.errorCode() == DcmiErrorCode.NOT_READY) {
        return DeviceHealth.fault(
            CARD_DROP_FAULT, "card dropped (dcmi_get_device_health returned -8012)");
      }
      return DeviceHealth.unhealthy(e.getMessage());
    }
    List<Long> codes;
    try {
      codes = dcmi.errorCodes(card, dev);
    } catch (DcmiException e) {
      if (e.errorCode() == DcmiErrorCode.NOT_READY) {
        return DeviceHealth.fault(
            CARD_DROP_FAULT, "card dropped (dcmi_get_device_errorcode_v2 returned -8012)");
      }
      return DeviceHealth.unhealthy(
          "health " + value + ", fault codes unreadable: " + e.getMessage());
    }
    if (value == 0 && codes.isEmpty()) {
      return DeviceHealth.HEALTHY;
    }
    String level = "health " + value + " (" + healthName(value) + ")";
    if (codes.isEmpty()) {
      return DeviceHealth.unhealthy(level + ", no fault code reported");
    }
    String list =
        codes.stream().map(c -> String.format("0x%08X", c)).collect(Collectors.joining(","));
    return DeviceHealth.fault(codes.get(0), "fault code " + list + ", " + level);
  }

  private static String healthName(long value) {
    return switch ((int) value) {
      case 0 -> "ok";
      case 1 -> "minor alarm";
      case 2 -> "major alarm";
      case 3 -> "critical alarm";
      case -1 -> "device absent";
      default -> "unknown";
    };
  }

  /**
   * Live memory and AI Core use of one NPU.
   *
   * @throws DcmiException when the driver cannot be queried
   */
  @Override
  public NpuUsage usage(int logicId) {
    CardDevice at = address(logicId);
    long usedBytes = memory(at.cardId(), at.deviceId()).map(m -> m.usedMb() * Units.MIB).orElse(0L);
    int util = dcmi.utilization(at.cardId(), at.deviceId(), Dcmi.UTIL_AICORE).orElse(-1);
    return new NpuUsage(usedBytes, util);
  }

  /**
   * {@code dcmi_get_device_board_info} {@code board_id}; empty when the driver lacks the function,
   * the chip answers -8255, or it reports the invalid 0xFFFFFFFF.
   *
   * @throws DeviceException when the logic ID is unknown or the query fails otherwise
   */
  @Override
  public java.util.OptionalInt boardId(int logicId) {
    CardDevice at = address(logicId);
    java.util.OptionalInt id = dcmi.boardId(at.cardId(), at.deviceId());
    return id.isPresent() && id.getAsInt() == -1 ? java.util.OptionalInt.empty() : id;
  }

  /** {@code dcmi_get_dcmi_version}, e.g. {@code 24.1.rc2}; empty when the driver does not say. */
  /**
   * {@link Dcmi#superPodInfo} of the NPU's card and device.
   *
   * @throws DeviceException when the logic ID is unknown
   */
  @Override
  public io.vnpu.api.model.SuperPodInfo superPod(int logicId) {
    CardDevice at = address(logicId);
    return dcmi.superPodInfo(at.cardId(), at.deviceId());
  }

  @Override
  public Optional<String> driverVersion() {
    return dcmi.dcmiVersion();
  }

  /**
   * {@code dcmi_get_product_type} of the chip's card; empty for server products (the driver answers
   * with an error there) and drivers without the function.
   *
   * @throws DeviceException when the logic ID is unknown
   */
  @Override
  public Optional<String> productType(int logicId) {
    CardDevice at = address(logicId);
    return dcmi.productType(at.cardId(), at.deviceId());
  }

  /**
   * The RoCE (parameter-plane) address of port 0, read as MindCluster does: {@code
   * dcmi_get_device_ip} for IPv4 first, then IPv6; a link-local IPv6 address ({@code fe80::/10})
   * and an all-zero address count as none. Empty when neither call gives one (310P/310 have no RoCE
   * port, the driver answers with an error; an unconfigured port too). Text as {@link IpText}.
   *
   * @throws DeviceException when the logic ID is unknown
   */
  @Override
  public Optional<String> roceIp(int logicId) {
    CardDevice at = address(logicId);
    for (boolean ipv6 : new boolean[] {false, true}) {
      InetAddress a;
      try {
        a = dcmi.deviceIp(at.cardId(), at.deviceId(), Dcmi.ROCE_PORT, 0, ipv6);
      } catch (DcmiException e) {
        LOG.debug(
            "no {} RoCE address on NPU logic {}: {}",
            ipv6 ? "IPv6" : "IPv4",
            logicId,
            e.getMessage());
        continue;
      }
      if (a.isAnyLocalAddress()) continue;
      if (ipv6 && a.isLinkLocalAddress()) {
        LOG.debug(
            "NPU logic {}: RoCE address {} is link-local; not reported", logicId, IpText.of(a));
        return Optional.empty();
      }
      return Optional.of(IpText.of(a));
    }
    return Optional.empty();
  }

  @Override
  public Vnpu createVnpu(int logicId, String templateName) {
    CardDevice at = address(logicId);
    int id;
    try {
      id = dcmi.createVdevice(at.cardId(), at.deviceId(), templateName);
    } catch (DcmiException e) {
      throw explainCreate(logicId, at, templateName, e);
    }
    return toVnpu(logicId, dcmi.queryVdev(at.cardId(), at.deviceId(), id));
  }

  private DcmiException explainCreate(
      int logicId, CardDevice at, String template, DcmiException e) {
    String chip = dcmi.chipInfo(at.cardId(), at.deviceId()).name();
    if (e.errorCode() == DcmiErrorCode.INVALID_PARAMETER) {
      return new DcmiException(
          e.function(),
          e.code(),
          "template '"
              + template
              + "' is not supported by chip "
              + chip
              + " on NPU logic "
              + logicId,
          e);
    }
    if (e.errorCode() == DcmiErrorCode.RESOURCE_OCCUPIED) {
      ChipResources free = dcmi.freeResource(at.cardId(), at.deviceId());
      List<Integer> existing = dcmi.totalResource(at.cardId(), at.deviceId()).vdevIds();
      return new DcmiException(
          e.function(),
          e.code(),
          "no room for template '"
              + template
              + "' on NPU logic "
              + logicId
              + " ("
              + chip
              + "): free "
              + Math.round(free.aiCores())
              + " AI Cores, "
              + free.aiCpus()
              + " AI CPUs, "
              + free.memoryMb()
              + " MB; existing vNPUs "
              + existing,
          e);
    }
    return e;
  }

  @Override
  public void destroyVnpu(int logicId, int vnpuId) {
    CardDevice at = address(logicId);
    try {
      dcmi.destroyVdevice(at.cardId(), at.deviceId(), vnpuId);
    } catch (DcmiException e) {
      if (e.errorCode() == DcmiErrorCode.RESOURCE_OCCUPIED) {
        throw new DcmiException(
            e.function(),
            e.code(),
            "vNPU " + vnpuId + " on NPU logic " + logicId + " is in use by a container",
            e);
      }
      if (e.errorCode() == DcmiErrorCode.INVALID_DEVICE_ID) {
        throw new DcmiException(
            e.function(), e.code(), "no vNPU " + vnpuId + " on NPU logic " + logicId, e);
      }
      throw e;
    }
  }

  @Override
  public List<Vnpu> listVnpus(int logicId) {
    CardDevice at = address(logicId);
    List<Vnpu> out = new ArrayList<>();
    for (int id : dcmi.totalResource(at.cardId(), at.deviceId()).vdevIds()) {
      out.add(toVnpu(logicId, dcmi.queryVdev(at.cardId(), at.deviceId(), id)));
    }
    out.sort((a, b) -> Integer.compare(a.vnpuId(), b.vnpuId()));
    return List.copyOf(out);
  }

  private static Vnpu toVnpu(int logicId, VdevInfo info) {
    return new Vnpu(
        info.vdevId(),
        logicId,
        info.template(),
        info.memoryMb(),
        Math.round(info.aiCores()),
        info.inUse());
  }

  /** Card and device of a logic ID, cached forever after the first answer (as MindCluster). */
  private CardDevice address(int logicId) {
    CardDevice cached = addresses.get(logicId);
    if (cached != null) {
      return cached;
    }
    if (logicId < 0) {
      throw new DeviceException("no NPU with logic ID " + logicId);
    }
    CardDevice at = dcmi.cardDevice(logicId);
    addresses.put(logicId, at);
    return at;
  }

  /** DCMI has no shutdown call; closing only drops the cached addresses. */
  @Override
  public void close() {
    addresses.clear();
  }
}
