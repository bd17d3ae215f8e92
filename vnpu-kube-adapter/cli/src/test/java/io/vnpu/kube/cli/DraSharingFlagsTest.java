package io.vnpu.kube.cli;

import static io.vnpu.kube.cli.DraCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code --chip-modes} and {@code --shared-counters}: one line naming the flag, exit code 2. */
class DraSharingFlagsTest {

  @Test
  void badChipModesAndSharedCountersAreOneLineNamingTheFlag() {
    DraCommandTest.Run r =
        run("dra", "--node-name", "n1", "--enable-soft-slicing", "--chip-modes", "0-3=hrad");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "vnpu dra: --chip-modes = 0-3=hrad: unknown mode hrad (known:"
                + " whole, hard, soft)"
                + System.lineSeparator());

    r =
        run(
            "dra",
            "--node-name",
            "n1",
            "--enable-soft-slicing",
            "--chip-modes",
            "0-3=soft,2=whole");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo("vnpu dra: --chip-modes = 0-3=soft,2=whole: phy ID 2" + " is given twice");

    r = run("dra", "--node-name", "n1", "--chip-modes", "0=hard");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo("vnpu dra: --chip-modes = 0=hard: hard needs" + " --enable-hard-vnpu");

    r = run("dra", "--node-name", "n1", "--shared-counters", "maybe");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo("vnpu dra: --shared-counters = maybe: unknown (known:" + " auto, off)");
  }

  @Test
  void relativeDirectoriesAreOneLineNamingTheFlag() {
    DraCommandTest.Run r = run("dra", "--node-name", "n1", "--cdi-root", "cdi");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).isEqualTo("vnpu dra: --cdi-root = cdi: must be an absolute path");
    r = run("dra", "--node-name", "n1", "--kubelet-plugins-directory-path", "plugins");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo(
            "vnpu dra: --kubelet-plugins-directory-path = plugins:" + " must be an absolute path");
    r = run("dra", "--node-name", "n1", "--kubelet-registrar-directory-path", "./reg");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo(
            "vnpu dra: --kubelet-registrar-directory-path = ./reg:" + " must be an absolute path");
  }
}
