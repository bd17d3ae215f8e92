package io.vnpu.quota.host.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LibcSignalSenderTest {

  private final LibcSignalSender sender = new LibcSignalSender();

  @Test
  void sendsTheNamedSignal() throws Exception {
    Process p = new ProcessBuilder("sleep", "30").start();
    sender.send(p.pid(), UnixSignal.HUP);
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(128 + 1);
  }

  @Test
  void aProcessThatIsGoneIsNotAnError() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    sender.send(p.pid(), UnixSignal.TERM);
    assertThat(p.exitValue()).isZero();
  }

  @Test
  void refusesProcessGroupAddresses() {
    assertThatThrownBy(() -> sender.send(0, UnixSignal.TERM))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pid must be a single process id > 0: 0");
    assertThatThrownBy(() -> sender.send(-5, UnixSignal.TERM))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRefusalNamesPidSignalAndErrno() {
    // a real EPERM needs a process of another user, which a root test run does not have: stub libc
    LibcSignalSender eperm =
        new LibcSignalSender(
            (pid, sig) -> {
              throw new com.sun.jna.LastErrorException(1);
            });
    assertThatThrownBy(() -> eperm.send(1234, UnixSignal.INT))
        .isInstanceOf(java.io.IOException.class)
        .hasMessage("kill(1234, SIGINT) failed: errno 1");
  }
}
