package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DcmiNodeSelectorTest {
  @TempDir Path dir;

  @Test
  void noDriverAndNoNativeDirSaysDlopenFailedOnceOnOneLine() {
    Path std = dir.resolve("driver/lib64/driver/libdcmi.so");
    DcmiNodeSelector selector =
        new DcmiNodeSelector(
            new DcmiLibraryLocator(k -> null, k -> null, List.of(std)), Optional.empty());
    assertThatThrownBy(
            () ->
                selector.select(
                    Optional.empty(), Optional.of("910B4x8"), DcmiNodeSelector.Fallback.NONE))
        .isInstanceOfSatisfying(
            DcmiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(-99999);
              assertThat(e.getMessage())
                  .doesNotContain("\n")
                  .isEqualTo(
                      "dlopen failed: -99999"
                          + " LIBRARY_NOT_LOADED (libdcmi.so not loadable): libdcmi.so not found (no Ascend"
                          + " driver installed?); tried: "
                          + std
                          + "; the bundled simulator needs system"
                          + " property vnpu.native.dir (./vnpu sets it) or env VNPU_NATIVE_DIR");
            });
  }
}
