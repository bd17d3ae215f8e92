package io.vnpu.quota.region;

import io.vnpu.quota.model.RegionConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Run by {@link RegionAllocationTest} in a child JVM inside a private mount namespace whose {@code
 * args[0]} is a small tmpfs: creates one region, fills the file system as a tenant would from its
 * own directory, then uses the region (admit, release, snapshot) and tries to create a second one.
 * Prints one line per outcome; a fault would surface as an {@link InternalError} (exit 3).
 */
public final class FullFileSystemProbe {
  private FullFileSystemProbe() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    QuotaRegions regions = new QuotaRegions();
    try (QuotaRegion victim =
        regions.create(dir.resolve("victim"), RegionConfig.memoryLimit(1, 1L << 30))) {
      Path fill = dir.resolve("tenant-fill");
      try (var out = Files.newOutputStream(fill, StandardOpenOption.CREATE_NEW)) {
        byte[] block = new byte[4096];
        for (; ; ) out.write(block);
      } catch (IOException full) {
        System.out.println("filled: " + full.getMessage());
      }
      try {
        MemoryAccount a = victim.memoryAccount();
        boolean admitted = a.admit(0, 512L << 20);
        a.release(0, 512L << 20);
        System.out.println(
            "victim admit=" + admitted + " used=" + victim.usage().devices().get(0).usedBytes());
        try {
          regions.create(dir.resolve("second"), RegionConfig.memoryLimit(1, 1L << 30)).close();
          System.out.println("second created");
        } catch (RegionSpaceException e) {
          System.out.println("second refused: " + e.getMessage());
        }
        System.out.println("second exists=" + Files.exists(dir.resolve("second")));
      } catch (InternalError e) {
        System.out.println("InternalError: " + e);
        System.exit(3);
      }
    }
  }
}
