package io.vnpu.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fuzzer's crash inputs (test resources {@code crash/}, see the README there) and other
 * parser-level failures give a {@link ConfigException} naming the file and a line, from both
 * loaders; never the YAML parser's own exception.
 */
class ConfigCrashInputsTest {
  static final List<String> CRASH_INPUTS =
      List.of(
          "config-crash-4377433b.yaml",
          "config-crash-58602f09.yaml",
          "config-crash-803fd099.yaml",
          "config-crash-e1b409a4.yaml");

  @TempDir Path dir;

  static byte[] resource(String name) throws IOException {
    try (InputStream in = ConfigCrashInputsTest.class.getResourceAsStream("/crash/" + name)) {
      if (in == null) throw new IOException("test resource crash/" + name + " missing");
      return in.readAllBytes();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "config-crash-4377433b.yaml",
        "config-crash-58602f09.yaml",
        "config-crash-803fd099.yaml",
        "config-crash-e1b409a4.yaml"
      })
  void crashInputIsAConfigExceptionWithFileAndLine(String name) throws Exception {
    Path file = Files.write(dir.resolve(name), resource(name));
    for (Throwable t :
        List.of(
            catchThrowable(() -> new DeviceConfigLoader(w -> {}).load(file)),
            catchThrowable(() -> new NodeConfigLoader(w -> {}).load(file)))) {
      assertThat(t).isInstanceOf(ConfigException.class);
      ConfigProblem p = ((ConfigException) t).errors().get(0);
      assertThat(p.file()).isEqualTo(file.toString());
      assertThat(p.line()).isPositive();
      assertThat(t.getMessage())
          .startsWith(file + ":" + p.line() + ": ")
          .doesNotContain("Exception");
    }
  }

  @Test
  void badEscapeNamesItsLine() {
    Throwable t =
        catchThrowable(
            () -> new DeviceConfigLoader(w -> {}).parse("vnpus:\n  - a: 1\n\"\\u", "f.yaml"));
    assertThat(t).isInstanceOf(ConfigException.class);
    assertThat(t.getMessage()).startsWith("f.yaml:3: YAML syntax error: ");
  }

  @Test
  void deepNestingIsASyntaxErrorNotAStackOverflow() {
    String deep = "a: " + "[".repeat(200_000);
    Throwable t = catchThrowable(() -> new NodeConfigLoader(w -> {}).parse(deep, "deep.yaml"));
    assertThat(t).isInstanceOf(ConfigException.class);
    assertThat(t.getMessage()).startsWith("deep.yaml:1: ");
  }

  // BigInteger parsing is quadratic: hundreds of kilobytes of digits must be refused without it.
  // The timeout is
  // a hang guard (the quadratic parse took minutes), not a speed measurement.
  @Test
  @Timeout(60)
  void hugeIntegerLiteralsAreRefusedQuickly() {
    String digits = "9".repeat(300_000);
    Throwable t =
        catchThrowable(
            () ->
                new NodeConfigLoader(w -> {})
                    .parse("nodes:\n- name: n1\n  vDeviceCount: " + digits + "\n", "long.yaml"));
    assertThat(t).isInstanceOf(ConfigException.class);
    assertThat(((ConfigException) t).errors().get(0).line()).isEqualTo(3);
    assertThat(t.getMessage()).contains("overflows the 32-bit integer");

    Throwable m =
        catchThrowable(
            () ->
                new DeviceConfigLoader(w -> {})
                    .parse(
                        """
        vnpus:
        - chipName: 910B3
          commonWord: Ascend910B3
          resourceName: huawei.com/Ascend910B3
          resourceMemoryName: huawei.com/Ascend910B3-memory
          memoryAllocatable: %s
          memoryCapacity: 0.%sGi
          aiCore: 20
        """
                            .formatted(digits, digits),
                        "mem.yaml"));
    assertThat(m).isInstanceOf(ConfigException.class);
    assertThat(m.getMessage())
        .contains("mem.yaml:6: vnpus[0].memoryAllocatable")
        .contains("characters long, not a memory size")
        .contains("mem.yaml:7: vnpus[0].memoryCapacity");
  }
}
