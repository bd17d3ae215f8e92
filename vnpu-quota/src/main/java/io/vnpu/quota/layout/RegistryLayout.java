package io.vnpu.quota.layout;

/**
 * Offsets and constants of the per-NPU compute registry, layout "VNPUREG1" major 3 minor 0, written
 * only by the node agent (the limiter reads it with pread and never writes, maps or locks it), and
 * of the agents' own file beside it ({@code AGF_*}: lock bytes and member table; no container sees
 * it).
 *
 * <p>Mirror of {@code native/include/vnpu_registry.h}, the source of truth: every field is named
 * after its C macro without the {@code VNPU_} prefix, and {@code RegistryLayoutConformanceTest}
 * checks the values against the output of {@code native/limiter/tests/registry_offsets.c}. All
 * integers are little-endian; sizes and offsets are in bytes. Protocols: {@code
 * docs/compute-registry.md}.
 */
public final class RegistryLayout {
  private RegistryLayout() {}

  // identity
  public static final long REG_MAGIC = 0x3147455255504E56L;
  public static final int REG_MAJOR = 3;
  public static final int REG_MINOR = 1;
  public static final int REG_ENTRY_COUNT = 64;
  public static final int REG_NAME_BYTES = 32;
  public static final int REG_SYMBOL_COUNT = 32;

  // geometry
  public static final int REG_HDR_BYTES = 256;
  public static final int REG_ENTRIES_OFF = 256;
  public static final int REG_ENTRY_BYTES = 128;
  public static final int REG_FILE_BYTES = REG_ENTRIES_OFF + REG_ENTRY_COUNT * REG_ENTRY_BYTES;

  // header
  public static final int RH_MAGIC = 0;
  public static final int RH_MAJOR = 8;
  public static final int RH_MINOR = 10;
  public static final int RH_HEADER_BYTES = 12;
  public static final int RH_FILE_BYTES = 16;
  public static final int RH_INIT_STATE = 24;
  public static final int RH_ENTRY_COUNT = 28;
  public static final int RH_ENTRY_BYTES = 32;
  public static final int RH_PHYS_ID = 36;
  public static final int RH_EPOCH = 40;
  public static final int RH_CREATED_NS = 48;
  public static final int RH_ACTIVE_WINDOW_MS = 56;
  public static final int RH_BURST_US = 60;
  public static final int RH_PRIO_WAIT_MS = 64;
  public static final int RH_CREATOR = 68;
  public static final int RH_WRITE_SEQ = 72;
  public static final int RH_PUB_PERIOD_MS = 76;
  public static final int RH_PUB_COUNT = 80;
  public static final int RH_PUB_NS = 88;
  public static final int RH_PUB_WINDOW_MS = 96;
  public static final int RH_PUB_PID = 100;

  // entry
  public static final int RE_STATE = 0;
  public static final int RE_FLAGS = 4;
  public static final int RE_KEY = 8;
  public static final int RE_WEIGHT = 16;
  public static final int RE_CAP_PCT = 20;
  public static final int RE_PRIORITY_CLASS = 24;
  public static final int RE_GENERATION = 28;
  public static final int RE_NAME = 32;
  public static final int RE_DEVICE_INDEX = 64;
  public static final int RE_PUB_FLAGS = 68;
  public static final int RE_USED_PPM = 72;
  public static final int RE_BLOCKED_PPM = 76;
  public static final int RE_BUSY_NS = 80;
  public static final int RE_LAUNCHES = 88;
  public static final int RE_THROTTLED_NS = 96;
  public static final int RE_SHARE_PPM = 104;

  // enumerations
  public static final int REG_INIT_EMPTY = 0;
  public static final int REG_INIT_INITIALISING = 1;
  public static final int REG_INIT_READY = 2;
  public static final int REG_ENTRY_FREE = 0;
  public static final int REG_ENTRY_ACTIVE = 2;
  public static final int REG_CREATOR_TOOL = 1;
  public static final int REG_CREATOR_JAVA = 2;
  public static final int REG_PRIO_HIGH = 0;
  public static final int REG_PRIO_NORMAL = 1;
  public static final int REG_DEFAULT_ACTIVE_WINDOW_MS = 200;
  public static final int REG_DEFAULT_BURST_US = 20000;
  public static final int REG_DEFAULT_PRIO_WAIT_MS = 2000;
  public static final int REG_DEFAULT_PUB_PERIOD_MS = 10;
  public static final int REG_DEFAULT_PUB_WINDOW_MS = 100;
  public static final int REG_STALE_PERIODS = 20;
  public static final int REG_STALE_MIN_MS = 100;
  // RE_FLAGS (minor 1): the sharing policy as registered
  public static final int REG_EF_FIXED_SHARE = 0x1;
  public static final int REG_EF_ELASTIC = 0x2;
  public static final int REG_EF_BEST_EFFORT = 0x4;
  public static final int REG_EF_POLICY_MASK = 0x7;
  public static final int REG_PUB_VALID = 0x1;
  public static final int REG_PUB_ACTIVE = 0x2;
  public static final int REG_PUB_SATURATED = 0x4;
  public static final int REG_SATURATED_PPM = 200_000;

  // the agents' file <registry dir>.locks/npu<phyId>.reg.lock: member table, then lock bytes
  public static final int AGF_MEMBER_BYTES = 512;
  public static final int AGF_FILE_BYTES = REG_ENTRY_COUNT * AGF_MEMBER_BYTES;
  public static final int AGF_KEY = 0;
  public static final int AGF_DEV = 8;
  public static final int AGF_INO = 16;
  public static final int AGF_ENTRY = 24;
  public static final int AGF_PATH = 152;
  public static final int AGF_PATH_BYTES = 360;

  // advisory lock bytes (beyond the agents' file's end)
  public static final long REG_LOCK_BASE = 1L << 30;
  public static final long REG_LOCK_INIT = REG_LOCK_BASE;
  public static final long REG_LOCK_ADMIN = REG_LOCK_BASE + 1;
  public static final long REG_LOCK_PUBLISH = REG_LOCK_BASE + 2;

  /** Offset of entry {@code i}. */
  public static int entryOff(int i) {
    return REG_ENTRIES_OFF + i * REG_ENTRY_BYTES;
  }

  /** File name of the registry of phy ID {@code physId} inside the registry directory. */
  public static String fileName(int physId) {
    return "npu" + physId + ".reg";
  }

  /** Offset of member slot {@code i} in the agents' file. */
  public static int memberOff(int i) {
    return i * AGF_MEMBER_BYTES;
  }
}
