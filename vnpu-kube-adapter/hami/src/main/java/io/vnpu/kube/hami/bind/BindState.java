package io.vnpu.kube.hami.bind;

/**
 * The bind of one pod as this plugin drives it; the terminal states are written to pod annotation
 * {@code hami.io/bind-phase}. Unlike upstream (bug 9.1) success is reached only when the pod's last
 * container with devices of this chip has been served.
 */
public enum BindState {
  /** Containers are still waiting for Allocate ({@code allocating}, written by the scheduler). */
  ALLOCATING("allocating"),
  /** Every container was served; the node lock is released ({@code success}). */
  SUCCESS("success"),
  /** An Allocate failed; the node lock is released ({@code failed}). */
  FAILED("failed");

  private final String annotationValue;

  BindState(String annotationValue) {
    this.annotationValue = annotationValue;
  }

  /** Value of {@code hami.io/bind-phase}. */
  public String annotationValue() {
    return annotationValue;
  }

  /**
   * A container was served.
   *
   * @param morePending whether other containers of the pod still have devices to allocate
   * @throws IllegalStateException when the bind already ended
   */
  public BindState containerServed(boolean morePending) {
    if (this != ALLOCATING) throw new IllegalStateException("bind already ended: " + this);
    return morePending ? ALLOCATING : SUCCESS;
  }

  /** An error happened while serving a container. */
  public BindState failed() {
    return FAILED;
  }

  /** True for {@link #SUCCESS} and {@link #FAILED}: the node lock must be released. */
  public boolean isTerminal() {
    return this != ALLOCATING;
  }
}
