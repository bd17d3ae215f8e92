package io.vnpu.api.health;

/**
 * Port for fault notices (Kubernetes Events of type Warning with reason {@code Occur}, {@code
 * Recovery} or {@code Notice}, reporting component {@code device-plugin}).
 */
@FunctionalInterface
public interface FaultNotifier {
  FaultNotifier NONE = (logicId, reason, message) -> {};

  /**
   * Publishes one notice; must not block for long and must not throw for a failed publication.
   *
   * @param reason {@code Occur}, {@code Recovery} or {@code Notice}
   */
  void notify(int logicId, String reason, String message);
}
