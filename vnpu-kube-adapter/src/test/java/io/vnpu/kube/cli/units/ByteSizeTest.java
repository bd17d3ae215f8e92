package io.vnpu.kube.cli.units;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ByteSizeTest {

  @ParameterizedTest
  @CsvSource({
      "8Gi, 8589934592",
      "512Mi, 536870912",
      "1.5Gi, 1610612736",
      "16G, 16000000000",
      "4096, 4294967296",
      "1Ki, 1024",
      "' 2Ti ', 2199023255552"})
  void parsesQuantitiesAndMiB(String text, long bytes) {
    assertThat(ByteSize.parseBytes(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "8GB|'8GB' is not a size: write a quantity such as 8Gi or 512Mi, or an integer number of MiB",
      "-1Gi|'-1Gi' is not a size: write a quantity such as 8Gi or 512Mi, or an integer number of MiB",
      "0Gi|'0Gi' must be larger than 0",
      "0.1Ki|'0.1Ki' is not a whole number of bytes",
      "99999999Ti|'99999999Ti' is larger than 2^63 bytes"})
  void rejectsWithTheReason(String text, String message) {
    assertThatThrownBy(() -> ByteSize.parseBytes(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @ParameterizedTest
  @CsvSource({
      "0, 0 B",
      "1023, 1023 B",
      "1536, 1.5 KiB",
      "17179869184, 16.0 GiB",
      "12884901888, 12.0 GiB",
      "536870912, 512.0 MiB"})
  void formatsForPeople(long bytes, String text) {
    assertThat(ByteSize.format(bytes)).isEqualTo(text);
  }
}
