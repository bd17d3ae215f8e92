package io.vnpu.kube.observe;

import java.time.Duration;

/**
 * Told of every request a plugin serves (Allocate for the device plugin, Prepare and Unprepare for
 * the DRA plugin), so a metrics library can count and time them without the plugin depending on it:
 * the agent's Prometheus {@code RequestMetrics} implements it (the idea of OkHttp's {@code
 * EventListener}). Implementations are called on the request's thread and must be quick and
 * thread-safe; they must not throw.
 */
public interface RequestObserver {
  /** Why a request failed, as few stable values as dashboards need. */
  enum ErrorKind {
    /** The limiter files are missing or broken (soft slice refused). */
    LIMITER("limiter"),
    /** The driver refused (vNPU creation, device query). */
    DEVICE("device"),
    /**
     * The request itself could not be served (no pod, bad annotation, unknown device, API error).
     */
    REQUEST("request");

    private final String label;

    ErrorKind(String label) {
      this.label = label;
    }

    /** The stable label value ({@code limiter}, {@code device}, {@code request}). */
    public String label() {
      return label;
    }
  }

  /**
   * One request of {@code operation} (the RPC, e.g. {@code prepare}) that succeeded after {@code
   * took}.
   */
  void succeeded(String operation, Duration took);

  /**
   * One request of {@code operation} that failed after {@code took}, for the reason {@code kind}.
   */
  void failed(String operation, Duration took, ErrorKind kind);
}
