package io.vnpu.kube.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code vnpu dra} with bad flags: one line naming the flag, exit code 2, nothing started. */
class DraCommandTest {

  record Run(int code, String err) {}

  static Run run(String... args) {
    CommandLine cl = VnpuCli.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Run(code, err.toString());
  }

  @Test
  void badValuesAreOneLineNamingTheFlag() {
    Run r = run("dra", "--node-name", "n1", "--healthcheck-port", "70000");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "vnpu dra: --healthcheck-port = 70000: must be -1 (off), 0"
                + " (random) or a port up to 65535"
                + System.lineSeparator());

    r = run("dra", "--node-name", "n1", "--metrics-port", "-2");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "vnpu dra: --metrics-port = -2: must be -1 (off), 0"
                + " (random) or a port up to 65535"
                + System.lineSeparator());

    r = run("dra", "--node-name", "n1", "--driver-name", "Bad_Name");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo(
            "vnpu dra: --driver-name = Bad_Name: must be a"
                + " lowercase DNS subdomain of at most 63 characters");

    r = run("dra", "--node-name", "", "--simulate");
    assertThat(r.err().strip()).isEqualTo("vnpu dra: --node-name: required (or env NODE_NAME)");

    r = run("dra", "--node-name", "n1", "--device-profile", "gpu");
    assertThat(r.err().strip())
        .isEqualTo("vnpu dra: --device-profile = gpu: unknown profile" + " (known: npu)");

    // openFuyao's flag set has no --device-config: the bundled table, no usage error about it; this
    // run gets as far as the kubeconfig check, the last one before start
    r =
        run(
            "dra",
            "--node-name",
            "n1",
            "--enable-hard-vnpu",
            "--simulate",
            "--kubeconfig",
            "/nonexistent/kubeconfig");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo("vnpu dra: --kubeconfig /nonexistent/kubeconfig: no such file");

    String longDir = "/var/lib/kubelet/" + "p".repeat(90);
    r = run("dra", "--node-name", "n1", "--kubelet-plugins-directory-path", longDir);
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip())
        .isEqualTo(
            "vnpu dra: DRA socket path "
                + longDir
                + "/npu.huawei.com/dra.sock is 131 bytes long; unix sockets allow at most 107");
  }

  @Test
  void softSlicingFlagsAreCheckedAndDocumentedInTheHelp() {
    Run r = run("dra", "--node-name", "n1", "--enable-soft-slicing", "--capacity-names", "nvidia");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "vnpu dra: --capacity-names = nvidia: unknown (known: hami,"
                + " openfuyao)"
                + System.lineSeparator());

    CommandLine cl = VnpuCli.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    assertThat(cl.execute("dra", "--help")).isZero();
    // picocli wraps the descriptions: compare with the line breaks folded
    assertThat(out.toString().replaceAll("\\s+", " "))
        .contains("--enable-soft-slicing")
        .contains("ENABLE_SOFT_SLICING")
        .contains("--capacity-names")
        .contains("openfuyao = memCapacity, coreCapacity")
        .contains("--limiter-dir")
        .contains("--[no-]install-limiter");
  }

  @Test
  void unparsableValueIsOneLineToo() {
    Run r = run("dra", "--healthcheck-port", "abc");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().lines().toList())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("vnpu dra: invalid value for option '--healthcheck-port'")
                    .endsWith("(see 'vnpu dra --help')"));
  }
}
