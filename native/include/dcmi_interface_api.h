/*
 * DCMI (Da Vinci Card Management Interface) subset: the prototypes, constants and struct layouts of
 * the Ascend driver's libdcmi.so that vnpu uses, written from the vnpu DCMI spec (sections 1.2-1.6).
 * The simulated libdcmi.so (native/dcmi-sim) implements exactly these; the Java binding
 * (io.vnpu.dcmi.jna) mirrors these structs and is checked against them by an ABI test.
 *
 * All functions return 0 on success or a negative DCMI error code (DCMI_ERR_*). Memory sizes are
 * in MB unless a field says otherwise. Layouts are for LP64 (x86_64 and aarch64).
 */
#ifndef DCMI_INTERFACE_API_H
#define DCMI_INTERFACE_API_H

#ifdef __cplusplus
extern "C" {
#endif

#ifndef DCMIDLLEXPORT
#define DCMIDLLEXPORT __attribute__((visibility("default")))
#endif

#define MAX_CHIP_NAME_LEN 32
#define TEMPLATE_NAME_LEN 32
#define DCMI_VDEV_RES_NAME_LEN 16
#define DIE_ID_COUNT 5
#define DCMI_VDEV_FOR_RESERVE 32
#define DCMI_VDEV_SIZE 20
#define DCMI_SOC_SPLIT_MAX 32
#define DCMI_UTIL_RESERVED_LEN 8
#define DCMI_MAX_EVENT_NAME_LENGTH 256
#define DCMI_MAX_EVENT_DATA_LENGTH 32
#define DCMI_MAX_EVENT_RESV_LENGTH 32
#define DCMI_EVENT_FILTER_FLAG_EVENT_ID (1UL << 0)
#define DCMI_EVENT_FILTER_FLAG_SERVERITY (1UL << 1)
#define DCMI_EVENT_FILTER_FLAG_NODE_TYPE (1UL << 2)
#define DCMI_SYSTEM_START_FINISH 16
#define DCMI_VDEV_ID_AUTO 0xFFFFFFFFU

/* Return codes (spec 1.4). */
#define DCMI_OK 0
#define DCMI_ERR_INVALID_PARAMETER (-8001)
#define DCMI_ERR_OPER_NOT_PERMITTED (-8002)
#define DCMI_ERR_MEM_OPERATE_FAIL (-8003)
#define DCMI_ERR_SECURE_FUN_FAIL (-8004)
#define DCMI_ERR_INNER_ERR (-8005)
#define DCMI_ERR_TIME_OUT (-8006)
#define DCMI_ERR_INVALID_DEVICE_ID (-8007)
#define DCMI_ERR_DEVICE_NOT_EXIST (-8008)
#define DCMI_ERR_IOCTL_FAIL (-8009)
#define DCMI_ERR_SEND_MSG_FAIL (-8010)
#define DCMI_ERR_RECV_MSG_FAIL (-8011)
#define DCMI_ERR_NOT_READY (-8012)
#define DCMI_ERR_NOT_SUPPORT_IN_CONTAINER (-8013)
#define DCMI_ERR_FILE_OPERATE_FAIL (-8014)
#define DCMI_ERR_RESET_FAIL (-8015)
#define DCMI_ERR_ABORT_OPERATE (-8016)
#define DCMI_ERR_IS_UPGRADING (-8017)
#define DCMI_ERR_RESOURCE_OCCUPIED (-8020)
#define DCMI_ERR_PARTITION_NOT_RIGHT (-8022)
#define DCMI_ERR_CONFIG_INFO_NOT_EXIST (-8023)
#define DCMI_ERR_NOT_SUPPORT (-8255)

enum dcmi_unit_type { NPU_TYPE = 0, MCU_TYPE = 1, CPU_TYPE = 2, INVALID_TYPE = 0xFF };
enum dcmi_device_type { DCMI_DEVICE_TYPE_DDR = 0, DCMI_DEVICE_TYPE_SRAM = 1, DCMI_DEVICE_TYPE_HBM = 2,
                        DCMI_DEVICE_TYPE_NPU = 3, DCMI_DEVICE_TYPE_NONE = 0xFF };
enum dcmi_die_type { NDIE = 0, VDIE = 1, DDIE = 2 };
enum dcmi_reset_channel { OUTBAND_CHANNEL = 0, INBAND_CHANNEL = 1 };
enum dcmi_boot_status { DCMI_BOOT_STATUS_UNINIT = 0, DCMI_BOOT_STATUS_BIOS = 1, DCMI_BOOT_STATUS_OS = 2,
                        DCMI_BOOT_STATUS_FINISH = 3 };
enum dcmi_port_type { DCMI_VNIC_PORT = 0, DCMI_ROCE_PORT = 1 };
enum dcmi_ip_addr_type { DCMI_IPADDR_TYPE_V4 = 0, DCMI_IPADDR_TYPE_V6 = 1, DCMI_IPADDR_TYPE_ANY = 2 };
enum dcmi_rdfx_detect_result { DCMI_RDFX_DETECT_OK = 0, DCMI_RDFX_DETECT_SOCK_FAIL = 1,
                               DCMI_RDFX_DETECT_RECV_TIMEOUT = 2, DCMI_RDFX_DETECT_UNREACH = 3,
                               DCMI_RDFX_DETECT_TIME_EXCEEDED = 4, DCMI_RDFX_DETECT_FAULT = 5,
                               DCMI_RDFX_DETECT_INIT = 6, DCMI_RDFX_DETECT_THREAD_ERR = 7,
                               DCMI_RDFX_DETECT_IP_SET = 8, DCMI_RDFX_DETECT_MAX = 0xFF };
enum dcmi_main_cmd { DCMI_MAIN_CMD_DVPP = 0, DCMI_MAIN_CMD_ISP = 1, DCMI_MAIN_CMD_TS_GROUP_NUM = 2,
                     DCMI_MAIN_CMD_CAN = 3, DCMI_MAIN_CMD_UART = 4, DCMI_MAIN_CMD_UPGRADE = 5,
                     DCMI_MAIN_CMD_CHIP_INF = 12, DCMI_MAIN_CMD_HCCS = 16, DCMI_MAIN_CMD_TEMP = 50, DCMI_MAIN_CMD_SVM = 51,
                     DCMI_MAIN_CMD_VDEV_MNG = 52, DCMI_MAIN_CMD_SIO = 56, DCMI_MAIN_CMD_DEVICE_SHARE = 0x8001 };
/* sub-commands of DCMI_MAIN_CMD_VDEV_MNG */
enum dcmi_vdev_mng_sub_cmd { DCMI_VMNG_SUB_CMD_GET_VDEV_RESOURCE = 0, DCMI_VMNG_SUB_CMD_GET_TOTAL_RESOURCE = 1,
                             DCMI_VMNG_SUB_CMD_GET_FREE_RESOURCE = 2, DCMI_VMNG_SUB_CMD_GET_VDEV_ACTIVITY = 5 };
enum dcmi_freq_type { DCMI_FREQ_DDR = 1, DCMI_FREQ_CTRLCPU = 2, DCMI_FREQ_HBM = 6, DCMI_FREQ_AICORE_CURRENT = 7,
                      DCMI_FREQ_AICORE_MAX = 9, DCMI_FREQ_VECTORCORE_CURRENT = 12 };
/* input_type of dcmi_get_device_utilization_rate */
enum dcmi_utilization_type { DCMI_UTIL_MEMORY = 1, DCMI_UTIL_AICORE = 2, DCMI_UTIL_AICPU = 3,
                             DCMI_UTIL_CTRLCPU = 4, DCMI_UTIL_MEMORY_BANDWIDTH = 5, DCMI_UTIL_HBM = 6,
                             DCMI_UTIL_DDR = 8, DCMI_UTIL_HBM_BANDWIDTH = 10, DCMI_UTIL_VECTORCORE = 12,
                             DCMI_UTIL_NPU = 13 };
enum dcmi_multi_die_policy { DCMI_MULTI_DIE_UNION = 0, DCMI_MULTI_DIE_INDEP = 1 };
enum dcmi_event_type { DCMI_DMS_FAULT_EVENT = 0 };
enum dcmi_topo_type { DCMI_TOPO_TYPE_SELF = 0, DCMI_TOPO_TYPE_SYS = 1, DCMI_TOPO_TYPE_PHB = 2,
                      DCMI_TOPO_TYPE_HCCS = 3, DCMI_TOPO_TYPE_PXB = 4, DCMI_TOPO_TYPE_PIX = 5,
                      DCMI_TOPO_TYPE_BUTT = 6, DCMI_TOPO_TYPE_MAX = 7 };

struct dcmi_chip_info {
    unsigned char chip_type[MAX_CHIP_NAME_LEN];
    unsigned char chip_name[MAX_CHIP_NAME_LEN];
    unsigned char chip_ver[MAX_CHIP_NAME_LEN];
    unsigned int aicore_cnt;
};

struct dcmi_chip_info_v2 {
    unsigned char chip_type[MAX_CHIP_NAME_LEN];
    unsigned char chip_name[MAX_CHIP_NAME_LEN];
    unsigned char chip_ver[MAX_CHIP_NAME_LEN];
    unsigned int aicore_cnt;
    unsigned char npu_name[MAX_CHIP_NAME_LEN];
};

struct dcmi_pcie_info_all {
    unsigned int venderid;
    unsigned int subvenderid;
    unsigned int deviceid;
    unsigned int subdeviceid;
    int domain;
    unsigned int bdf_busid;
    unsigned int bdf_deviceid;
    unsigned int bdf_funcid;
    unsigned char reserve[32];
};

struct dcmi_die_id {
    unsigned int soc_die[DIE_ID_COUNT];
};

struct dcmi_board_info {
    unsigned int board_id;
    unsigned int pcb_id;
    unsigned int bom_id;
    unsigned int slot_id;
};

struct dcmi_hbm_info {
    unsigned long long memory_size;  /* MB */
    unsigned int freq;               /* MHz */
    unsigned long long memory_usage; /* MB */
    int temp;                        /* degrees C */
    unsigned int bandwith_util_rate; /* % */
};

struct dcmi_get_memory_info_stru {
    unsigned long long memory_size;      /* MB */
    unsigned long long memory_available; /* MB */
    unsigned int freq;
    unsigned long hugepagesize;          /* KB */
    unsigned long hugepages_total;
    unsigned long hugepages_free;
    unsigned int utiliza;                /* % */
    unsigned char reserve[60];
};

struct dcmi_memory_info_stru {
    unsigned long long memory_size;
    unsigned int freq;
    unsigned int utiliza;
};

struct dcmi_proc_mem_info {
    int proc_id;
    unsigned long proc_mem_usage; /* bytes */
};

struct dcmi_ip_addr {
    union {
        unsigned char ip6[16];
        unsigned char ip4[4];
    } u_addr;
    enum dcmi_ip_addr_type ip_type;
};

struct dcmi_ecc_info {
    int enable_flag;
    unsigned int single_bit_error_cnt;
    unsigned int double_bit_error_cnt;
    unsigned int total_single_bit_error_cnt;
    unsigned int total_double_bit_error_cnt;
    unsigned int single_bit_isolated_pages_cnt;
    unsigned int double_bit_isolated_pages_cnt;
    unsigned int single_bit_next_isolated_pages_cnt;
    unsigned int double_bit_next_isolated_pages_cnt;
};

struct dcmi_multi_utilization_info {
    unsigned int aic_util;
    unsigned int aiv_util;
    unsigned int aicore_util;
    unsigned int npu_util;
    unsigned int reserved[DCMI_UTIL_RESERVED_LEN];
};

struct dcmi_create_vdev_res_stru {
    unsigned int vdev_id;
    unsigned int vfg_id;
    char template_name[TEMPLATE_NAME_LEN];
    unsigned char reserved[64];
};

struct dcmi_create_vdev_out {
    unsigned int vdev_id;
    unsigned int pcie_bus;
    unsigned int pcie_device;
    unsigned int pcie_func;
    unsigned int vfg_id;
    unsigned char reserved[DCMI_VDEV_FOR_RESERVE];
};

struct dcmi_base_resource {
    unsigned long long token;
    unsigned long long token_max;
    unsigned long long task_timeout;
    unsigned int vfg_id;
    unsigned char vip_mode;
    unsigned char reserved[DCMI_VDEV_FOR_RESERVE - 1];
};

struct dcmi_computing_resource {
    float aic;
    float aiv;
    unsigned short dsa;
    unsigned short rtsq;
    unsigned short acsq;
    unsigned short cdqm;
    unsigned short c_core;
    unsigned short ffts;
    unsigned short sdma;
    unsigned short pcie_dma;
    unsigned long long memory_size; /* MB */
    unsigned int event_id;
    unsigned int notify_id;
    unsigned int stream_id;
    unsigned int model_id;
    unsigned short topic_schedule_aicpu;
    unsigned short host_ctrl_cpu;
    unsigned short host_aicpu;
    unsigned short device_aicpu;
    unsigned short topic_ctrl_cpu_slot;
    unsigned int vdev_aicore_utilization;
    unsigned long long vdev_memory_total;
    unsigned long long vdev_memory_free;
    unsigned char reserved[DCMI_VDEV_FOR_RESERVE - DCMI_VDEV_SIZE];
};

struct dcmi_media_resource {
    float jpegd;
    float jpege;
    float vpc;
    float vdec;
    float pngd;
    float venc;
    unsigned char reserved[DCMI_VDEV_FOR_RESERVE];
};

struct dcmi_vdev_query_info {
    char name[DCMI_VDEV_RES_NAME_LEN];
    unsigned int status;
    unsigned int is_container_used;
    unsigned int vfid;
    unsigned int vfg_id;
    unsigned long long container_id;
    struct dcmi_base_resource base;
    struct dcmi_computing_resource computing;
    struct dcmi_media_resource media;
};

/* DCMI_MAIN_CMD_CHIP_INF, sub-command DCMI_CHIP_INF_SUB_CMD_SPOD_INFO: A3/A5 super-pod membership, 48 bytes */
#define DCMI_CHIP_INF_SUB_CMD_SPOD_INFO 1u
struct dcmi_spod_info {
    unsigned int sdid;
    unsigned int scale_type;
    unsigned int super_pod_id; /* 0xFFFFFFFF: not in a super-pod */
    unsigned int server_id;    /* the server's index in its super-pod; 0xFFFFFFFF: none */
    unsigned int chassis_id;
    unsigned int super_pod_type;
    unsigned int reserve[6];
};

struct dcmi_vdev_query_stru {
    unsigned int vdev_id;
    struct dcmi_vdev_query_info query_info;
};

struct dcmi_soc_free_resource {
    unsigned int vfg_num;
    unsigned int vfg_bitmap;
    struct dcmi_base_resource base;
    struct dcmi_computing_resource computing;
    struct dcmi_media_resource media;
};

struct dcmi_soc_total_resource {
    unsigned int vdev_num;
    unsigned int vdev_id[DCMI_SOC_SPLIT_MAX];
    unsigned int vfg_num;
    unsigned int vfg_bitmap;
    struct dcmi_base_resource base;
    struct dcmi_computing_resource computing;
    struct dcmi_media_resource media;
};

struct dcmi_dms_fault_event {
    unsigned int event_id;
    unsigned short deviceid;
    unsigned char node_type;
    unsigned char node_id;
    unsigned char sub_node_type;
    unsigned char sub_node_id;
    unsigned char severity;
    unsigned char assertion;
    int event_serial_num;
    int notify_serial_num;
    unsigned long long alarm_raised_time;
    char event_name[DCMI_MAX_EVENT_NAME_LENGTH];
    char additional_info[DCMI_MAX_EVENT_DATA_LENGTH];
    unsigned char resv[DCMI_MAX_EVENT_RESV_LENGTH];
};

struct dcmi_event {
    enum dcmi_event_type type;
    union {
        struct dcmi_dms_fault_event dms_event;
    } event_t;
};

struct dcmi_event_filter {
    unsigned long long filter_flag;
    unsigned int event_id;
    unsigned char severity;
    unsigned char node_type;
    unsigned char resv[DCMI_MAX_EVENT_RESV_LENGTH];
};

typedef void (*dcmi_fault_event_callback)(struct dcmi_event *event);

/* Enumeration and identity */
DCMIDLLEXPORT int dcmi_init(void);
DCMIDLLEXPORT int dcmi_get_card_list(int *card_num, int *card_list, int list_len);
/* Deprecated name of dcmi_get_card_list. */
DCMIDLLEXPORT int dcmi_get_card_num_list(int *card_num, int *card_list, int list_len);
DCMIDLLEXPORT int dcmi_get_device_num_in_card(int card_id, int *device_num);
DCMIDLLEXPORT int dcmi_get_device_id_in_card(int card_id, int *device_id_max, int *mcu_id, int *cpu_id);
DCMIDLLEXPORT int dcmi_get_device_logic_id(int *device_logic_id, int card_id, int device_id);
DCMIDLLEXPORT int dcmi_get_card_id_device_id_from_logicid(int *card_id, int *device_id, unsigned int logic_id);
DCMIDLLEXPORT int dcmi_get_device_phyid_from_logicid(unsigned int logicid, unsigned int *phyid);
DCMIDLLEXPORT int dcmi_get_device_logicid_from_phyid(unsigned int phyid, unsigned int *logicid);
DCMIDLLEXPORT int dcmi_get_device_type(int card_id, int device_id, enum dcmi_unit_type *device_type);
DCMIDLLEXPORT int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info);
DCMIDLLEXPORT int dcmi_get_device_chip_info_v2(int card_id, int device_id, struct dcmi_chip_info_v2 *chip_info);
DCMIDLLEXPORT int dcmi_get_device_board_info(int card_id, int device_id, struct dcmi_board_info *board_info);
DCMIDLLEXPORT int dcmi_get_mainboard_id(int card_id, int device_id, unsigned int *mainboard_id);
DCMIDLLEXPORT int dcmi_get_product_type(int card_id, int device_id, char *product_type_str, int buf_size);
DCMIDLLEXPORT int dcmi_get_dcmi_version(char *dcmi_ver, int buf_size);
DCMIDLLEXPORT int dcmi_get_device_die_v2(int card_id, int device_id, enum dcmi_die_type input_type,
                                         struct dcmi_die_id *die_id);
DCMIDLLEXPORT int dcmi_get_device_pcie_info_v2(int card_id, int device_id, struct dcmi_pcie_info_all *pcie_info);
DCMIDLLEXPORT int dcmi_get_affinity_cpu_info_by_device_id(int card_id, int device_id, char *affinity_cpu,
                                                          int *length);
DCMIDLLEXPORT int dcmi_get_topo_info_by_device_id(int card_id1, int device_id1, int card_id2, int device_id2,
                                                  int *topo_type);

/* Health and faults */
DCMIDLLEXPORT int dcmi_get_device_health(int card_id, int device_id, unsigned int *health);
DCMIDLLEXPORT int dcmi_get_device_errorcode_v2(int card_id, int device_id, int *error_count,
                                               unsigned int *error_code_list, unsigned int list_len);
/* Deprecated: first active code only. */
DCMIDLLEXPORT int dcmi_get_device_errorcode(int card_id, int device_id, int *error_count, unsigned int *error_code,
                                            int *error_width);
DCMIDLLEXPORT int dcmi_subscribe_fault_event(int card_id, int device_id, struct dcmi_event_filter filter,
                                             dcmi_fault_event_callback handler);
DCMIDLLEXPORT int dcmi_get_device_network_health(int card_id, int device_id, enum dcmi_rdfx_detect_result *result);
/*
 * Address of a chip's port: input_type DCMI_ROCE_PORT (parameter plane) or DCMI_VNIC_PORT, port_id 0.
 * The caller sets ip->ip_type to DCMI_IPADDR_TYPE_V6 to ask for the IPv6 address (else IPv4).
 */
DCMIDLLEXPORT int dcmi_get_device_ip(int card_id, int device_id, enum dcmi_port_type input_type, int port_id,
                                     struct dcmi_ip_addr *ip, struct dcmi_ip_addr *mask);
DCMIDLLEXPORT int dcmi_get_device_boot_status(int card_id, int device_id, enum dcmi_boot_status *boot_status);
DCMIDLLEXPORT int dcmi_set_device_reset(int card_id, int device_id, enum dcmi_reset_channel channel_type);

/* Telemetry */
DCMIDLLEXPORT int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info);
DCMIDLLEXPORT int dcmi_get_device_memory_info_v3(int card_id, int device_id,
                                                 struct dcmi_get_memory_info_stru *memory_info);
/* Deprecated v1 memory info. */
DCMIDLLEXPORT int dcmi_get_memory_info(int card_id, int device_id, struct dcmi_memory_info_stru *memory_info);
DCMIDLLEXPORT int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type,
                                                   unsigned int *utilization_rate);
DCMIDLLEXPORT int dcmi_get_device_multi_utilization_rate(int card_id, int device_id,
                                                         struct dcmi_multi_utilization_info *info);
DCMIDLLEXPORT int dcmi_get_device_temperature(int card_id, int device_id, int *temperature);
DCMIDLLEXPORT int dcmi_get_device_power_info(int card_id, int device_id, int *power);
DCMIDLLEXPORT int dcmi_get_device_voltage(int card_id, int device_id, unsigned int *voltage);
DCMIDLLEXPORT int dcmi_get_device_frequency(int card_id, int device_id, enum dcmi_freq_type input_type,
                                            unsigned int *frequency);
DCMIDLLEXPORT int dcmi_get_device_ecc_info(int card_id, int device_id, enum dcmi_device_type input_type,
                                           struct dcmi_ecc_info *device_ecc_info);
/* proc_info must hold 32 entries; *proc_num is set to the number filled. */
DCMIDLLEXPORT int dcmi_get_device_resource_info(int card_id, int device_id, struct dcmi_proc_mem_info *proc_info,
                                                int *proc_num);
DCMIDLLEXPORT int dcmi_get_npu_work_mode(int card_id, unsigned char *work_mode);

/* vNPU management */
DCMIDLLEXPORT int dcmi_create_vdevice(int card_id, int device_id, struct dcmi_create_vdev_res_stru *vdev,
                                      struct dcmi_create_vdev_out *out);
DCMIDLLEXPORT int dcmi_set_destroy_vdevice(int card_id, int device_id, unsigned int vdevid);
DCMIDLLEXPORT int dcmi_get_device_info(int card_id, int device_id, enum dcmi_main_cmd main_cmd,
                                       unsigned int sub_cmd, void *buf, unsigned int *size);
DCMIDLLEXPORT int dcmi_get_multi_die_policy(enum dcmi_multi_die_policy *policy);
DCMIDLLEXPORT int dcmi_set_multi_die_policy(enum dcmi_multi_die_policy policy);

#ifdef __cplusplus
}
#endif

#endif
