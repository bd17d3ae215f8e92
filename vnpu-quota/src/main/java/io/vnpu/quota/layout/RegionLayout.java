package io.vnpu.quota.layout;

/**
 * Offsets and constants of the quota region, layout "HVNP" major 1 minor 4.
 *
 * <p>Mirror of {@code native/include/vnpu_region.h}, the source of truth: every field here is named
 * after its C macro without the {@code VNPU_} prefix, and {@code RegionLayoutConformanceTest}
 * checks the values against the output of {@code native/limiter/region_offsets.c}. All integers are
 * little-endian; sizes and offsets are in bytes. The protocols are described in {@code
 * docs/region-layout.md}.
 */
public final class RegionLayout {
  private RegionLayout() {}

  // identity
  public static final long REGION_MAGIC = 0x31504E56494D4148L;
  public static final int REGION_MAJOR = 1;
  public static final int REGION_MINOR = 4;
  public static final int REGION_MAX_DEVICES = 16;
  public static final int REGION_SLOT_COUNT = 256;
  public static final int REGION_UUID_BYTES = 64;
  public static final int REGION_PATH_BYTES = 256;

  // geometry
  public static final int HDR_BYTES = 4096;
  public static final int DEVCFG_OFF = 1024;
  public static final int DEVCFG_BYTES = 128;
  public static final int DEVSTATE_OFF = 4096;
  public static final int DEVSTATE_BYTES = 256;
  public static final int SLOTS_OFF = 8192;
  public static final int SLOT_BYTES = 512;
  public static final int REGION_FILE_BYTES = SLOTS_OFF + REGION_SLOT_COUNT * SLOT_BYTES;

  // header
  public static final int H_MAGIC = 0;
  public static final int H_MAJOR = 8;
  public static final int H_MINOR = 10;
  public static final int H_HEADER_BYTES = 12;
  public static final int H_FILE_BYTES = 16;
  public static final int H_INIT_STATE = 24;
  public static final int H_DEVICE_COUNT = 28;
  public static final int H_SLOT_COUNT = 32;
  public static final int H_SLOT_BYTES = 36;
  public static final int H_EPOCH = 40;
  public static final int H_CREATED_NS = 48;
  public static final int H_POLICY_FLAGS = 56;
  public static final int H_CONFIG_SEQ = 60;
  public static final int H_SLOT_HWM = 64;
  public static final int H_DEVCFG_STRIDE = 68;
  public static final int H_DEVSTATE_STRIDE = 72;
  public static final int H_CREATOR = 76;

  /**
   * Minor 3: u32 {@code SIZED_BY_*}, who decided the slice's sizes (whether a live resize may
   * change them).
   */
  public static final int H_SIZED_BY = 80;

  public static final int H_REGISTRY_DIR = 128;
  public static final int H_SYMBOL_LAUNCHES = 512;
  public static final int H_UNHOOKED_LAUNCHES = 768;

  // device config
  public static final int DC_MEM_LIMIT = 0;
  public static final int DC_COMPUTE_WEIGHT = 8;
  public static final int DC_COMPUTE_CAP_PCT = 12;
  public static final int DC_PRIORITY_CLASS = 16;
  public static final int DC_PHYS_ID = 20;
  public static final int DC_FLAGS = 24;
  public static final int DC_UUID = 32;

  // device live state
  public static final int DS_PEAK_BYTES = 0;
  public static final int DS_OOM_REJECTIONS = 8;
  public static final int DS_REAPED_BYTES = 16;
  public static final int DS_UNKNOWN_FREES = 24;

  /** Written by writers of minor 3 and older only; readers report max(admissions, commit_seq). */
  public static final int DS_ADMISSIONS = 32;

  /** +1 by every admission (minor 4: also the admissions count). */
  public static final int DS_COMMIT_SEQ = 40;

  public static final int DS_GCRA_TAT_NS = 64;
  public static final int DS_LAUNCHES = 72;
  public static final int DS_THROTTLED_NS = 80;
  public static final int DS_LAST_LAUNCH_NS = 88;
  public static final int DS_COST_EMA_NS = 96;
  public static final int DS_BUSY_NS = 104;
  public static final int DS_SHARE_PPM = 112;
  public static final int DS_SAMPLES = 120;
  public static final int DS_BLOCKED_NS = 128;

  // process slot
  public static final int S_STATE = 0;
  public static final int S_PID = 4;
  public static final int S_STARTTIME = 8;
  public static final int S_GENERATION = 16;
  public static final int S_HOST_PID = 24;
  public static final int S_FLAGS = 28;
  public static final int S_CLAIMED_NS = 32;
  public static final int S_USED_BYTES = 64;
  public static final int S_PENDING_BYTES = 192;
  public static final int S_LAUNCHES = 320;
  public static final int S_BUSY_NS = 328;

  // enumerations
  public static final int INIT_EMPTY = 0;
  public static final int INIT_INITIALISING = 1;
  public static final int INIT_READY = 2;
  public static final int SLOT_FREE = 0;
  public static final int SLOT_CLAIMING = 1;
  public static final int SLOT_ACTIVE = 2;
  public static final int SLOT_REAPING = 3;
  public static final int SLOTF_JAVA = 1;
  public static final int CREATOR_LIMITER = 1;
  public static final int CREATOR_JAVA = 2;

  /**
   * A scheduler charged for the sizes (DRA plugin, device plugins), or an older file: never
   * resized.
   */
  public static final int SIZED_BY_SCHEDULER = 0;

  /** Host slicing ({@code vnpu run}, {@code HostSlices}): its owner may resize it live. */
  public static final int SIZED_BY_HOST = 1;

  public static final int POLICY_MEM_ENFORCE = 0x1;
  public static final int POLICY_COMPUTE_ENFORCE = 0x2;
  public static final int POLICY_COMPUTE_FAIL_OPEN = 0x4;
  public static final int POLICY_HARD_CAP = 0x8;
  public static final int POLICY_FIXED_SHARE = 0x10;
  public static final int POLICY_ELASTIC = 0x20;
  public static final int POLICY_BEST_EFFORT = 0x40;
  public static final int POLICY_SHARE_MASK = 0x70;
  public static final int POLICY_KNOWN_MASK = 0x7F;

  // advisory lock bytes, beyond EOF
  public static final long LOCK_BASE = 1L << 30;
  public static final long LOCK_INIT = LOCK_BASE;
  public static final long LOCK_CONFIG = LOCK_BASE + 1;

  // CANN return codes
  public static final int ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
  public static final int ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;

  /** Lock byte held by the owner of slot {@code i} for its lifetime. */
  public static long lockSlot(int i) {
    return LOCK_BASE + 4096 + i;
  }

  /** Offset of slot {@code i}. */
  public static int slotOff(int i) {
    return SLOTS_OFF + i * SLOT_BYTES;
  }

  /** Offset of the config of logical device {@code d}. */
  public static int devCfgOff(int d) {
    return DEVCFG_OFF + d * DEVCFG_BYTES;
  }

  /** Offset of the live state of logical device {@code d}. */
  public static int devStateOff(int d) {
    return DEVSTATE_OFF + d * DEVSTATE_BYTES;
  }
}
