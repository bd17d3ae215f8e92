package io.vnpu.kube.cli.run;

import io.vnpu.quota.layout.RegionLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The compute counters of one device of a quota region ({@code launches} and {@code busy_ns} of the
 * device live state, see {@code native/include/vnpu_region.h}), which the limiter maintains.
 *
 * @param launches kernel launches the limiter saw
 * @param busyNs device time those launches used, ns (measured by the limiter)
 */
public record ComputeCounters(long launches, long busyNs) {

  /**
   * Reads the counters of {@code device} from a region file with one positional read (each 8-byte
   * field is naturally aligned; the two may come from slightly different instants).
   *
   * @throws IOException when the file cannot be read or is shorter than the device state table
   */
  public static ComputeCounters read(Path region, int device) throws IOException {
    if (device < 0 || device >= RegionLayout.REGION_MAX_DEVICES) {
      throw new IllegalArgumentException("device must be in 0..15: " + device);
    }
    ByteBuffer b = ByteBuffer.allocate(RegionLayout.DEVSTATE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    long off = RegionLayout.devStateOff(device);
    try (FileChannel ch = FileChannel.open(region, StandardOpenOption.READ)) {
      while (b.hasRemaining()) {
        if (ch.read(b, off + b.position()) < 0) {
          throw new IOException("quota region " + region + " ends inside the state of device " + device);
        }
      }
    }
    return new ComputeCounters(
        Math.max(0, b.getLong(RegionLayout.DS_LAUNCHES)), Math.max(0, b.getLong(RegionLayout.DS_BUSY_NS)));
  }
}
