package io.vnpu.kube.observe;

import java.util.Optional;

/**
 * One condition of readiness or liveness. Returns the problem in one line (naming the file, socket
 * or NPU), empty when fine. Called on every probe, so it must be cheap and must not block.
 */
@FunctionalInterface
public interface HealthCheck {
  Optional<String> problem();
}
