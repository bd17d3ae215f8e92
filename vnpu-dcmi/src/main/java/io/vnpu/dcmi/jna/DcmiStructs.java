package io.vnpu.dcmi.jna;

import com.sun.jna.NativeLong;
import com.sun.jna.Structure.FieldOrder;

/**
 * JNA mappings of the DCMI structs (driver header {@code dcmi_interface_api.h}; sizes and offsets
 * of the vnpu DCMI spec section 1.5, LP64). Field names are the C names. {@code unsigned int} maps
 * to {@code int} (mask with {@code 0xFFFFFFFFL}), {@code unsigned long long} to {@code long},
 * {@code unsigned long} to {@link NativeLong}. Memory sizes are in MB unless a field says
 * otherwise.
 */
public final class DcmiStructs {
  private DcmiStructs() {}

  /** {@code struct dcmi_chip_info}, 100 bytes. */
  @FieldOrder({"chip_type", "chip_name", "chip_ver", "aicore_cnt"})
  public static class ChipInfo extends DcmiStructure {
    public byte[] chip_type = new byte[32];
    public byte[] chip_name = new byte[32];
    public byte[] chip_ver = new byte[32];
    public int aicore_cnt;
  }

  /** {@code struct dcmi_chip_info_v2}, 132 bytes. */
  @FieldOrder({"chip_type", "chip_name", "chip_ver", "aicore_cnt", "npu_name"})
  public static class ChipInfoV2 extends DcmiStructure {
    public byte[] chip_type = new byte[32];
    public byte[] chip_name = new byte[32];
    public byte[] chip_ver = new byte[32];
    public int aicore_cnt;
    public byte[] npu_name = new byte[32];
  }

  /** {@code struct dcmi_pcie_info_all}, 64 bytes. */
  @FieldOrder({
    "venderid",
    "subvenderid",
    "deviceid",
    "subdeviceid",
    "domain",
    "bdf_busid",
    "bdf_deviceid",
    "bdf_funcid",
    "reserve"
  })
  public static class PcieInfoAll extends DcmiStructure {
    public int venderid;
    public int subvenderid;
    public int deviceid;
    public int subdeviceid;
    public int domain;
    public int bdf_busid;
    public int bdf_deviceid;
    public int bdf_funcid;
    public byte[] reserve = new byte[32];
  }

  /** {@code struct dcmi_die_id}, 20 bytes: five 32-bit words. */
  @FieldOrder({"soc_die"})
  public static class DieId extends DcmiStructure {
    public int[] soc_die = new int[5];
  }

  /** {@code struct dcmi_board_info}, 16 bytes. */
  @FieldOrder({"board_id", "pcb_id", "bom_id", "slot_id"})
  public static class BoardInfo extends DcmiStructure {
    public int board_id;
    public int pcb_id;
    public int bom_id;
    public int slot_id;
  }

  /**
   * {@code struct dcmi_ip_addr}, 20 bytes: the union {@code u_addr} ({@code ip6[16]} or {@code
   * ip4[4]}, network byte order) as its 16 bytes, then {@code enum dcmi_ip_addr_type ip_type} (0
   * IPv4, 1 IPv6; the caller sets 1 to ask for the IPv6 address).
   */
  @FieldOrder({"u_addr", "ip_type"})
  public static class IpAddr extends DcmiStructure {
    public byte[] u_addr = new byte[16];
    public int ip_type;
  }

  /** {@code struct dcmi_hbm_info}, 32 bytes; sizes in MB. */
  @FieldOrder({"memory_size", "freq", "memory_usage", "temp", "bandwith_util_rate"})
  public static class HbmInfo extends DcmiStructure {
    public long memory_size;
    public int freq;
    public long memory_usage;
    public int temp;
    public int bandwith_util_rate;
  }

  /** {@code struct dcmi_get_memory_info_stru} (v3), 112 bytes on LP64; sizes in MB, pages in KB. */
  @FieldOrder({
    "memory_size",
    "memory_available",
    "freq",
    "hugepagesize",
    "hugepages_total",
    "hugepages_free",
    "utiliza",
    "reserve"
  })
  public static class MemoryInfoV3 extends DcmiStructure {
    public long memory_size;
    public long memory_available;
    public int freq;
    public NativeLong hugepagesize = new NativeLong();
    public NativeLong hugepages_total = new NativeLong();
    public NativeLong hugepages_free = new NativeLong();
    public int utiliza;
    public byte[] reserve = new byte[60];
  }

  /** {@code struct dcmi_proc_mem_info}, 16 bytes; usage in bytes. */
  @FieldOrder({"proc_id", "proc_mem_usage"})
  public static class ProcMemInfo extends DcmiStructure {
    public int proc_id;
    public NativeLong proc_mem_usage = new NativeLong();
  }

  /** {@code struct dcmi_multi_utilization_info}, 48 bytes; percentages. */
  @FieldOrder({"aic_util", "aiv_util", "aicore_util", "npu_util", "reserved"})
  public static class MultiUtilizationInfo extends DcmiStructure {
    public int aic_util;
    public int aiv_util;
    public int aicore_util;
    public int npu_util;
    public int[] reserved = new int[8];
  }

  /** {@code struct dcmi_create_vdev_res_stru} (input of create), 104 bytes. */
  @FieldOrder({"vdev_id", "vfg_id", "template_name", "reserved"})
  public static class CreateVdevRes extends DcmiStructure {
    public int vdev_id;
    public int vfg_id;
    public byte[] template_name = new byte[32];
    public byte[] reserved = new byte[64];
  }

  /** {@code struct dcmi_create_vdev_out}, 52 bytes. */
  @FieldOrder({"vdev_id", "pcie_bus", "pcie_device", "pcie_func", "vfg_id", "reserved"})
  public static class CreateVdevOut extends DcmiStructure {
    public int vdev_id;
    public int pcie_bus;
    public int pcie_device;
    public int pcie_func;
    public int vfg_id;
    public byte[] reserved = new byte[32];
  }

  /** {@code struct dcmi_base_resource}, 64 bytes. */
  @FieldOrder({"token", "token_max", "task_timeout", "vfg_id", "vip_mode", "reserved"})
  public static class BaseResource extends DcmiStructure {
    public long token;
    public long token_max;
    public long task_timeout;
    public int vfg_id;
    public byte vip_mode;
    public byte[] reserved = new byte[31];
  }

  /** {@code struct dcmi_computing_resource}, 96 bytes; {@code aic} is a float count of AI Cores. */
  @FieldOrder({
    "aic",
    "aiv",
    "dsa",
    "rtsq",
    "acsq",
    "cdqm",
    "c_core",
    "ffts",
    "sdma",
    "pcie_dma",
    "memory_size",
    "event_id",
    "notify_id",
    "stream_id",
    "model_id",
    "topic_schedule_aicpu",
    "host_ctrl_cpu",
    "host_aicpu",
    "device_aicpu",
    "topic_ctrl_cpu_slot",
    "vdev_aicore_utilization",
    "vdev_memory_total",
    "vdev_memory_free",
    "reserved"
  })
  public static class ComputingResource extends DcmiStructure {
    public float aic;
    public float aiv;
    public short dsa;
    public short rtsq;
    public short acsq;
    public short cdqm;
    public short c_core;
    public short ffts;
    public short sdma;
    public short pcie_dma;
    public long memory_size;
    public int event_id;
    public int notify_id;
    public int stream_id;
    public int model_id;
    public short topic_schedule_aicpu;
    public short host_ctrl_cpu;
    public short host_aicpu;
    public short device_aicpu;
    public short topic_ctrl_cpu_slot;
    public int vdev_aicore_utilization;
    public long vdev_memory_total;
    public long vdev_memory_free;
    public byte[] reserved = new byte[12];
  }

  /** {@code struct dcmi_media_resource}, 56 bytes. */
  @FieldOrder({"jpegd", "jpege", "vpc", "vdec", "pngd", "venc", "reserved"})
  public static class MediaResource extends DcmiStructure {
    public float jpegd;
    public float jpege;
    public float vpc;
    public float vdec;
    public float pngd;
    public float venc;
    public byte[] reserved = new byte[32];
  }

  /** {@code struct dcmi_vdev_query_info}, 256 bytes. */
  @FieldOrder({
    "name",
    "status",
    "is_container_used",
    "vfid",
    "vfg_id",
    "container_id",
    "base",
    "computing",
    "media"
  })
  public static class VdevQueryInfo extends DcmiStructure {
    public byte[] name = new byte[16];
    public int status;
    public int is_container_used;
    public int vfid;
    public int vfg_id;
    public long container_id;
    public BaseResource base = new BaseResource();
    public ComputingResource computing = new ComputingResource();
    public MediaResource media = new MediaResource();
  }

  /** {@code struct dcmi_vdev_query_stru}, 264 bytes; {@code vdev_id} is the input. */
  @FieldOrder({"vdev_id", "query_info"})
  public static class VdevQueryStru extends DcmiStructure {
    public int vdev_id;
    public VdevQueryInfo query_info = new VdevQueryInfo();
  }

  /** {@code struct dcmi_soc_free_resource}, 224 bytes. */
  @FieldOrder({"vfg_num", "vfg_bitmap", "base", "computing", "media"})
  public static class SocFreeResource extends DcmiStructure {
    public int vfg_num;
    public int vfg_bitmap;
    public BaseResource base = new BaseResource();
    public ComputingResource computing = new ComputingResource();
    public MediaResource media = new MediaResource();
  }

  /** {@code struct dcmi_soc_total_resource}, 360 bytes. */
  @FieldOrder({"vdev_num", "vdev_id", "vfg_num", "vfg_bitmap", "base", "computing", "media"})
  public static class SocTotalResource extends DcmiStructure {
    public int vdev_num;
    public int[] vdev_id = new int[32];
    public int vfg_num;
    public int vfg_bitmap;
    public BaseResource base = new BaseResource();
    public ComputingResource computing = new ComputingResource();
    public MediaResource media = new MediaResource();
  }

  /** {@code struct dcmi_dms_fault_event}, 352 bytes: one fault event of the driver. */
  @FieldOrder({
    "event_id",
    "deviceid",
    "node_type",
    "node_id",
    "sub_node_type",
    "sub_node_id",
    "severity",
    "assertion",
    "event_serial_num",
    "notify_serial_num",
    "alarm_raised_time",
    "event_name",
    "additional_info",
    "resv"
  })
  public static class DmsFaultEvent extends DcmiStructure {
    /** Fault code (unsigned). */
    public int event_id;

    /** Logic ID of the chip (unsigned short). */
    public short deviceid;

    public byte node_type;
    public byte node_id;
    public byte sub_node_type;
    public byte sub_node_id;

    /** 0 warning, 1 minor, 2 major, 3 critical. */
    public byte severity;

    /** 0 recovered, 1 occurred, 2 one-shot. */
    public byte assertion;

    public int event_serial_num;
    public int notify_serial_num;

    /** Seconds since the epoch. */
    public long alarm_raised_time;

    public byte[] event_name = new byte[256];
    public byte[] additional_info = new byte[32];
    public byte[] resv = new byte[32];
  }

  /** {@code struct dcmi_event}, 360 bytes: {@code type} then the event union at offset 8. */
  @FieldOrder({"type", "event_t"})
  public static class Event extends DcmiStructure {
    /** {@code enum dcmi_event_type}: 0 = DCMI_DMS_FAULT_EVENT. */
    public int type;

    public DmsFaultEvent event_t = new DmsFaultEvent();

    public Event() {}

    /** A view of the driver's event at {@code p} (read it with {@link #read()}). */
    public Event(com.sun.jna.Pointer p) {
      super(p);
    }
  }

  /** {@code struct dcmi_event_filter}, 48 bytes, passed by value; all zero = no filtering. */
  @FieldOrder({"filter_flag", "event_id", "severity", "node_type", "resv"})
  public static class EventFilter extends DcmiStructure {
    public long filter_flag;
    public int event_id;
    public byte severity;
    public byte node_type;
    public byte[] resv = new byte[32];

    /** The by-value form {@code dcmi_subscribe_fault_event} takes. */
    public static class ByValue extends EventFilter implements com.sun.jna.Structure.ByValue {}
  }

  /**
   * {@code struct dcmi_spod_info}, 48 bytes: A3/A5 super-pod membership ({@code
   * dcmi_get_device_info(12, 1)}).
   */
  @FieldOrder({
    "sdid",
    "scale_type",
    "super_pod_id",
    "server_id",
    "chassis_id",
    "super_pod_type",
    "reserve"
  })
  public static class SpodInfo extends DcmiStructure {
    public int sdid;
    public int scale_type;

    /** 0xFFFFFFFF when the chip is not in a super-pod. */
    public int super_pod_id;

    /** The server's index in its super-pod; 0xFFFFFFFF when none. */
    public int server_id;

    public int chassis_id;
    public int super_pod_type;
    public int[] reserve = new int[6];
  }

  /**
   * {@code struct LqDcmiEvent} of {@code liblingqu-dcmi.so}, 112 bytes: one LingQu (HCCS) switch
   * fault ({@code native/include/lingqu_dcmi.h}).
   */
  @FieldOrder({
    "eventType",
    "subType",
    "peerportDevice",
    "peerportId",
    "switchChipid",
    "switchPortid",
    "severity",
    "assertion",
    "res",
    "eventSerialNum",
    "notifySerialNum",
    "alarmRaisedTime",
    "additionalParam",
    "additionalInfo"
  })
  public static class LqDcmiEvent extends DcmiStructure {
    public int eventType;
    public int subType;
    public short peerportDevice;
    public short peerportId;
    public short switchChipid;
    public short switchPortid;
    public byte severity;
    public byte assertion;
    public byte[] res = new byte[6];
    public int eventSerialNum;
    public int notifySerialNum;

    /** Seconds since the epoch. */
    public long alarmRaisedTime;

    public byte[] additionalParam = new byte[40];
    public byte[] additionalInfo = new byte[32];
  }
}
