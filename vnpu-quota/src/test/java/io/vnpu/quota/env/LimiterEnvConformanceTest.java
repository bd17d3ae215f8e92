package io.vnpu.quota.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.quota.NativeDir;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link LimiterEnv} equals the environment contract of {@code native/limiter/config.h}: every
 * {@code #define VNPU_ENV_<NAME> <value>} there is the constant {@code <NAME>} here with the same
 * value, and back; and {@code config.c} reads the environment and the config file by those macros
 * only, so the header is the one place the C side names them.
 */
class LimiterEnvConformanceTest {
  private static final Pattern DEFINE =
      Pattern.compile("^#define VNPU_ENV_(\\w+)\\s+(.+?)\\s*$", Pattern.MULTILINE);
  private static final Pattern PRODUCT = Pattern.compile("\\((\\d+)ull \\* (\\d+)ull\\)");

  private static Path limiterSource(String file) {
    // vnpu.native.dir is native/build; the sources are beside it
    return NativeDir.path().toAbsolutePath().getParent().resolve("limiter").resolve(file);
  }

  private static Map<String, Object> headerConstants() throws IOException {
    String h = Files.readString(limiterSource("config.h"));
    Map<String, Object> m = new TreeMap<>();
    Matcher d = DEFINE.matcher(h);
    while (d.find()) {
      String v = d.group(2);
      Matcher p = PRODUCT.matcher(v);
      if (v.startsWith("\"") && v.endsWith("\"")) {
        m.put(d.group(1), v.substring(1, v.length() - 1));
      } else if (p.matches()) {
        m.put(d.group(1), Long.parseLong(p.group(1)) * Long.parseLong(p.group(2)));
      } else {
        m.put(d.group(1), Long.parseLong(v));
      }
    }
    return m;
  }

  private static Map<String, Object> javaConstants() throws IllegalAccessException {
    Map<String, Object> m = new TreeMap<>();
    for (Field f : LimiterEnv.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers())) {
        Object v = f.get(null);
        m.put(f.getName(), v instanceof Number n ? (Object) n.longValue() : v);
      }
    }
    return m;
  }

  @Test
  void everyHeaderNameAndUnitIsTheSameInJava() throws Exception {
    Map<String, Object> c = headerConstants();
    assertThat(c)
        .containsKeys(
            "REGION_PATH",
            "MEM_QUOTA",
            "PRIORITY",
            "DEVICE_COUNT",
            "COMPUTE_CAP_PCT",
            "MEM_QUOTA_UNIT_BYTES");
    assertThat(javaConstants()).isEqualTo(c);
  }

  @Test
  void theLimiterReadsTheEnvironmentByTheHeaderMacrosOnly() throws Exception {
    String src = Files.readString(limiterSource("config.c"));
    Map<String, Object> c = headerConstants();
    Matcher g = Pattern.compile("getenv\\(([^)]*)\\)").matcher(src);
    int reads = 0;
    while (g.find()) {
      assertThat(g.group(1)).as("getenv argument in config.c").startsWith("VNPU_ENV_");
      assertThat(c).containsKey(g.group(1).substring("VNPU_ENV_".length()));
      reads++;
    }
    assertThat(reads).as("getenv calls in config.c").isEqualTo(5);
    for (Object v : c.values()) {
      if (v instanceof String name) {
        assertThat(src)
            .as("config.c names " + name + " by its macro")
            .doesNotContain("\"" + name + "\"");
      }
    }
  }

  @Test
  void memQuotaIsWholeMibRoundedDown() {
    assertThat(LimiterEnv.memQuotaMib(0)).isZero();
    assertThat(LimiterEnv.memQuotaMib(8L << 30)).isEqualTo(8192);
    assertThat(LimiterEnv.memQuotaMib((1L << 20) - 1)).isZero();
    assertThat(LimiterEnv.memQuotaMib((3L << 20) + 5)).isEqualTo(3);
    assertThat(LimiterEnv.bytesOfMib(16384)).isEqualTo(16L << 30);
    assertThatThrownBy(() -> LimiterEnv.memQuotaMib(-1)).hasMessageContaining("NPU_MEM_QUOTA");
  }

  @Test
  void variablesAreTheRegionTheQuotaAndThePriorityInThatOrder() {
    assertThat(LimiterEnv.of("/vnpu-shmem/vnpu_local_shmem", 4L << 30).variables())
        .containsExactly(
            Map.entry("NPU_LOCAL_SHM_PATH", "/vnpu-shmem/vnpu_local_shmem"),
            Map.entry("NPU_MEM_QUOTA", "4096"));
    assertThat(new LimiterEnv("/r", 1L << 20, OptionalInt.of(40)).variables())
        .containsExactly(
            Map.entry("NPU_LOCAL_SHM_PATH", "/r"),
            Map.entry("NPU_MEM_QUOTA", "1"),
            Map.entry("NPU_PRIORITY", "40"));
    assertThatThrownBy(() -> LimiterEnv.of("", 1)).hasMessageContaining("NPU_LOCAL_SHM_PATH");
  }
}
