package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Native;
import io.vnpu.dcmi.jna.DcmiStructs;
import io.vnpu.dcmi.jna.DcmiStructure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Every JNA struct has the size and field offsets that gcc gives the simulator's header ({@code
 * dcmi-abi-dump}, built by native/mk/dcmi-sim.mk), so a wrong field width fails the build.
 */
class DcmiAbiTest {
  private static final Map<String, Supplier<DcmiStructure>> MAPPED = new LinkedHashMap<>();

  static {
    MAPPED.put("dcmi_chip_info", DcmiStructs.ChipInfo::new);
    MAPPED.put("dcmi_chip_info_v2", DcmiStructs.ChipInfoV2::new);
    MAPPED.put("dcmi_pcie_info_all", DcmiStructs.PcieInfoAll::new);
    MAPPED.put("dcmi_die_id", DcmiStructs.DieId::new);
    MAPPED.put("dcmi_board_info", DcmiStructs.BoardInfo::new);
    MAPPED.put("dcmi_ip_addr", DcmiStructs.IpAddr::new);
    MAPPED.put("dcmi_hbm_info", DcmiStructs.HbmInfo::new);
    MAPPED.put("dcmi_get_memory_info_stru", DcmiStructs.MemoryInfoV3::new);
    MAPPED.put("dcmi_proc_mem_info", DcmiStructs.ProcMemInfo::new);
    MAPPED.put("dcmi_multi_utilization_info", DcmiStructs.MultiUtilizationInfo::new);
    MAPPED.put("dcmi_create_vdev_res_stru", DcmiStructs.CreateVdevRes::new);
    MAPPED.put("dcmi_create_vdev_out", DcmiStructs.CreateVdevOut::new);
    MAPPED.put("dcmi_base_resource", DcmiStructs.BaseResource::new);
    MAPPED.put("dcmi_computing_resource", DcmiStructs.ComputingResource::new);
    MAPPED.put("dcmi_media_resource", DcmiStructs.MediaResource::new);
    MAPPED.put("dcmi_vdev_query_info", DcmiStructs.VdevQueryInfo::new);
    MAPPED.put("dcmi_vdev_query_stru", DcmiStructs.VdevQueryStru::new);
    MAPPED.put("dcmi_soc_free_resource", DcmiStructs.SocFreeResource::new);
    MAPPED.put("dcmi_soc_total_resource", DcmiStructs.SocTotalResource::new);
    MAPPED.put("dcmi_dms_fault_event", DcmiStructs.DmsFaultEvent::new);
    MAPPED.put("dcmi_event", DcmiStructs.Event::new);
    MAPPED.put("dcmi_event_filter", DcmiStructs.EventFilter::new);
    MAPPED.put("dcmi_spod_info", DcmiStructs.SpodInfo::new);
    MAPPED.put("LqDcmiEvent", DcmiStructs.LqDcmiEvent::new);
  }

  /** Java's view in the dump's format: "struct size N" and "struct.field offset bytes". */
  private static Map<String, String> javaLayout() throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, Supplier<DcmiStructure>> e : MAPPED.entrySet()) {
      DcmiStructure s = e.getValue().get();
      out.put(e.getKey() + " size", Integer.toString(s.size()));
      for (java.lang.reflect.Field f : s.getClass().getFields()) {
        if (!java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
          int bytes = Native.getNativeSize(f.getType(), f.get(s));
          out.put(e.getKey() + "." + f.getName(), s.offsetOf(f.getName()) + " " + bytes);
        }
      }
    }
    return out;
  }

  private static Map<String, String> cLayout() throws Exception {
    Path dump = Path.of(System.getProperty("vnpu.native.dir"), "dcmi-abi-dump");
    Process p = new ProcessBuilder(dump.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    Map<String, String> layout = new TreeMap<>();
    for (String line : out.split("\n")) {
      String[] parts = line.split(" ", 2);
      if (parts[1].startsWith("size ")) {
        layout.put(parts[0] + " size", parts[1].substring(5));
      } else {
        layout.put(parts[0], parts[1]);
      }
    }
    return layout;
  }

  @Test
  void everyMappedStructMatchesTheCHeaderExactly() throws Exception {
    Map<String, String> c = cLayout();
    assertThat(c).hasSizeGreaterThan(100);
    assertThat(javaLayout()).containsExactlyInAnyOrderEntriesOf(c);
  }

  @Test
  void sizesAreThoseOfTheSpec() {
    assertThat(new DcmiStructs.VdevQueryStru().size()).isEqualTo(264);
    assertThat(new DcmiStructs.SocTotalResource().size()).isEqualTo(360);
    assertThat(new DcmiStructs.MemoryInfoV3().size()).isEqualTo(112);
    assertThat(new DcmiStructs.ChipInfoV2().size()).isEqualTo(132);
    assertThat(new DcmiStructs.DmsFaultEvent().size()).isEqualTo(352);
    assertThat(new DcmiStructs.Event().size()).isEqualTo(360);
    assertThat(new DcmiStructs.EventFilter.ByValue().size()).isEqualTo(48);
    assertThat(new DcmiStructs.IpAddr().size()).isEqualTo(20);
    assertThat(new DcmiStructs.ComputingResource().offsetOf("vdev_memory_total")).isEqualTo(64);
  }
}
