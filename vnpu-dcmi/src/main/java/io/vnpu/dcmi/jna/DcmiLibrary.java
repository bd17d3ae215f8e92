package io.vnpu.dcmi.jna;

import com.sun.jna.Library;
import com.sun.jna.ptr.IntByReference;

/**
 * Direct JNA mapping of the {@code libdcmi.so} functions vnpu uses (vnpu DCMI spec section 1.6).
 * Every function returns 0 or a negative DCMI error code. JNA resolves each symbol on its first
 * call, so a function an older driver lacks throws {@link UnsatisfiedLinkError} only when called.
 * Not thread-safe by contract: callers serialise (see {@code io.vnpu.dcmi.Dcmi}).
 */
public interface DcmiLibrary extends Library {
  int dcmi_init();

  int dcmi_get_card_list(IntByReference cardNum, int[] cardList, int listLen);

  /** Deprecated driver name of {@link #dcmi_get_card_list}. */
  int dcmi_get_card_num_list(IntByReference cardNum, int[] cardList, int listLen);

  int dcmi_get_device_num_in_card(int cardId, IntByReference deviceNum);

  int dcmi_get_device_logic_id(IntByReference deviceLogicId, int cardId, int deviceId);

  int dcmi_get_card_id_device_id_from_logicid(
      IntByReference cardId, IntByReference deviceId, int logicId);

  int dcmi_get_device_phyid_from_logicid(int logicId, IntByReference phyId);

  int dcmi_get_device_logicid_from_phyid(int phyId, IntByReference logicId);

  int dcmi_get_device_chip_info(int cardId, int deviceId, DcmiStructs.ChipInfo chipInfo);

  int dcmi_get_device_chip_info_v2(int cardId, int deviceId, DcmiStructs.ChipInfoV2 chipInfo);

  int dcmi_get_device_board_info(int cardId, int deviceId, DcmiStructs.BoardInfo boardInfo);

  int dcmi_get_dcmi_version(byte[] dcmiVer, int bufSize);

  int dcmi_get_product_type(int cardId, int deviceId, byte[] productTypeStr, int bufSize);

  int dcmi_get_device_ip(
      int cardId,
      int deviceId,
      int inputType,
      int portId,
      DcmiStructs.IpAddr ip,
      DcmiStructs.IpAddr mask);

  int dcmi_get_device_die_v2(int cardId, int deviceId, int dieType, DcmiStructs.DieId dieId);

  int dcmi_get_device_pcie_info_v2(int cardId, int deviceId, DcmiStructs.PcieInfoAll pcieInfo);

  int dcmi_get_affinity_cpu_info_by_device_id(
      int cardId, int deviceId, byte[] affinityCpu, IntByReference length);

  int dcmi_get_device_health(int cardId, int deviceId, IntByReference health);

  int dcmi_get_device_errorcode_v2(
      int cardId, int deviceId, IntByReference errorCount, int[] errorCodeList, int listLen);

  int dcmi_get_device_errorcode(
      int cardId,
      int deviceId,
      IntByReference errorCount,
      IntByReference errorCode,
      IntByReference errorWidth);

  int dcmi_get_device_hbm_info(int cardId, int deviceId, DcmiStructs.HbmInfo hbmInfo);

  int dcmi_get_device_memory_info_v3(int cardId, int deviceId, DcmiStructs.MemoryInfoV3 memoryInfo);

  int dcmi_get_device_utilization_rate(
      int cardId, int deviceId, int inputType, IntByReference utilizationRate);

  int dcmi_get_device_resource_info(
      int cardId, int deviceId, DcmiStructs.ProcMemInfo procInfo, IntByReference procNum);

  int dcmi_create_vdevice(
      int cardId, int deviceId, DcmiStructs.CreateVdevRes vdev, DcmiStructs.CreateVdevOut out);

  int dcmi_set_destroy_vdevice(int cardId, int deviceId, int vdevId);

  int dcmi_get_device_info(
      int cardId, int deviceId, int mainCmd, int subCmd, DcmiStructure buf, IntByReference size);

  /** {@code dcmi_fault_event_callback}: runs on a driver thread with the event. */
  interface FaultEventCallback extends com.sun.jna.Callback {
    void invoke(com.sun.jna.Pointer event);
  }

  int dcmi_subscribe_fault_event(
      int cardId, int deviceId, DcmiStructs.EventFilter.ByValue filter, FaultEventCallback handler);

  int dcmi_get_device_network_health(int cardId, int deviceId, IntByReference result);

  int dcmi_get_device_boot_status(int cardId, int deviceId, IntByReference bootStatus);

  int dcmi_set_device_reset(int cardId, int deviceId, int channelType);
}
