package io.vnpu.kube.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.dcmi.DcmiLibraryLocator;
import io.vnpu.dcmi.DcmiNodeSelector;
import io.vnpu.dcmi.sim.BundledSimulator;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

class DevicesCommandTest {
  @TempDir Path root;
  @TempDir Path noDriver;

  private Path nativeDir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void pointTheSimulatorAtAPrivateRoot() {
    nativeDir = Path.of(System.getProperty("vnpu.native.dir"));
    new BundledSimulator(nativeDir).configure(null, root);
  }

  /** A node without any installed driver: the standard locations point into an empty dir. */
  private DcmiNodeSelector nodeWithoutDriver() {
    DcmiLibraryLocator locator =
        new DcmiLibraryLocator(
            k -> null, k -> null, List.of(noDriver.resolve("lib64/driver/libdcmi.so")));
    return new DcmiNodeSelector(locator, Optional.of(nativeDir));
  }

  private int run(DcmiNodeSelector env, String... args) {
    CommandLine cli = new CommandLine(new DevicesCommand(env));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  private void ctl(String profile, String... args) throws Exception {
    List<String> cmd =
        new java.util.ArrayList<>(List.of(nativeDir.resolve("vnpu-sim-ctl").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(Map.of("VNPU_SIM_PROFILE", profile, "VNPU_SIM_ROOT", root.toString()));
    Process p = pb.start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(text).isZero();
  }

  @Test
  void tablePrintsOneRowPerNpuWithHealthAndVnpus() throws Exception {
    ctl("310P3x4", "create", "1", "vir04");
    ctl("310P3x4", "use", "1", "116", "1");
    ctl("310P3x4", "fault", "2", "0x80E01801");

    int rc = run(nodeWithoutDriver(), "--sim-profile", "310P3x4");

    assertThat(rc).as(err.toString()).isZero();
    assertThat(out.toString().lines())
        .containsExactly(
            "LOGIC PHY  CARD DEV UUID                                         CHIP       HBM-USED/TOTAL(MiB) AICORE  VNPUS    HEALTH",
            "0     0    1    0   2609AAB3-9C37C461-53CA2FB8-99491536-8B0C6F00 310P3      0/21527             8       -        OK",
            "1     1    3    0   050976C0-D4E62DA5-B359B4F7-3437B97A-83B8B801 310P3      0/21527             8       116:vir04(in use) OK",
            "2     2    5    0   E8094919-A59E808D-8284BDFE-2CF6A582-9346FE02 310P3      0/21527             8       -        "
                + "UNHEALTHY RestartBusiness: 80E01801 RestartBusiness (poll)",
            "3     3    7    0   C7091526-964C7879-B96118CD-7DD9D39E-13E8AC03 310P3      0/21527             8       -        OK");
    assertThat(err.toString().lines())
        .singleElement()
        .asString()
        .startsWith(
            "vnpu: no Ascend driver in use; using the bundled simulated node (profile "
                + "310P3x4, state "
                + root
                + ", ");
  }

  @Test
  void withoutDriverOrProfileTheBundledSimulatorIsUsedAndJsonIsComplete() throws Exception {
    new BundledSimulator(nativeDir).configure("A3x8", root);
    ctl("A3x8", "drop", "4");

    int rc = run(nodeWithoutDriver(), "--json");

    assertThat(rc).as(err.toString()).isZero();
    assertThat(err.toString()).contains("bundled simulated node (profile A3x8");
    JsonNode doc = new ObjectMapper().readTree(out.toString());
    assertThat(doc.get("simulated").asBoolean()).isTrue();
    assertThat(doc.get("library").asString())
        .isEqualTo(nativeDir.resolve("libdcmi.so").toAbsolutePath().toString());
    JsonNode npus = doc.get("npus");
    assertThat(npus).hasSize(16);
    JsonNode fifth = npus.get(5);
    assertThat(fifth.get("logicId").asInt()).isEqualTo(5);
    assertThat(fifth.get("cardId").asInt()).isEqualTo(2);
    assertThat(fifth.get("deviceId").asInt()).isEqualTo(1);
    assertThat(fifth.get("chip").asString()).isEqualTo("Ascend910");
    assertThat(fifth.get("hbmTotalMib").asLong()).isEqualTo(65536);
    assertThat(fifth.get("aiCores").asInt()).isEqualTo(24);
    assertThat(fifth.get("healthy").asBoolean()).isFalse();
    assertThat(fifth.get("healthReason").asString()).isEqualTo("40F84E00 RestartNPU (card drop)");
    assertThat(fifth.get("faultLevel").asString()).isEqualTo("RestartNPU");
    assertThat(fifth.get("faultCodes"))
        .singleElement()
        .satisfies(c -> assertThat(c.asString()).isEqualTo("40F84E00"));
    assertThat(fifth.get("faultCode").asLong()).isEqualTo(0x40F84E00L);
    assertThat(fifth.get("networkHealthy").asBoolean()).isTrue();
    assertThat(fifth.get("uuid").asString()).matches("[0-9A-F]{8}(-[0-9A-F]{8}){4}");
    assertThat(npus.get(0).get("healthy").asBoolean()).isTrue();
    assertThat(npus.get(0).get("vnpus")).isEmpty();
  }

  @Test
  void unknownProfileIsAUsageError() {
    int rc = run(nodeWithoutDriver(), "--sim-profile", "H100x8");
    assertThat(rc).isEqualTo(2);
    // refused while parsing (SimulatorProfileConverter); the one-line form through vnpu's own
    // error handler is CliUsageTest's
    assertThat(err.toString())
        .contains(
            "'H100x8': unknown simulator profile; built-in: 910B3x8, 910B4x8, 910Ax8, 310P3x4,"
                + " 300IDuox2, A3x8, A3Inferx8, 310PMixedx4, 300IA2x4");
  }

  @Test
  void explicitLibraryThatDoesNotExistFailsListingThePath() {
    Path bad = noDriver.resolve("custom/libdcmi.so");
    DcmiLibraryLocator locator =
        new DcmiLibraryLocator(
            k -> k.equals(DcmiLibraryLocator.PROPERTY) ? bad.toString() : null,
            k -> null,
            List.of());
    int rc = run(new DcmiNodeSelector(locator, Optional.of(nativeDir)));
    assertThat(rc).isEqualTo(1);
    assertThat(err.toString()).contains("tried: " + bad).doesNotContain("simulated node");
  }

  @Test
  void noDriverAndNoSimulatorListsEverything() {
    DcmiLibraryLocator locator =
        new DcmiLibraryLocator(k -> null, k -> null, List.of(noDriver.resolve("libdcmi.so")));
    int rc = run(new DcmiNodeSelector(locator, Optional.empty()));
    assertThat(rc).isEqualTo(1);
    assertThat(err.toString())
        .contains("tried: " + noDriver.resolve("libdcmi.so"))
        .contains("needs system property vnpu.native.dir");
  }

  @Test
  void devicesIsASubcommandOfVnpu() {
    assertThat(VnpuCli.commandLine().getSubcommands()).containsKey("devices");
  }
}
