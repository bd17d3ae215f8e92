package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vnpu demo} from the shaded jar: the main job passes and its report shows why. */
class DemoCommandIT {

  private static final Pattern SHARE_ROW =
      Pattern.compile("\\| (demo-[ab]) \\| ([0-9.]+) % \\| ([0-9.]+) % \\| [-+][0-9.]+ pp \\|");

  @TempDir Path tmp;

  @Test
  void demoPassesWithTheRefusalAndBothSharesInTolerance() throws Exception {
    CliJar cli = new CliJar(tmp);
    Path out = tmp.resolve("out");
    CliJar.Result r =
        cli.run("demo", List.of("demo", "--out", out.toString(), "--seconds", "6"), 180);
    assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isZero();
    assertThat(r.stderr()).contains("using the bundled simulated node");
    assertThat(r.stdout())
        .contains("[1/6] Discover the node through DCMI")
        .contains("[6/6] Write the chart")
        .contains("vnpu demo: all checks passed");

    String report = Files.readString(out.resolve("report.md"), StandardCharsets.UTF_8);
    assertThat(report).startsWith("# vnpu demo report\n\nResult: **PASS**");
    assertThat(report)
        .contains("- `demo-a` held 12.0 GiB and asked for 8.0 GiB more: refused with **207001**");
    assertThat(report)
        .contains("- `demo-b` meanwhile allocated 28.0 GiB: all granted (unaffected)");
    Matcher m = SHARE_ROW.matcher(report);
    int rows = 0;
    while (m.find()) {
      rows++;
      double target = Double.parseDouble(m.group(2));
      double achieved = Double.parseDouble(m.group(3));
      assertThat(target).isEqualTo(m.group(1).equals("demo-a") ? 25.0 : 75.0);
      assertThat(achieved).as(m.group(1) + " share").isBetween(target - 5, target + 5);
    }
    assertThat(rows).isEqualTo(2);
    assertThat(report).doesNotContain("| FAIL |");

    var doc =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(out.resolve("share.svg").toFile());
    assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(2);
    // the demo runs in private state: the host's slice state ($VNPU_STATE_DIR here) is never
    // touched
    assertThat(cli.stateDir()).isEmptyDirectory();
  }
}
