package io.vnpu.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MemoryQuantityTest {

  @ParameterizedTest(name = "{0} -> {1} MiB")
  @CsvSource(
      textBlock =
          """
      16384,      16384, false
      +8,         8,     false
      16777215,   16777215, false
      16Gi,       16384, true
      16384Mi,    16384, true
      1.5Gi,      1536,  true
      1048576Ki,  1024,  true
      2Ti,        2097152, true
      1048576k,   1000,  true
      .5Gi,       512,   true
      1Pi,        1073741824, true
      """)
  void parses(String text, long mib, boolean quantity) throws Exception {
    assertThat(MemoryQuantity.parse(text)).isEqualTo(new MemoryQuantity.Mib(mib, quantity));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      0          | must be > 0 MiB
      0Gi        | must be > 0 MiB
      16777216   | is surely bytes, not MiB (sizes are MiB as in HAMi); 16777216 bytes = 16 MiB: write 16 or 16Mi
      1Ki        | is 0.0009765625 MiB, not a whole number of MiB; use a binary suffix (Mi, Gi) or an integer of MiB
      2Pi        | is 2147483648 MiB, which overflows the 32-bit MiB field HAMi uses (max 2147483647)
      16gi       | not an integer number of MiB nor a quantity such as 16Gi or 16384Mi
      1e3        | not an integer number of MiB nor a quantity such as 16Gi or 16384Mi
      99999999999999999999999 | is surely bytes, not MiB (sizes are MiB as in HAMi); write the size in MiB or as a quantity such as 16Gi
      """)
  void rejects(String text, String message) {
    assertThatThrownBy(() -> MemoryQuantity.parse(text))
        .isInstanceOf(MemoryQuantity.InvalidSize.class)
        .hasMessage(message);
  }

  @ParameterizedTest(name = "{0} MiB = {1}")
  @CsvSource(
      textBlock =
          """
      1,       1Mi
      1536,    1536Mi
      65536,   64Gi
      1048576, 1Ti
      """)
  void quantityForm(long mib, String expected) {
    assertThat(MemoryQuantity.quantity(BigInteger.valueOf(mib))).isEqualTo(expected);
  }
}
