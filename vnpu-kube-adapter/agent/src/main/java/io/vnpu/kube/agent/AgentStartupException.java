package io.vnpu.kube.agent;

/** The node agent could not start; the message names the file, flag or device at fault. */
public class AgentStartupException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public AgentStartupException(String message) {
    super(message);
  }

  public AgentStartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
