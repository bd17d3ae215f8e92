package io.vnpu.quota.host.process;

/**
 * How a supervised command ended, as a shell reports it.
 *
 * @param code 0..255 for a normal exit; {@code 128 + N} when the child died of signal N (the JDK
 *     reports a signal death that way on Linux); 126 when the program could not be executed, 127
 *     when it was not found
 */
public record ExitStatus(int code) {

  /** The program was found but could not be executed (shell convention). */
  public static final int CANNOT_EXECUTE = 126;

  /** The program was not found (shell convention). */
  public static final int NOT_FOUND = 127;

  public ExitStatus {
    if (code < 0 || code > 255)
      throw new IllegalArgumentException("exit code must be in 0..255: " + code);
  }

  /** The status of a process that died of {@code signal}. */
  public static ExitStatus killedBy(UnixSignal signal) {
    return new ExitStatus(128 + signal.number());
  }

  /** A short human description, e.g. {@code exit 3} or {@code exit 143 (SIGTERM)}. */
  public String describe() {
    UnixSignal s = code > 128 ? UnixSignal.byNumber(code - 128) : null;
    return s == null ? "exit " + code : "exit " + code + " (" + s.fullName() + ")";
  }
}
