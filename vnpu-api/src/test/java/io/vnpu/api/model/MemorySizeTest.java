package io.vnpu.api.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.MemorySize.PlainUnit;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MemorySizeTest {

  @ParameterizedTest
  @CsvSource({
    "8Gi, MIB, 8589934592",
    "512Mi, MIB, 536870912",
    "1.5Gi, MIB, 1610612736",
    "16G, MIB, 16000000000",
    "4096, MIB, 4294967296",
    "4096, BYTES, 4096",
    "1Ki, BYTES, 1024",
    "+1Ki, BYTES, 1024",
    ".5Ki, BYTES, 512",
    "2., BYTES, 2",
    "1Ei, BYTES, 1152921504606846976",
    "0, MIB, 0",
    "-0Gi, MIB, 0",
    "' 2Ti ', MIB, 2199023255552"
  })
  void parsesKubernetesQuantities(String text, PlainUnit plain, long bytes) {
    assertThat(MemorySize.parse(text, plain).bytes()).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "8GB|MIB|'8GB' is not a size: write a quantity such as 8Gi or 512Mi, or an integer number of MiB",
        "1e3|BYTES|'1e3' is not a size: write a quantity such as 8Gi or 512Mi, or an integer number of bytes",
        "-1Gi|MIB|'-1Gi' is negative",
        "0.1Ki|MIB|'0.1Ki' is 102.4 bytes, not a whole number of bytes",
        "99999999Ti|MIB|'99999999Ti' is larger than 2^63 bytes",
        "8Ei|MIB|'8Ei' is larger than 2^63 bytes"
      })
  void rejectsWithTheReason(String text, PlainUnit plain, String message) {
    assertThatThrownBy(() -> MemorySize.parse(text, plain))
        .isInstanceOf(MemorySizeException.class)
        .hasMessage(message);
  }

  @Test
  void mibIsHamisWireUnit() {
    MemorySize s = MemorySize.parse("1.5Gi", PlainUnit.BYTES);
    assertThat(s.mib()).isEqualTo(1536);
    assertThat(s.wholeMib()).isTrue();
    assertThat(MemorySize.parse("1536Ki", PlainUnit.BYTES).exactMib().toPlainString())
        .isEqualTo("1.5");
    assertThat(MemorySize.parse("1536Ki", PlainUnit.BYTES).wholeMib()).isFalse();
    assertThat(MemorySize.ofMib(16384)).isEqualTo(MemorySize.parse("16Gi", PlainUnit.BYTES));
    assertThatThrownBy(() -> MemorySize.ofMib(Long.MAX_VALUE))
        .hasMessageContaining("larger than 2^63 bytes");
    assertThatThrownBy(() -> new MemorySize(-1)).hasMessage("a memory size must be >= 0 bytes: -1");
  }

  @ParameterizedTest
  @CsvSource({"17179869184, 16Gi", "1610612736, 1536Mi", "100, 100", "0, 0", "1024, 1Ki"})
  void printsTheShortestExactQuantity(long bytes, String quantity) {
    assertThat(new MemorySize(bytes).toQuantity()).isEqualTo(quantity);
    assertThat(MemorySize.parse(quantity, PlainUnit.BYTES).bytes()).isEqualTo(bytes);
  }

  @Test
  void mibQuantities() {
    assertThat(MemorySize.mibQuantity(BigInteger.valueOf(16384))).isEqualTo("16Gi");
    assertThat(MemorySize.mibQuantity(BigInteger.valueOf(1000))).isEqualTo("1000Mi");
  }

  @ParameterizedTest
  @CsvSource({
    "0, 0 B",
    "1023, 1023 B",
    "1536, 1.5 KiB",
    "17179869184, 16.0 GiB",
    "12884901888, 12.0 GiB",
    "536870912, 512.0 MiB"
  })
  void formatsForPeople(long bytes, String text) {
    assertThat(MemorySize.format(bytes)).isEqualTo(text);
  }

  // linear time: a huge literal is refused by its length, never handed to BigDecimal
  @org.junit.jupiter.api.Test
  void hugeTextIsRefusedByLength() {
    String digits = "9".repeat(500_000) + "Gi";
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> MemorySize.parse(digits, MemorySize.PlainUnit.MIB))
        .isInstanceOf(MemorySizeException.class)
        .hasMessage(
            "'"
                + "9".repeat(MemorySize.MAX_TEXT_CHARS)
                + "...' is 500002 characters long, not a size (at most 64)");
  }
}
