package io.vnpu.quota.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.quota.model.RegionConfig;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link QuotaRegions#delete}: removes regions, and nothing else. */
class QuotaRegionDeleteTest {
  @TempDir Path dir;
  private final QuotaRegions regions = new QuotaRegions();

  @Test
  void aClosedRegionIsDeletedAndItsNameCanBeCreatedAgain() throws Exception {
    Path f = dir.resolve("region");
    regions.create(f, RegionConfig.memoryLimit(1, 1L << 30)).close();

    assertThat(regions.delete(f)).isTrue();
    assertThat(f).doesNotExist();
    assertThat(regions.delete(f)).isFalse();
    try (QuotaRegion again = regions.create(f, RegionConfig.memoryLimit(1, 2L << 30))) {
      assertThat(again.readConfig().devices().get(0).memLimitBytes()).isEqualTo(2L << 30);
    }
  }

  @Test
  @SuppressWarnings("try") // the region only needs to be open while delete is tried
  void aRegionOpenInThisJvmIsNotDeleted() throws Exception {
    Path f = dir.resolve("region");
    try (QuotaRegion r = regions.create(f, RegionConfig.memoryLimit(1, 1L << 30))) {
      assertThatThrownBy(() -> regions.delete(f))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("quota region " + f + " is open in this JVM; close it before deleting it");
      assertThat(f).exists();
    }
  }

  @Test
  void anotherFileIsLeftUntouched() throws Exception {
    Path f =
        Files.writeString(dir.resolve("notes"), "not a region, but long enough to hold a magic");

    assertThatThrownBy(() -> regions.delete(f))
        .isInstanceOf(RegionFormatException.class)
        .hasMessageContaining("magic");
    assertThat(f).hasContent("not a region, but long enough to hold a magic");
    Path empty = Files.createFile(dir.resolve("empty"));
    assertThatThrownBy(() -> regions.delete(empty)).isInstanceOf(RegionFormatException.class);
    assertThat(empty).exists();
  }

  @Test
  void aLinkToARegionAndADirectoryAreLeftUntouched() throws Exception {
    Path target = dir.resolve("region");
    regions.create(target, RegionConfig.memoryLimit(1, 1L << 30)).close();
    Path link = Files.createSymbolicLink(dir.resolve("link"), target);

    assertThatThrownBy(() -> regions.delete(link))
        .isInstanceOf(FileSystemException.class)
        .hasMessage(link + ": a symbolic link, not a quota region; left untouched");
    assertThat(link).isSymbolicLink();
    assertThat(target).exists();
    Path d = Files.createDirectory(dir.resolve("d"));
    assertThatThrownBy(() -> regions.delete(d))
        .isInstanceOf(FileSystemException.class)
        .hasMessage(d + ": not a regular file, not a quota region; left untouched");
  }
}
