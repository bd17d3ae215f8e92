/*
 * The LingQu (HCCS switch) fault API of liblingqu-dcmi.so as the Ascend driver ships it on A3
 * servers, the subset a device plugin calls to report the node's switch faults (MindCluster's
 * SwitchInfoCfg). Written from the published function list and struct layout (LP64):
 *
 *   struct LqDcmiEvent, 112 bytes:
 *     @0  u32 eventType (HalReportFaultType)   @4  u32 subType
 *     @8  u16 peerportDevice (0 CPU, 1 NPU, 2 switch, 0xFFFF none)  @10 u16 peerportId
 *     @12 u16 switchChipid   @14 u16 switchPortid
 *     @16 u8 severity (0 notice, 1 minor, 2 major, 3 critical)  @17 u8 assertion (0 recovered,
 *         1 occurred, 2 one-shot)  @18 char res[6]
 *     @24 u32 eventSerialNum  @28 u32 notifySerialNum  @32 u64 alarmRaisedTime (s since epoch)
 *     @40 u8 additionalParam[40]  @80 char additionalInfo[32]
 *
 * Return codes are the DCMI ones (0 success, negative errors).
 */
#ifndef VNPU_LINGQU_DCMI_H
#define VNPU_LINGQU_DCMI_H

typedef enum {
    HAL_REPORT_FAULT_BLOCK = 0,
    HAL_REPORT_FAULT_MEMORY,
    HAL_REPORT_FAULT_DISCARD,
    HAL_REPORT_FAULT_MEMORY_ALARM,
    HAL_REPORT_FAULT_MODULE_RESET,
    HAL_REPORT_HEART_LASTWORD,
    HAL_REPORT_FAULT_HEART,
    HAL_REPORT_PORT_FAULT_INVALID_PKG,
    HAL_REPORT_PORT_FAULT_UNSTABLE,
    HAL_REPORT_PORT_FAULT_FAIL,
    HAL_REPORT_FAULT_BY_DEVICE,
    HAL_REPORT_FAULT_CONFIG,
    HAL_REPORT_FAULT_MEM_SINGLE,
    HAL_REPORT_FAULT_M7,
    HAL_REPORT_FAULT_BLOCK_C,
    HAL_REPORT_FAULT_MEM_MULTI,
    HAL_REPORT_FAULT_PCIE,
    HAL_REPORT_FAULT_FATAL,
    HAL_REPORT_PORT_FAULT_TIMEOUT_RP,
    HAL_REPORT_PORT_FAULT_TIMEOUT_LP,
    HAL_REPORT_FAULT_MAX
} HalReportFaultType;

typedef struct LqDcmiEvent {
    HalReportFaultType eventType;
    unsigned int subType;
    unsigned short peerportDevice;
    unsigned short peerportId;
    unsigned short switchChipid;
    unsigned short switchPortid;
    unsigned char severity;
    unsigned char assertion;
    char res[6];
    unsigned int eventSerialNum;
    unsigned int notifySerialNum;
    unsigned long alarmRaisedTime;
    unsigned char additionalParam[40];
    char additionalInfo[32];
} LqDcmiEvent;

int lq_dcmi_init(void);
/* Fills at most listLen events (the active faults of every switch chip of the node). */
int lq_dcmi_get_fault_info(unsigned int listLen, unsigned int *eventListLen, LqDcmiEvent *eventList);
int lq_dcmi_get_fault_nums(unsigned int *fault_nums);
int lq_dcmi_get_version(unsigned int *lq_version, unsigned int *lqdcmi_version);

#endif
