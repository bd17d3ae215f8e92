package io.vnpu.kube.dra.checkpoint;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The plugin's persistent state: the claims prepared on this node, by claim UID.
 *
 * @param nodeBootId {@code /proc/sys/kernel/random/boot_id} when written; a different value at
 *     start means the node rebooted (device state and a tmpfs CDI directory may be gone)
 * @param preparedClaims claim UID → entry
 * @param vnpuCheckPending true while the hard vNPU records are not known to match what DCMI lists:
 *     set when the checkpoint was rebuilt from CDI specs or the node rebooted, cleared once they
 *     were checked through DCMI (so a restart in between checks again); omitted from the file when
 *     false
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Checkpoint(
    String nodeBootId,
    Map<String, PreparedClaim> preparedClaims,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean vnpuCheckPending) {
  public Checkpoint {
    nodeBootId = nodeBootId == null ? "" : nodeBootId;
    // sorted: the file is byte-identical for the same content
    preparedClaims =
        preparedClaims == null
            ? Map.of()
            : Collections.unmodifiableMap(new TreeMap<>(preparedClaims));
  }

  /** A checkpoint whose vNPU records need no check. */
  public Checkpoint(String nodeBootId, Map<String, PreparedClaim> preparedClaims) {
    this(nodeBootId, preparedClaims, false);
  }

  /** No prepared claims. */
  public static Checkpoint empty(String bootId) {
    return new Checkpoint(bootId, Map.of());
  }

  /** A copy with {@code claim} added or replaced. */
  public Checkpoint with(PreparedClaim claim) {
    Map<String, PreparedClaim> m = new LinkedHashMap<>(preparedClaims);
    m.put(claim.uid(), claim);
    return new Checkpoint(nodeBootId, m, vnpuCheckPending);
  }

  /** A copy without the claim {@code uid}. */
  public Checkpoint without(String uid) {
    Map<String, PreparedClaim> m = new LinkedHashMap<>(preparedClaims);
    m.remove(uid);
    return new Checkpoint(nodeBootId, m, vnpuCheckPending);
  }

  /** A copy recording another boot ID. */
  public Checkpoint withBootId(String bootId) {
    return new Checkpoint(bootId, preparedClaims, vnpuCheckPending);
  }

  /** A copy with {@link #vnpuCheckPending} set to {@code pending}. */
  public Checkpoint withVnpuCheckPending(boolean pending) {
    return new Checkpoint(nodeBootId, preparedClaims, pending);
  }
}
