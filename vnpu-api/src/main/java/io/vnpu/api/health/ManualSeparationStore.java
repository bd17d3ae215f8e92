package io.vnpu.api.health;

import java.util.Set;

/**
 * Port to where the {@code ManuallySeparateNPU} chips are persisted: MindCluster keeps them in the
 * device-info ConfigMap key {@code ManuallySeparateNPU}; a host keeps them in a file. The store is
 * the truth: a chip an operator removes from it is released on the next poll.
 */
public interface ManualSeparationStore {

  /**
   * Logic IDs persisted as manually separated.
   *
   * @throws RuntimeException when the store cannot be read (the caller keeps its last view)
   */
  Set<Integer> load();

  /** Persists the set; a failure is thrown and retried on the next poll. */
  void save(Set<Integer> logicIds);

  /** A store that keeps the set in memory only (lost on restart). */
  static ManualSeparationStore inMemory() {
    return new ManualSeparationStore() {
      private volatile Set<Integer> set = Set.of();

      @Override
      public Set<Integer> load() {
        return set;
      }

      @Override
      public void save(Set<Integer> logicIds) {
        set = Set.copyOf(logicIds);
      }
    };
  }
}
