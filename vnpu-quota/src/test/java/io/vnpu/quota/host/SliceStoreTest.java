package io.vnpu.quota.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SliceStoreTest {

  @TempDir Path tmp;

  private static SliceRecord record(String name, long ownerPid, long ownerStart) {
    return new SliceRecord(
        name,
        0,
        3,
        8L << 30,
        3,
        0,
        Priority.HIGH,
        ownerPid,
        ownerStart,
        1_700_000_000_000L,
        List.of("python", "train.py"));
  }

  private static SliceRecord mine(String name) {
    ProcessHandle me = ProcessHandle.current();
    return record(name, me.pid(), me.info().startInstant().orElseThrow().toEpochMilli());
  }

  @Test
  void stateDirResolutionOrder() throws Exception {
    Path xdg = Files.createDirectory(tmp.resolve("xdg"));
    assertThat(StateDir.resolve(Path.of("/x/flag"), Map.of(StateDir.ENV, "/x/env"), 1000).root())
        .isEqualTo(Path.of("/x/flag"));
    assertThat(
            StateDir.resolve(
                    null, Map.of(StateDir.ENV, "/x/env", "XDG_RUNTIME_DIR", xdg.toString()), 1000)
                .root())
        .isEqualTo(Path.of("/x/env"));
    assertThat(StateDir.resolve(null, Map.of("XDG_RUNTIME_DIR", xdg.toString()), 1000).root())
        .isEqualTo(xdg.resolve("vnpu"));
    assertThat(
            StateDir.resolve(
                    null, Map.of("XDG_RUNTIME_DIR", tmp.resolve("missing").toString()), 1000)
                .root())
        .isEqualTo(Path.of("/tmp/vnpu-1000"));
    assertThat(StateDir.resolve(null, Map.of(), 0).root()).isEqualTo(Path.of("/run/vnpu"));
    StateDir d = new StateDir(Path.of("/s"));
    assertThat(d.slices()).isEqualTo(Path.of("/s/slices"));
    assertThat(d.registry()).isEqualTo(Path.of("/s/registry"));
  }

  @Test
  void createReadListAndRemove() throws Exception {
    SliceStore store = new SliceStore(new StateDir(tmp));
    store.create(mine("job-b"));
    store.create(mine("job-a"));
    Files.writeString(store.regionFile("job-a"), "region bytes");
    assertThat(store.names()).containsExactly("job-a", "job-b");
    assertThat(store.read("job-a")).contains(mine("job-a"));
    assertThat(store.read("nope")).isEmpty();
    store.remove("job-a");
    assertThat(store.sliceDir("job-a")).doesNotExist();
    assertThat(store.names()).containsExactly("job-b");
    store.remove("job-a"); // twice is fine
  }

  @Test
  void aNameInUseIsRefusedWithAHint() throws Exception {
    SliceStore store = new SliceStore(new StateDir(tmp));
    store.create(mine("job"));
    assertThatThrownBy(() -> store.create(mine("job")))
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining("a slice named 'job' exists");
  }

  @Test
  void aMalformedRecordNamesTheFile() throws Exception {
    SliceStore store = new SliceStore(new StateDir(tmp));
    Files.createDirectories(store.sliceDir("bad"));
    Files.writeString(
        store.sliceDir("bad").resolve(SliceStore.RECORD_FILE),
        "{\"name\": \"bad\", \"weight\": 0}");
    assertThatThrownBy(() -> store.read("bad"))
        .hasMessageStartingWith(
            "slice record " + store.sliceDir("bad").resolve("slice.json") + " is malformed: ");
  }

  /**
   * A damaged record (edited by hand, written by another version) gets one line naming the file,
   * the field, the value and what was expected: no Java type, no Jackson class or feature name, no
   * Jackson location text.
   */
  @Test
  void aMalformedRecordNamesFieldAndValueWithoutJavaTypes() throws Exception {
    SliceStore store = new SliceStore(new StateDir(tmp));
    Files.createDirectories(store.sliceDir("bad"));
    Path f = store.sliceDir("bad").resolve(SliceStore.RECORD_FILE);
    String base =
        "\"name\":\"bad\",\"logicId\":0,\"phyId\":0,\"memoryLimitBytes\":1,\"weight\":1,\"capPct\":0,"
            + "\"priority\":\"NORMAL\",\"ownerPid\":1,\"ownerStartMillis\":1,\"createdMillis\":1,\"command\":[\"x\"]";
    java.util.Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put(
        "{" + base.replace("\"logicId\":0", "\"logicId\":\"zero\"") + "}",
        "logicId = \"zero\": expected a 32-bit integer");
    cases.put(
        "{" + base.replace("\"logicId\":0", "\"logicId\":99999999999999") + "}",
        "logicId: number out of range of a 32-bit integer");
    cases.put(
        "{" + base.replace("\"logicId\":0", "\"logicId\":null") + "}",
        "logicId = null: expected a 32-bit integer");
    cases.put(
        "{" + base.replace("NORMAL", "LOW") + "}",
        "priority = \"LOW\": expected one of [HIGH, NORMAL]");
    cases.put(
        "{" + base.replace("\"name\":\"bad\"", "\"name\":null") + "}",
        "name: required, missing or null");
    cases.put("{" + base + "} garbage", "line 1, column ");
    cases.put("{" + base, "line 1, column ");
    cases.put("[1]", "(document): expected an object");
    for (var c : cases.entrySet()) {
      Files.writeString(f, c.getKey());
      assertThatThrownBy(() -> store.read("bad"))
          .as(c.getKey())
          .hasMessageStartingWith("slice record " + f + " is malformed: " + c.getValue())
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .doesNotContain(
                          "io.vnpu", "`", "Source", "Feature", "\n", "Exception", "java.lang"));
    }
  }

  @Test
  void recordValidation() {
    assertThatThrownBy(() -> record("../etc", 1, 0))
        .hasMessageContaining("slice name '../etc' must be");
    assertThatThrownBy(
            () -> new SliceRecord("a", 0, 0, 0, 0, 0, Priority.NORMAL, 1, 0, 0, List.of()))
        .hasMessage("weight must be in 1..10000: 0");
  }

  @Test
  void ownerGoneWhenThePidIsDeadOrReused() throws Exception {
    assertThat(SliceStore.ownerGone(mine("x"))).isFalse();
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    assertThat(SliceStore.ownerGone(record("x", p.pid(), 0))).isTrue();
    ProcessHandle me = ProcessHandle.current();
    long start = me.info().startInstant().orElseThrow().toEpochMilli();
    assertThat(SliceStore.ownerGone(record("x", me.pid(), start - 60_000))).isTrue();
  }

  // /tmp/vnpu-<uid> is a predictable name: a state directory others can write is refused, and a
  // link planted in a slice directory is removed as a link
  @Test
  void untrustedStateDirIsRefusedAndRemoveNeverFollowsLinks() throws Exception {
    Path open = Files.createDirectory(tmp.resolve("open"));
    Files.setPosixFilePermissions(
        open, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> new SliceStore(new StateDir(open)).create(mine("job")))
        .hasMessageContaining(open.toString())
        .hasMessageContaining("writable by group or others");
    assertThat(open.resolve("slices")).doesNotExist();

    Path outside = Files.createDirectory(tmp.resolve("outside"));
    Path keep = Files.writeString(outside.resolve("keep"), "keep");
    SliceStore store = new SliceStore(new StateDir(tmp.resolve("state")));
    store.create(mine("job"));
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(
                    store.sliceDir("job").resolve(SliceStore.RECORD_FILE))))
        .isEqualTo("rw-r--r--");
    Files.createSymbolicLink(store.sliceDir("job").resolve("planted"), outside);
    store.remove("job");
    assertThat(store.sliceDir("job")).doesNotExist();
    assertThat(Files.readString(keep)).isEqualTo("keep");
  }
}
