package io.vnpu.quota.host.process;

import java.io.IOException;

/** The command could not be started; {@link #status()} is what a shell would exit with. */
public final class CommandLaunchException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient ExitStatus status;

  CommandLaunchException(String message, ExitStatus status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** 127 when the program was not found, 126 when it exists but could not be executed. */
  public ExitStatus status() {
    return status;
  }
}
