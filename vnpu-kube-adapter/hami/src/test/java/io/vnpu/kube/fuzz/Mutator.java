package io.vnpu.kube.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Byte-level mutations in the style of a coverage-less fuzzer: bit flips, interesting bytes and
 * integers, insertions and deletions, chunk duplication, splicing with another seed, and tokens
 * from a dictionary of the format. Deterministic for a given random source.
 */
final class Mutator {
  private static final byte[] INTERESTING = {
    0,
    1,
    -1,
    0x7f,
    (byte) 0x80,
    '\n',
    '"',
    '\\',
    ':',
    ',',
    ';',
    '-',
    '[',
    '{',
    '}',
    ']',
    '&',
    '*',
    '!',
    '%',
    '\'',
    '|',
    '>',
    (byte) 0xc3,
    (byte) 0xff
  };
  private static final long[] INTERESTING_INTS = {
    0,
    1,
    -1,
    16,
    17,
    255,
    256,
    4096,
    65535,
    Integer.MAX_VALUE,
    Integer.MIN_VALUE,
    Long.MAX_VALUE,
    Long.MIN_VALUE,
    0x80000000L,
    139264
  };

  private final SplittableRandom random;
  private final List<byte[]> seeds;
  private final List<byte[]> tokens;

  Mutator(long seed, List<byte[]> seeds, List<String> dictionary) {
    this.random = new SplittableRandom(seed);
    this.seeds = List.copyOf(seeds);
    List<byte[]> t = new ArrayList<>();
    for (String s : dictionary) t.add(s.getBytes(StandardCharsets.UTF_8));
    this.tokens = t;
  }

  /** A new input: a seed with 1 to 8 stacked mutations, at most {@code maxLen} bytes. */
  byte[] next(int maxLen) {
    byte[] b = seeds.get(random.nextInt(seeds.size())).clone();
    int rounds = 1 + random.nextInt(8);
    for (int i = 0; i < rounds; i++) b = mutate(b, maxLen);
    return b;
  }

  private byte[] mutate(byte[] b, int maxLen) {
    int op = random.nextInt(9);
    if (b.length == 0 && op < 6) op = 6;
    switch (op) {
      case 0 -> b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
      case 1 -> b[random.nextInt(b.length)] = INTERESTING[random.nextInt(INTERESTING.length)];
      case 2 -> b[random.nextInt(b.length)] = (byte) random.nextInt(256);
      case 3 -> { // little-endian integer of 4 or 8 bytes, aligned like the binary layouts
        int width = random.nextBoolean() ? 4 : 8;
        if (b.length >= width) {
          int at = random.nextInt(b.length / width) * width;
          long v = INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)];
          for (int i = 0; i < width; i++) b[at + i] = (byte) (v >>> (8 * i));
        }
      }
      case 4 -> b = delete(b, random.nextInt(b.length), 1 + random.nextInt(Math.min(16, b.length)));
      case 5 -> { // duplicate a chunk
        int from = random.nextInt(b.length);
        int len = 1 + random.nextInt(Math.min(32, b.length - from));
        byte[] chunk = java.util.Arrays.copyOfRange(b, from, from + len);
        b = insert(b, random.nextInt(b.length + 1), chunk, maxLen);
      }
      case 6 ->
          b =
              insert(
                  b,
                  random.nextInt(b.length + 1),
                  tokens.isEmpty()
                      ? new byte[] {INTERESTING[random.nextInt(INTERESTING.length)]}
                      : tokens.get(random.nextInt(tokens.size())),
                  maxLen);
      case 7 -> { // splice with another seed
        byte[] other = seeds.get(random.nextInt(seeds.size()));
        int cut = random.nextInt(b.length + 1);
        int from = other.length == 0 ? 0 : random.nextInt(other.length);
        byte[] out = new byte[Math.min(maxLen, cut + other.length - from)];
        System.arraycopy(b, 0, out, 0, Math.min(cut, out.length));
        if (out.length > cut) System.arraycopy(other, from, out, cut, out.length - cut);
        b = out;
      }
      default -> b = java.util.Arrays.copyOf(b, random.nextInt(b.length + 1)); // truncate
    }
    return b;
  }

  private static byte[] delete(byte[] b, int at, int len) {
    len = Math.min(len, b.length - at);
    byte[] out = new byte[b.length - len];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(b, at + len, out, at, b.length - at - len);
    return out;
  }

  private static byte[] insert(byte[] b, int at, byte[] what, int maxLen) {
    if (b.length + what.length > maxLen) return b;
    byte[] out = new byte[b.length + what.length];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(what, 0, out, at, what.length);
    System.arraycopy(b, at, out, at + what.length, b.length - at);
    return out;
  }
}
