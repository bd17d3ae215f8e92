package io.vnpu.quota.host.process;

/** The POSIX signals the supervisor knows by name (Linux numbers). */
public enum UnixSignal {
  HUP(1),
  INT(2),
  QUIT(3),
  KILL(9),
  USR1(10),
  SEGV(11),
  USR2(12),
  PIPE(13),
  ALRM(14),
  TERM(15);

  private final int number;

  UnixSignal(int number) {
    this.number = number;
  }

  /** Linux signal number. */
  public int number() {
    return number;
  }

  /** The name with its {@code SIG} prefix, e.g. {@code SIGTERM}. */
  public String fullName() {
    return "SIG" + name();
  }

  /** The signal with this Linux number, or null when it is not one of these. */
  public static UnixSignal byNumber(int number) {
    for (UnixSignal s : values()) if (s.number == number) return s;
    return null;
  }
}
