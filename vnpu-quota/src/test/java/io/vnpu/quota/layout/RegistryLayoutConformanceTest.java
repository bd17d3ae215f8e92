package io.vnpu.quota.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.quota.NativeDir;
import io.vnpu.quota.registry.LaunchSymbol;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Java registry constants equal vnpu_registry.h and compute.h, as printed by registry_offsets. */
class RegistryLayoutConformanceTest {

  private static Map<String, Long> nativeConstants() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(NativeDir.program("limiter/registry_offsets").toString()).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    assertThat(p.waitFor()).isZero();
    Map<String, Long> m = new LinkedHashMap<>();
    for (String line : out.split("\n")) {
      int eq = line.indexOf('=');
      m.put(line.substring(0, eq), Long.parseUnsignedLong(line.substring(eq + 1)));
    }
    return m;
  }

  @Test
  void everyNativeConstantHasTheSameValueInJava() throws Exception {
    Map<String, Long> c = nativeConstants();
    Map<String, Long> java = new TreeMap<>();
    for (Field f : RegistryLayout.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers())) {
        java.put("VNPU_" + f.getName(), ((Number) f.get(null)).longValue());
      }
    }
    Map<String, Long> cPlain = new TreeMap<>();
    c.forEach(
        (k, v) -> {
          if (!k.contains("(") && !k.startsWith("VNPU_SYM_")) cPlain.put(k, v);
        });
    assertThat(cPlain).hasSizeGreaterThan(40);
    assertThat(java).isEqualTo(cPlain);
    assertThat(RegistryLayout.memberOff(3)).isEqualTo(3 * 512);
  }

  @Test
  void launchSymbolOrdinalsAreTheCounterIndexes() throws Exception {
    Map<String, Long> c = nativeConstants();
    Map<String, Long> cSyms = new TreeMap<>();
    c.forEach(
        (k, v) -> {
          if (k.startsWith("VNPU_SYM_")) cSyms.put(k.substring("VNPU_SYM_".length()), v);
        });
    Map<String, Long> java = new TreeMap<>();
    for (LaunchSymbol s : LaunchSymbol.values()) java.put(s.name(), (long) s.ordinal());
    assertThat(java).isEqualTo(cSyms).hasSize(23);
    assertThat(LaunchSymbol.values().length).isLessThanOrEqualTo(RegistryLayout.REG_SYMBOL_COUNT);
  }

  @Test
  void geometryIsSelfConsistent() {
    assertThat(RegistryLayout.REG_FILE_BYTES).isEqualTo(8_448);
    assertThat(RegistryLayout.RE_LAUNCHES + 8).isLessThanOrEqualTo(RegistryLayout.REG_ENTRY_BYTES);
    assertThat(RegistryLayout.AGF_PATH + RegistryLayout.AGF_PATH_BYTES)
        .isEqualTo(RegistryLayout.AGF_MEMBER_BYTES);
    assertThat(RegistryLayout.REG_LOCK_BASE).isGreaterThan(RegistryLayout.AGF_FILE_BYTES);
    // the per-symbol launch counters live in the quota region's header now
    assertThat(RegionLayout.H_SYMBOL_LAUNCHES + 8 * RegistryLayout.REG_SYMBOL_COUNT)
        .isLessThanOrEqualTo(RegionLayout.DEVCFG_OFF);
    assertThat(RegistryLayout.REG_LOCK_BASE).isGreaterThan(RegistryLayout.REG_FILE_BYTES);
    assertThat(RegistryLayout.fileName(3)).isEqualTo("npu3.reg");
  }
}
