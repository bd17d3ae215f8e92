package io.vnpu.quota.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.quota.NativeDir;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Java layout constants equal vnpu_region.h, as printed by native/limiter/region_offsets. */
class RegionLayoutConformanceTest {

  private static Map<String, Long> nativeConstants() throws IOException, InterruptedException {
    Process p = new ProcessBuilder(NativeDir.program("limiter/region_offsets").toString()).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    assertThat(p.waitFor()).isZero();
    Map<String, Long> m = new LinkedHashMap<>();
    for (String line : out.split("\n")) {
      int eq = line.indexOf('=');
      m.put(line.substring(0, eq), Long.parseUnsignedLong(line.substring(eq + 1)));
    }
    return m;
  }

  private static Map<String, Long> javaConstants() throws IllegalAccessException {
    Map<String, Long> m = new TreeMap<>();
    for (Field f : RegionLayout.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers())) {
        m.put("VNPU_" + f.getName(), ((Number) f.get(null)).longValue());
      }
    }
    return m;
  }

  @Test
  void everyNativeConstantHasTheSameValueInJava() throws Exception {
    Map<String, Long> c = nativeConstants();
    Map<String, Long> java = javaConstants();
    assertThat(c).hasSizeGreaterThan(80);
    Map<String, Long> cPlain = new TreeMap<>();
    c.forEach(
        (k, v) -> {
          if (!k.contains("(")) cPlain.put(k, v);
        });
    assertThat(java).isEqualTo(cPlain);
  }

  @Test
  void slotLockBytesMatch() throws Exception {
    Map<String, Long> c = nativeConstants();
    assertThat(RegionLayout.lockSlot(0)).isEqualTo(c.get("VNPU_LOCK_SLOT(0)"));
    assertThat(RegionLayout.lockSlot(255)).isEqualTo(c.get("VNPU_LOCK_SLOT(255)"));
  }

  @Test
  void geometryIsSelfConsistent() {
    assertThat(RegionLayout.REGION_FILE_BYTES).isEqualTo(139_264);
    assertThat(RegionLayout.devCfgOff(RegionLayout.REGION_MAX_DEVICES))
        .isLessThanOrEqualTo(RegionLayout.HDR_BYTES);
    assertThat(RegionLayout.devStateOff(RegionLayout.REGION_MAX_DEVICES))
        .isEqualTo(RegionLayout.SLOTS_OFF);
    assertThat(RegionLayout.S_BUSY_NS + 8).isLessThanOrEqualTo(RegionLayout.SLOT_BYTES);
    assertThat(RegionLayout.LOCK_BASE).isGreaterThan(RegionLayout.REGION_FILE_BYTES);
  }
}
