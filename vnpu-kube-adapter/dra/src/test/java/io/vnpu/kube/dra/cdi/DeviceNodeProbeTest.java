package io.vnpu.kube.dra.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceNodeProbeTest {

  @TempDir Path tmp;

  @Test
  void characterDeviceGetsTypeAndNumbersFromStat() throws Exception {
    // /dev/null is character device 1:3 on every Linux host
    CdiDeviceNode n = new DeviceNodeProbe(Path.of("/dev")).probe("/dev/null");
    assertThat(n).isEqualTo(new CdiDeviceNode("/dev/null", null, "c", 1L, 3L, "rwm"));
  }

  @Test
  void standInFileUnderAnotherRootKeepsTheContainerPath() throws Exception {
    Files.writeString(tmp.resolve("davinci3"), "");
    CdiDeviceNode n = new DeviceNodeProbe(tmp).probe("/dev/davinci3");
    assertThat(n)
        .isEqualTo(
            new CdiDeviceNode(
                "/dev/davinci3", tmp.resolve("davinci3").toString(), null, null, null, "rwm"));
  }

  @Test
  void missingNodeIsAnErrorNamingTheHostPath() {
    assertThatThrownBy(() -> new DeviceNodeProbe(tmp).probe("/dev/davinci7"))
        .isInstanceOf(MissingDeviceNodeException.class)
        .hasMessage(tmp.resolve("davinci7") + ": device node does not exist on this host");
    assertThatThrownBy(() -> new DeviceNodeProbe(tmp).probe("/etc/passwd"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void majorMinorDecodingMatchesGlibc() {
    // makedev(236, 3) and makedev(4095+1, 256) in glibc's encoding
    assertThat(DeviceNodeProbe.major(0xEC03L)).isEqualTo(236);
    assertThat(DeviceNodeProbe.minor(0xEC03L)).isEqualTo(3);
    long dev = ((4096L & 0xfffff000L) << 32) | ((256L & 0xffffff00L) << 12);
    assertThat(DeviceNodeProbe.major(dev)).isEqualTo(4096);
    assertThat(DeviceNodeProbe.minor(dev)).isEqualTo(256);
  }
}
