package io.vnpu.quota.files;

import java.security.SecureRandom;

/**
 * Random values that name or identify host files: temporary names ({@link
 * HostFiles#temporarySibling}) and the epochs of quota regions and compute registries. One {@link
 * SecureRandom} serves them all (it is thread-safe): building one per use looked the security
 * provider up each time, a quarter of the JFR samples of an atomic write in the DRA plugin
 * (docs/benchmarks.md, "DRA Prepare: where the time goes"). Unpredictable, because whoever else can
 * write to the directory must not be able to guess a name before it is created.
 */
public final class RandomIds {
  private static final SecureRandom RANDOM = new SecureRandom();

  private RandomIds() {}

  /** Fills {@code bytes} with random bytes and returns it. */
  public static byte[] bytes(byte[] bytes) {
    RANDOM.nextBytes(bytes);
    return bytes;
  }

  /** A random {@code long} other than 0 (0 means "no epoch" in the region and registry headers). */
  public static long nonZeroLong() {
    long v;
    do {
      v = RANDOM.nextLong();
    } while (v == 0);
    return v;
  }
}
