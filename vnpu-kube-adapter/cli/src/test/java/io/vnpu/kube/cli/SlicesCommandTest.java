package io.vnpu.kube.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.quota.host.HostSliceRequest;
import io.vnpu.quota.host.HostSlices;
import io.vnpu.quota.host.SliceRecord;
import io.vnpu.quota.host.SliceSession;
import io.vnpu.quota.host.SliceStore;
import io.vnpu.quota.host.StateDir;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code vnpu slices} and {@code vnpu slices rm} on a state directory of the test's own. */
class SlicesCommandTest {

  private static final String NL = System.lineSeparator();
  private static final long PID = ProcessHandle.current().pid();

  @TempDir Path root;
  private SliceStore store;

  private record Run(int exit, String out, String err) {}

  private Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = VnpuCli.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  /**
   * A slice owned by this JVM (alive), or by this pid with another start time (gone: pid reused).
   */
  private void slice(String name, int logicId, boolean alive) throws Exception {
    long start =
        alive ? ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli() : 1L;
    store.create(
        new SliceRecord(
            name,
            logicId,
            logicId,
            0,
            1,
            0,
            Priority.NORMAL,
            PID,
            start,
            System.currentTimeMillis(),
            List.of("true")));
  }

  @BeforeEach
  void stateDir() {
    store = new SliceStore(new StateDir(root));
  }

  @Test
  void listsNameNpuOwnerAndWhetherItIsAlive() throws Exception {
    slice("live-1", 3, true);
    slice("stale-2", 0, false);
    Run r = run("slices", "--state-dir", root.toString());
    assertThat(r.exit()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out())
        .isEqualTo(
            "NAME     NPU  OWNER-PID  OWNER"
                + NL
                + String.format("live-1   3    %-9d  alive", PID)
                + NL
                + String.format("stale-2  0    %-9d  gone", PID)
                + NL);
  }

  @Test
  void anEmptyStateDirectoryListsOnlyTheHeader() {
    Run r = run("slices", "--state-dir", root.resolve("none").toString());
    assertThat(r.exit()).isZero();
    assertThat(r.out()).isEqualTo("NAME  NPU  OWNER-PID  OWNER" + NL);
  }

  @Test
  void removesASliceWhoseOwnerIsGone() throws Exception {
    slice("stale-2", 0, false);
    Run r = run("slices", "--state-dir", root.toString(), "rm", "stale-2");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).isEqualTo("removed slice stale-2" + NL);
    assertThat(Files.exists(root.resolve("slices/stale-2"))).isFalse();
  }

  @Test
  void refusesALiveSliceUnlessForced() throws Exception {
    slice("live-1", 3, true);
    Run refused = run("slices", "--state-dir", root.toString(), "rm", "live-1");
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.err())
        .isEqualTo(
            "vnpu slices rm: slice live-1 is in use by pid "
                + PID
                + "; stop that process, or use --force"
                + NL);
    assertThat(Files.exists(root.resolve("slices/live-1/slice.json"))).isTrue();

    Run forced = run("slices", "--state-dir", root.toString(), "rm", "--force", "live-1");
    assertThat(forced.exit()).isZero();
    assertThat(Files.exists(root.resolve("slices/live-1"))).isFalse();
  }

  @Test
  void anUnknownOrInvalidNameIsOneLine() {
    Run unknown = run("slices", "--state-dir", root.toString(), "rm", "nope");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).isEqualTo("vnpu slices rm: no slice named 'nope' in " + root + NL);

    Run bad = run("slices", "--state-dir", root.toString(), "rm", "../x");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err())
        .isEqualTo(
            "vnpu slices rm: slice name '../x' must be 1..63 characters of letters, "
                + "digits, '.', '_' or '-', starting with a letter or digit (see 'vnpu slices rm --help')"
                + NL);

    Run missing = run("slices", "rm");
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err())
        .isEqualTo(
            "vnpu slices rm: missing required parameter: 'NAME' (see 'vnpu slices rm --help')"
                + NL);
  }

  @Test
  void resizesALiveSliceAndSaysWhatChanged() throws Exception {
    try (HostSlices slices = new HostSlices(new StateDir(root), new QuotaRegions());
        SliceSession s =
            slices.create(
                new HostSliceRequest(
                    "train",
                    0,
                    new SliceDevice(
                        new NpuRef(0, "U0"),
                        new SliceShare.SoftQuota(1L << 30, 50, 50, Priority.NORMAL)),
                    List.of()))) {
      Run r = run("slices", "--state-dir", root.toString(), "resize", "train", "--weight", "300");
      assertThat(r.err()).isEmpty();
      assertThat(r.exit()).isZero();
      assertThat(r.out())
          .isEqualTo(
              "resized slice train: memory 1.0 GiB -> 1.0 GiB, weight 50 -> 300, cap 50 % -> none"
                  + NL);
      assertThat(s.region().readConfig().devices().get(0).computeWeight()).isEqualTo(300);
      assertThat(store.read("train").orElseThrow().capPct()).isZero();
    }
  }

  @Test
  void resizeRefusalsAndBadValuesAreOneLine() throws Exception {
    Run unknown = run("slices", "--state-dir", root.toString(), "resize", "nope", "--core", "20");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err())
        .isEqualTo("vnpu slices resize: no slice named 'nope' in " + root + NL);

    Run nothing = run("slices", "--state-dir", root.toString(), "resize", "nope");
    assertThat(nothing.exit()).isEqualTo(2);
    assertThat(nothing.err())
        .isEqualTo(
            "vnpu slices resize: nothing to change: give --memory, --core or --weight "
                + "(see 'vnpu slices resize --help')"
                + NL);

    Run zero = run("slices", "resize", "x", "--core", "0");
    assertThat(zero.exit()).isEqualTo(2);
    assertThat(zero.err())
        .isEqualTo(
            "vnpu slices resize: invalid value for option '--core': '0': a percent of the "
                + "AI-core time must be in 1..100 (see 'vnpu slices resize --help')"
                + NL);
    Run negative = run("slices", "resize", "x", "--memory", "-1Gi");
    assertThat(negative.exit()).isEqualTo(2);
    assertThat(negative.err())
        // ParserRules: a value that looks like an option is not taken as --memory's value
        .isEqualTo(
            "vnpu slices resize: unknown option: '-1Gi'; Expected parameter for option '--memory'"
                + " but found '-1Gi' (see 'vnpu slices resize --help')"
                + NL)
        .doesNotContain("Exception");
    assertThat(negative.err().lines()).hasSize(1);
    Run both = run("slices", "resize", "x", "--core", "5", "--weight", "5");
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err().lines()).hasSize(1);

    // a slice whose region a scheduler sized (as the DRA plugin and device plugins create them)
    slice("claim", 0, true);
    RegionConfig config =
        RegionConfig.forSlice(
            List.of(
                new SliceDevice(
                    new NpuRef(0, "U0"),
                    new SliceShare.SoftQuota(1L << 30, 25, 0, Priority.NORMAL))),
            root.resolve("registry").toString());
    try (QuotaRegion r = new QuotaRegions().create(store.regionFile("claim"), config)) {
      r.epoch();
    }
    Run refused =
        run("slices", "--state-dir", root.toString(), "resize", "claim", "--weight", "50");
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.err())
        .isEqualTo(
            "vnpu slices resize: slice claim: its sizes were charged by a scheduler (DRA "
                + "plugin or device plugin, sized_by = scheduler); they are not resized live: change its claim or pod instead"
                + NL);
  }
}
