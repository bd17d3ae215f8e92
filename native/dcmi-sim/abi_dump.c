/*
 * Prints the size and every field offset of the DCMI structs, compiled from the simulator's header
 * (include/dcmi_interface_api.h). The Java ABI test compares these lines with its JNA Structures:
 *   <struct> size <bytes>
 *   <struct>.<field> <offset> <bytes>
 */
#include <stddef.h>
#include <stdio.h>

#include "dcmi_interface_api.h"
#include "lingqu_dcmi.h"

#define SIZE(s) printf("%s size %zu\n", #s, sizeof(struct s))
#define OFF(s, f) printf("%s.%s %zu %zu\n", #s, #f, offsetof(struct s, f), sizeof(((struct s *)0)->f))

int main(void) {
    SIZE(dcmi_chip_info);
    OFF(dcmi_chip_info, chip_type);
    OFF(dcmi_chip_info, chip_name);
    OFF(dcmi_chip_info, chip_ver);
    OFF(dcmi_chip_info, aicore_cnt);

    SIZE(dcmi_chip_info_v2);
    OFF(dcmi_chip_info_v2, chip_type);
    OFF(dcmi_chip_info_v2, chip_name);
    OFF(dcmi_chip_info_v2, chip_ver);
    OFF(dcmi_chip_info_v2, aicore_cnt);
    OFF(dcmi_chip_info_v2, npu_name);

    SIZE(dcmi_pcie_info_all);
    OFF(dcmi_pcie_info_all, venderid);
    OFF(dcmi_pcie_info_all, subvenderid);
    OFF(dcmi_pcie_info_all, deviceid);
    OFF(dcmi_pcie_info_all, subdeviceid);
    OFF(dcmi_pcie_info_all, domain);
    OFF(dcmi_pcie_info_all, bdf_busid);
    OFF(dcmi_pcie_info_all, bdf_deviceid);
    OFF(dcmi_pcie_info_all, bdf_funcid);
    OFF(dcmi_pcie_info_all, reserve);

    SIZE(dcmi_die_id);
    OFF(dcmi_die_id, soc_die);

    SIZE(dcmi_board_info);
    OFF(dcmi_board_info, board_id);
    OFF(dcmi_board_info, pcb_id);
    OFF(dcmi_board_info, bom_id);
    OFF(dcmi_board_info, slot_id);

    SIZE(dcmi_ip_addr);
    OFF(dcmi_ip_addr, u_addr);
    OFF(dcmi_ip_addr, ip_type);

    SIZE(dcmi_hbm_info);
    OFF(dcmi_hbm_info, memory_size);
    OFF(dcmi_hbm_info, freq);
    OFF(dcmi_hbm_info, memory_usage);
    OFF(dcmi_hbm_info, temp);
    OFF(dcmi_hbm_info, bandwith_util_rate);

    SIZE(dcmi_get_memory_info_stru);
    OFF(dcmi_get_memory_info_stru, memory_size);
    OFF(dcmi_get_memory_info_stru, memory_available);
    OFF(dcmi_get_memory_info_stru, freq);
    OFF(dcmi_get_memory_info_stru, hugepagesize);
    OFF(dcmi_get_memory_info_stru, hugepages_total);
    OFF(dcmi_get_memory_info_stru, hugepages_free);
    OFF(dcmi_get_memory_info_stru, utiliza);
    OFF(dcmi_get_memory_info_stru, reserve);

    SIZE(dcmi_proc_mem_info);
    OFF(dcmi_proc_mem_info, proc_id);
    OFF(dcmi_proc_mem_info, proc_mem_usage);

    SIZE(dcmi_multi_utilization_info);
    OFF(dcmi_multi_utilization_info, aic_util);
    OFF(dcmi_multi_utilization_info, aiv_util);
    OFF(dcmi_multi_utilization_info, aicore_util);
    OFF(dcmi_multi_utilization_info, npu_util);
    OFF(dcmi_multi_utilization_info, reserved);

    SIZE(dcmi_create_vdev_res_stru);
    OFF(dcmi_create_vdev_res_stru, vdev_id);
    OFF(dcmi_create_vdev_res_stru, vfg_id);
    OFF(dcmi_create_vdev_res_stru, template_name);
    OFF(dcmi_create_vdev_res_stru, reserved);

    SIZE(dcmi_create_vdev_out);
    OFF(dcmi_create_vdev_out, vdev_id);
    OFF(dcmi_create_vdev_out, pcie_bus);
    OFF(dcmi_create_vdev_out, pcie_device);
    OFF(dcmi_create_vdev_out, pcie_func);
    OFF(dcmi_create_vdev_out, vfg_id);
    OFF(dcmi_create_vdev_out, reserved);

    SIZE(dcmi_base_resource);
    OFF(dcmi_base_resource, token);
    OFF(dcmi_base_resource, token_max);
    OFF(dcmi_base_resource, task_timeout);
    OFF(dcmi_base_resource, vfg_id);
    OFF(dcmi_base_resource, vip_mode);
    OFF(dcmi_base_resource, reserved);

    SIZE(dcmi_computing_resource);
    OFF(dcmi_computing_resource, aic);
    OFF(dcmi_computing_resource, aiv);
    OFF(dcmi_computing_resource, dsa);
    OFF(dcmi_computing_resource, rtsq);
    OFF(dcmi_computing_resource, acsq);
    OFF(dcmi_computing_resource, cdqm);
    OFF(dcmi_computing_resource, c_core);
    OFF(dcmi_computing_resource, ffts);
    OFF(dcmi_computing_resource, sdma);
    OFF(dcmi_computing_resource, pcie_dma);
    OFF(dcmi_computing_resource, memory_size);
    OFF(dcmi_computing_resource, event_id);
    OFF(dcmi_computing_resource, notify_id);
    OFF(dcmi_computing_resource, stream_id);
    OFF(dcmi_computing_resource, model_id);
    OFF(dcmi_computing_resource, topic_schedule_aicpu);
    OFF(dcmi_computing_resource, host_ctrl_cpu);
    OFF(dcmi_computing_resource, host_aicpu);
    OFF(dcmi_computing_resource, device_aicpu);
    OFF(dcmi_computing_resource, topic_ctrl_cpu_slot);
    OFF(dcmi_computing_resource, vdev_aicore_utilization);
    OFF(dcmi_computing_resource, vdev_memory_total);
    OFF(dcmi_computing_resource, vdev_memory_free);
    OFF(dcmi_computing_resource, reserved);

    SIZE(dcmi_media_resource);
    OFF(dcmi_media_resource, jpegd);
    OFF(dcmi_media_resource, jpege);
    OFF(dcmi_media_resource, vpc);
    OFF(dcmi_media_resource, vdec);
    OFF(dcmi_media_resource, pngd);
    OFF(dcmi_media_resource, venc);
    OFF(dcmi_media_resource, reserved);

    SIZE(dcmi_vdev_query_info);
    OFF(dcmi_vdev_query_info, name);
    OFF(dcmi_vdev_query_info, status);
    OFF(dcmi_vdev_query_info, is_container_used);
    OFF(dcmi_vdev_query_info, vfid);
    OFF(dcmi_vdev_query_info, vfg_id);
    OFF(dcmi_vdev_query_info, container_id);
    OFF(dcmi_vdev_query_info, base);
    OFF(dcmi_vdev_query_info, computing);
    OFF(dcmi_vdev_query_info, media);

    SIZE(dcmi_vdev_query_stru);
    OFF(dcmi_vdev_query_stru, vdev_id);
    OFF(dcmi_vdev_query_stru, query_info);

    SIZE(dcmi_soc_free_resource);
    OFF(dcmi_soc_free_resource, vfg_num);
    OFF(dcmi_soc_free_resource, vfg_bitmap);
    OFF(dcmi_soc_free_resource, base);
    OFF(dcmi_soc_free_resource, computing);
    OFF(dcmi_soc_free_resource, media);

    SIZE(dcmi_soc_total_resource);
    OFF(dcmi_soc_total_resource, vdev_num);
    OFF(dcmi_soc_total_resource, vdev_id);
    OFF(dcmi_soc_total_resource, vfg_num);
    OFF(dcmi_soc_total_resource, vfg_bitmap);
    OFF(dcmi_soc_total_resource, base);
    OFF(dcmi_soc_total_resource, computing);
    OFF(dcmi_soc_total_resource, media);

    SIZE(dcmi_dms_fault_event);
    OFF(dcmi_dms_fault_event, event_id);
    OFF(dcmi_dms_fault_event, deviceid);
    OFF(dcmi_dms_fault_event, node_type);
    OFF(dcmi_dms_fault_event, node_id);
    OFF(dcmi_dms_fault_event, sub_node_type);
    OFF(dcmi_dms_fault_event, sub_node_id);
    OFF(dcmi_dms_fault_event, severity);
    OFF(dcmi_dms_fault_event, assertion);
    OFF(dcmi_dms_fault_event, event_serial_num);
    OFF(dcmi_dms_fault_event, notify_serial_num);
    OFF(dcmi_dms_fault_event, alarm_raised_time);
    OFF(dcmi_dms_fault_event, event_name);
    OFF(dcmi_dms_fault_event, additional_info);
    OFF(dcmi_dms_fault_event, resv);

    SIZE(dcmi_event);
    OFF(dcmi_event, type);
    OFF(dcmi_event, event_t);

    SIZE(dcmi_event_filter);
    OFF(dcmi_event_filter, filter_flag);
    OFF(dcmi_event_filter, event_id);
    OFF(dcmi_event_filter, severity);
    OFF(dcmi_event_filter, node_type);
    OFF(dcmi_event_filter, resv);

    SIZE(dcmi_spod_info);
    OFF(dcmi_spod_info, sdid);
    OFF(dcmi_spod_info, scale_type);
    OFF(dcmi_spod_info, super_pod_id);
    OFF(dcmi_spod_info, server_id);
    OFF(dcmi_spod_info, chassis_id);
    OFF(dcmi_spod_info, super_pod_type);
    OFF(dcmi_spod_info, reserve);

    SIZE(LqDcmiEvent);
    OFF(LqDcmiEvent, eventType);
    OFF(LqDcmiEvent, subType);
    OFF(LqDcmiEvent, peerportDevice);
    OFF(LqDcmiEvent, peerportId);
    OFF(LqDcmiEvent, switchChipid);
    OFF(LqDcmiEvent, switchPortid);
    OFF(LqDcmiEvent, severity);
    OFF(LqDcmiEvent, assertion);
    OFF(LqDcmiEvent, res);
    OFF(LqDcmiEvent, eventSerialNum);
    OFF(LqDcmiEvent, notifySerialNum);
    OFF(LqDcmiEvent, alarmRaisedTime);
    OFF(LqDcmiEvent, additionalParam);
    OFF(LqDcmiEvent, additionalInfo);
    return 0;
}
