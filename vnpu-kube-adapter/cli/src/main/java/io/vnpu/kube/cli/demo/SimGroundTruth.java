package io.vnpu.kube.cli.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads the simulated CANN runtime's ground truth (simulator only, {@code
 * include/cann_sim/cann_sim.h}): {@code $VNPU_SIM_ROOT/busy/<pid>-<logic id>}, a {@code struct
 * vnpu_sim_busy_record} with the device time every task of that process occupied. The limiter never
 * reads this; the demo uses it to check the limiter from outside.
 */
public final class SimGroundTruth {

  static final long BUSY_MAGIC = 0x5953554244494d53L;
  static final int RECORD_BYTES = 64;
  static final int OFF_BUSY_NS = 16;

  private final Path simRoot;

  /**
   * @param simRoot the simulator's state directory ({@code VNPU_SIM_ROOT})
   */
  public SimGroundTruth(Path simRoot) {
    this.simRoot = simRoot;
  }

  /**
   * Device-busy ns of process {@code pid} on NPU {@code logicId} (tasks queued included); 0 when it
   * has launched nothing yet.
   *
   * @throws IOException naming the file when the record is short or has a bad magic
   */
  public long busyNs(long pid, int logicId) throws IOException {
    Path f = simRoot.resolve("busy").resolve(pid + "-" + logicId);
    byte[] raw;
    try {
      raw = Files.readAllBytes(f);
    } catch (NoSuchFileException e) {
      return 0;
    }
    if (raw.length < OFF_BUSY_NS + 8) {
      throw new IOException(
          "simulator busy record " + f + " has " + raw.length + " bytes, expected " + RECORD_BYTES);
    }
    ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
    if (b.getLong(0) != BUSY_MAGIC) {
      throw new IOException(
          String.format(
              "simulator busy record %s has magic 0x%016x, expected 0x%016x",
              f, b.getLong(0), BUSY_MAGIC));
    }
    return Math.max(0, b.getLong(OFF_BUSY_NS));
  }
}
