package io.vnpu.kube.cli.top;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class QuitKeyTest {

  @Test
  void qEndsTheWaitAndOtherKeysDoNot() throws Exception {
    try (QuitKey k =
        QuitKey.watching(new ByteArrayInputStream("xyq".getBytes(StandardCharsets.US_ASCII)))) {
      assertThat(k.awaitQuit(60_000)).isTrue(); // returns at once, long before the minute
    }
    try (QuitKey k =
        QuitKey.watching(new ByteArrayInputStream("abc\n".getBytes(StandardCharsets.US_ASCII)))) {
      assertThat(k.awaitQuit(20)).isFalse();
    }
  }

  @Test
  void withoutATerminalItOnlySleeps() throws Exception {
    try (QuitKey k = QuitKey.sleepOnly()) {
      assertThat(k.awaitQuit(10)).isFalse();
    }
  }
}
