package io.vnpu.api.model;

/** Byte-size constants. Every size in the vnpu API says whether it is bytes or MiB in its name. */
public final class Units {
  /** Bytes in one MiB. */
  public static final long MIB = 1024L * 1024L;

  /** Bytes in one GiB. */
  public static final long GIB = 1024L * MIB;

  private Units() {}
}
