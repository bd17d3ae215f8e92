package io.vnpu.kube.dra.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointStoreTest {

  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T02:03:04Z"), ZoneOffset.UTC);

  @TempDir Path tmp;

  static PreparedClaim claim(String uid, ClaimState state) {
    return new PreparedClaim(
        uid,
        "demo",
        "npu-claim",
        state,
        List.of(
            new PreparedDevice(
                List.of("npu"),
                "node-1",
                "npu-3",
                null,
                3,
                false,
                List.of("npu.huawei.com/npu=" + uid + "-npu-3"))),
        false);
  }

  CheckpointStore store() {
    return new CheckpointStore(tmp.resolve(CheckpointStore.FILE_NAME), CLOCK);
  }

  static String stored(String payload) throws Exception {
    String sum =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest(payload.getBytes(StandardCharsets.UTF_8)));
    return "{\"version\":\"v1\",\"checksum\":\"sha256:"
        + sum
        + "\",\"checkpoint\":"
        + payload
        + "}\n";
  }

  /**
   * Group commit: saves that arrive while a write is on its way share the next write, which holds
   * the newest of them; every save returns only after a write that holds it (or a newer one).
   */
  @Test
  void concurrentSavesShareOneWriteOfTheNewest() throws Exception {
    List<Checkpoint> written = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicReference<CheckpointStore> self =
        new java.util.concurrent.atomic.AtomicReference<>();
    CheckpointCodec codec = new CheckpointCodec();
    CheckpointStore store =
        new CheckpointStore(
            tmp.resolve(CheckpointStore.FILE_NAME),
            CLOCK,
            (f, content) -> {
              if (written.isEmpty()) {
                // the first write holds on until the seven other saves wait behind it
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (self.get().pendingSaves() < 8 && System.nanoTime() < deadline)
                  Thread.onSpinWait();
              }
              written.add(codec.decode(content, f));
            });
    self.set(store);
    Checkpoint first = Checkpoint.empty("b").with(claim("u0", ClaimState.PrepareCompleted));
    Thread writer =
        new Thread(
            () -> {
              try {
                store.save(first);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    writer.start();
    while (store.pendingSaves() < 1) Thread.onSpinWait();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(7);
    try {
      List<java.util.concurrent.Future<?>> saves = new java.util.ArrayList<>();
      for (int i = 1; i <= 7; i++) {
        Checkpoint c = Checkpoint.empty("b").with(claim("u" + i, ClaimState.PrepareCompleted));
        saves.add(
            pool.submit(
                () -> {
                  store.save(c);
                  return null;
                }));
      }
      for (java.util.concurrent.Future<?> f : saves)
        f.get(60, java.util.concurrent.TimeUnit.SECONDS);
      writer.join(60_000);
    } finally {
      pool.shutdownNow();
    }
    assertThat(written).as("writes for 8 saves").hasSize(2);
    assertThat(written.get(0)).isEqualTo(first);
    assertThat(written.get(1).preparedClaims()).hasSize(1).doesNotContainKey("u0");
    assertThat(store.pendingSaves()).isZero();
  }

  /** A failed write fails every save it held, naming the file; the next save writes again. */
  @Test
  void aFailedWriteFailsTheSavesItHeldAndTheNextSaveWrites() throws Exception {
    java.util.concurrent.atomic.AtomicInteger calls =
        new java.util.concurrent.atomic.AtomicInteger();
    Path file = tmp.resolve(CheckpointStore.FILE_NAME);
    CheckpointStore store =
        new CheckpointStore(
            file,
            CLOCK,
            (f, content) -> {
              if (calls.incrementAndGet() == 1)
                throw new java.io.IOException("No space left on device");
              Files.write(f, content);
            });
    Checkpoint c = Checkpoint.empty("b").with(claim("u1", ClaimState.PrepareCompleted));
    assertThatThrownBy(() -> store.save(c))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("No space left on device");
    store.save(c);
    assertThat(store.load("b")).isEqualTo(c);
  }

  @Test
  void missingFileIsEmpty() throws Exception {
    assertThat(store().load("boot-1")).isEqualTo(Checkpoint.empty("boot-1"));
  }

  @Test
  void roundTripIsExactAndByteStable() throws Exception {
    Checkpoint c =
        Checkpoint.empty("boot-1")
            .with(claim("uid-b", ClaimState.PrepareCompleted))
            .with(claim("uid-a", ClaimState.PrepareStarted));
    store().save(c);
    byte[] first = Files.readAllBytes(store().file());
    assertThat(store().load("other")).isEqualTo(c);
    store().save(store().load("other"));
    assertThat(Files.readAllBytes(store().file())).isEqualTo(first);
    assertThat(new String(first, StandardCharsets.UTF_8))
        .startsWith("{\"version\":\"v1\",\"checksum\":\"sha256:")
        .contains("\"uid-a\":{\"uid\":\"uid-a\"");
    assertThat(Files.getPosixFilePermissions(store().file())).hasSize(2); // rw-------
  }

  @Test
  void olderBuildReadsANewerFileWithMoreFields() throws Exception {
    String payload =
        "{\"nodeBootId\":\"boot-9\",\"futureTop\":{\"x\":[1,2]},\"preparedClaims\":{"
            + "\"u1\":{\"uid\":\"u1\",\"namespace\":\"demo\",\"name\":\"c\",\"state\":\"PrepareCompleted\","
            + "\"rebuilt\":false,\"quotaRegion\":\"/run/vnpu/u1\",\"devices\":[{\"requestNames\":[\"npu\"],"
            + "\"poolName\":\"node-1\",\"deviceName\":\"npu-3\",\"physicalId\":3,\"adminAccess\":false,"
            + "\"partition\":{\"id\":148,\"profile\":\"p1\"},"
            + "\"cdiDeviceIds\":[\"npu.huawei.com/npu=u1-npu-3\"]}]}}}";
    Files.writeString(
        store().file(),
        stored(payload).replace("{\"version\"", "{\"writtenBy\":\"vnpu 9.9\",\"version\""));
    Checkpoint c = store().load("boot-1");
    assertThat(c.nodeBootId()).isEqualTo("boot-9");
    assertThat(c.preparedClaims()).containsOnlyKeys("u1");
    assertThat(c.preparedClaims().get("u1").devices())
        .containsExactly(
            new PreparedDevice(
                List.of("npu"),
                "node-1",
                "npu-3",
                null,
                3,
                false,
                List.of("npu.huawei.com/npu=u1-npu-3")));
  }

  @Test
  void newerBuildReadsAnOlderFileWithFewerFields() throws Exception {
    // an older build knew neither shareId, adminAccess nor rebuilt
    String payload =
        "{\"nodeBootId\":\"boot-1\",\"preparedClaims\":{\"u1\":{\"uid\":\"u1\","
            + "\"namespace\":\"demo\",\"name\":\"c\",\"state\":\"PrepareStarted\",\"devices\":["
            + "{\"poolName\":\"node-1\",\"deviceName\":\"npu-0\",\"physicalId\":0}]}}}";
    Files.writeString(store().file(), stored(payload));
    PreparedClaim u1 = store().load("boot-1").preparedClaims().get("u1");
    assertThat(u1)
        .isEqualTo(
            new PreparedClaim(
                "u1",
                "demo",
                "c",
                ClaimState.PrepareStarted,
                List.of(
                    new PreparedDevice(List.of(), "node-1", "npu-0", null, 0, false, List.of())),
                false));
  }

  @Test
  void flippedChecksumByteIsCorrupt() throws Exception {
    store().save(Checkpoint.empty("b").with(claim("u1", ClaimState.PrepareCompleted)));
    byte[] b = Files.readAllBytes(store().file());
    int at = new String(b, StandardCharsets.UTF_8).indexOf("sha256:") + 7;
    b[at] = (byte) (b[at] == 'a' ? 'b' : 'a');
    Files.write(store().file(), b);
    assertThatThrownBy(() -> store().load("b"))
        .isInstanceOf(CheckpointCorruptException.class)
        .hasMessageStartingWith(store().file() + ": checksum = sha256:")
        .hasMessageContaining("does not match the stored checkpoint");
  }

  @Test
  void flippedPayloadByteIsCorrupt() throws Exception {
    store().save(Checkpoint.empty("b").with(claim("u1", ClaimState.PrepareCompleted)));
    String s = Files.readString(store().file());
    Files.writeString(store().file(), s.replace("npu-3\"", "npu-4\""));
    assertThatThrownBy(() -> store().load("b"))
        .isInstanceOf(CheckpointCorruptException.class)
        .hasMessageContaining("does not match");
  }

  @Test
  void truncatedFileIsCorrupt() throws Exception {
    store().save(Checkpoint.empty("b").with(claim("u1", ClaimState.PrepareCompleted)));
    byte[] b = Files.readAllBytes(store().file());
    for (int len : new int[] {0, 1, 20, b.length / 2, b.length - 3}) {
      Files.write(store().file(), Arrays.copyOf(b, len));
      assertThatThrownBy(() -> store().load("b"))
          .as("length %d", len)
          .isInstanceOf(CheckpointCorruptException.class)
          .hasMessageStartingWith(store().file() + ": ");
    }
  }

  @Test
  void wrongVersionAndKeyMismatchAreCorrupt() throws Exception {
    Files.writeString(store().file(), stored("{}").replace("\"v1\"", "\"v7\""));
    assertThatThrownBy(() -> store().load("b"))
        .hasMessage(store().file() + ": version = v7: expected v1");
    Files.writeString(
        store().file(),
        stored("{\"preparedClaims\":{\"a\":{\"uid\":\"b\"," + "\"state\":\"PrepareStarted\"}}}"));
    assertThatThrownBy(() -> store().load("b"))
        .hasMessage(store().file() + ": preparedClaims.a.uid = b: differs from its key");
  }

  /**
   * A field of the wrong type (checksum intact: written so) names the field path and value, no Java
   * type.
   */
  @Test
  void aFieldOfTheWrongTypeNamesItsPathWithoutJavaTypes() throws Exception {
    Files.writeString(
        store().file(),
        stored(
            "{\"preparedClaims\":{\"a\":{\"uid\":\"a\","
                + "\"state\":\"PrepareStarted\",\"devices\":[{\"physicalId\":\"three\"}]}}}"));
    assertThatThrownBy(() -> store().load("b"))
        .hasMessage(
            store().file()
                + ": checkpoint.preparedClaims.a.devices[0].physicalId = \"three\": expected a 32-bit integer");
  }

  @Test
  void quarantineKeepsTheFileUnderANewName() throws Exception {
    Files.writeString(store().file(), "garbage");
    Path aside = store().quarantine();
    assertThat(aside.getFileName().toString())
        .isEqualTo("checkpoint.json.corrupt-20261201T020304Z");
    assertThat(Files.readString(aside)).isEqualTo("garbage");
    assertThat(store().file()).doesNotExist();
    Files.writeString(store().file(), "again");
    assertThat(store().quarantine().getFileName().toString())
        .isEqualTo("checkpoint.json.corrupt-20261201T020304Z-1");
  }
}
