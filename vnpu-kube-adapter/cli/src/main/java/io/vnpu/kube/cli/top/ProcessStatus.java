package io.vnpu.kube.cli.top;

import java.util.Objects;

/**
 * One process holding a slot in a slice's quota region.
 *
 * @param pid PID as recorded in the region slot (the owner's PID namespace)
 * @param memoryUsedBytes device memory charged to it, bytes
 * @param command its command line when readable from /proc, else empty
 */
public record ProcessStatus(int pid, long memoryUsedBytes, String command) {
  public ProcessStatus {
    Objects.requireNonNull(command, "command");
  }
}
