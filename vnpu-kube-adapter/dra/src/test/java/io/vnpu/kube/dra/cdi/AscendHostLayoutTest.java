package io.vnpu.kube.dra.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.slice.Mount;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AscendHostLayoutTest {

  @TempDir Path tmp;

  /**
   * Driver packages differ between Atlas models: what the host has is mounted, a missing path is
   * left out, and so is a link to nothing (its bind mount would fail the container), while a link
   * to a present path is mounted.
   */
  @Test
  void driverMountsAreThePresentPathsAndLinksToThem() throws Exception {
    Path lib = Files.createDirectories(tmp.resolve("usr/local/Ascend/driver/lib64"));
    Files.createDirectories(tmp.resolve("usr/local/Ascend/driver"));
    Files.createSymbolicLink(
        tmp.resolve("usr/local/Ascend/driver/version.info"), tmp.resolve("missing"));
    Path smi = Files.writeString(tmp.resolve("npu-smi-1.0"), "");
    Files.createDirectories(tmp.resolve("usr/local/bin"));
    Files.createSymbolicLink(tmp.resolve("usr/local/bin/npu-smi"), smi);

    AscendHostLayout layout = new AscendHostLayout(new DeviceNodeProbe(tmp.resolve("dev")), tmp);

    assertThat(layout.driverMounts())
        .containsExactly(
            new Mount("/usr/local/Ascend/driver/lib64", lib.toString(), true),
            new Mount(
                "/usr/local/bin/npu-smi", tmp.resolve("usr/local/bin/npu-smi").toString(), true));
  }
}
