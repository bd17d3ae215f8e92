package io.vnpu.api.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileManualSeparationStoreTest {
  @TempDir Path dir;

  @Test
  void roundTripAndOperatorEdits() throws Exception {
    Path f = dir.resolve("state/manually-separated-npus");
    FileManualSeparationStore store = new FileManualSeparationStore(f);
    assertThat(store.load()).isEmpty();
    store.save(Set.of(5, 1));
    assertThat(Files.readString(f))
        .isEqualTo(
            "# NPUs in ManuallySeparateNPU (logic IDs); delete a line to release the NPU\n1\n5\n");
    assertThat(store.load()).containsExactly(1, 5);
    Files.writeString(f, "1  # chip 1 keeps failing\n\n");
    assertThat(store.load()).containsExactly(1);
    try (var files = Files.list(f.getParent())) {
      assertThat(files).hasSize(1); // no temporary file left behind
    }
  }

  @Test
  void aBadLineIsNamed() throws Exception {
    Path f = dir.resolve("npus");
    Files.writeString(f, "1\nchip-2\n");
    assertThatThrownBy(() -> new FileManualSeparationStore(f).load())
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            f
                + ":2: ManuallySeparateNPU = chip-2: not an NPU logic ID (one non-negative integer per line)");
  }
}
