package io.vnpu.kube.resource;

import io.vnpu.quota.files.HostFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the per-container directories ({@code <podUID>_<container or device ID>} under one root:
 * HAMi's {@code <HOOK_PATH>/containers}, MindCluster's {@code <softShareDevConfigDir>/vnpu-containers};
 * about 139 KiB each with the quota region) of pods that are gone or finished, so short jobs do
 * not leave a gigabyte a day behind, and then the compute-registry entries of those containers
 * ({@link ComputeRegistrations#reconcile()}). Removal never follows links ({@link HostFiles#deleteTree}).
 *
 * <p>The caller lists the directories ({@link #entries()}) before it lists the pods: a directory is
 * created by Allocate only after its pod was bound to the node, so a pod missing from a later
 * list is really gone, never a pod whose Allocate raced the sweep.
 */
public final class ContainerDirCleaner {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerDirCleaner.class);

  private final Path root;
  private final Optional<ComputeRegistrations> registrations;

  /** @param root the directory holding every container's directory ({@code <HOOK_PATH>/containers}) */
  public ContainerDirCleaner(Path root) {
    this(root, Optional.empty());
  }

  /**
   * @param root          the directory holding every container's directory
   * @param registrations the compute registrations of the containers under {@code root}, reconciled
   *                      after every removal round
   */
  public ContainerDirCleaner(Path root, Optional<ComputeRegistrations> registrations) {
    this.root = Objects.requireNonNull(root, "root");
    this.registrations = Objects.requireNonNull(registrations, "registrations");
  }

  /** Names of the entries under the root now; empty when the root does not exist yet. */
  public List<String> entries() throws IOException {
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) return List.of();
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
      for (Path p : ds) names.add(p.getFileName().toString());
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return names;
  }

  /**
   * Removes each of {@code entries} whose pod is not in {@code phaseByPodUid} (deleted) or whose
   * phase is {@code Succeeded} or {@code Failed}. Entries that are not {@code <uid>_<name>} are
   * left alone. A failure to remove one entry is logged and the others are still removed. Then the
   * compute registrations of containers whose directory is gone are removed (every round, so an
   * entry left by an agent that stopped half-way goes too).
   *
   * @param phaseByPodUid {@code status.phase} of every pod on this node, listed after the entries
   * @return the directories removed
   */
  public List<Path> removeFinished(List<String> entries, Map<String, String> phaseByPodUid) {
    List<Path> removed = new ArrayList<>();
    for (String name : entries) {
      Optional<String> uid = podUid(name);
      if (uid.isEmpty()) continue;
      String phase = phaseByPodUid.get(uid.get());
      if (phase != null && !phase.equals("Succeeded") && !phase.equals("Failed")) continue;
      Path dir = root.resolve(name);
      // the region first: the container could write its directory (a tree too deep to walk, say),
      // and a region left behind would keep its compute-registry entry alive after the pod
      registrations.ifPresent(r -> {
        try {
          HostFiles.deleteTree(dir.resolve(r.regionFileName()));
        } catch (IOException e) {
          LOG.warn("remove {} failed: {}", dir.resolve(r.regionFileName()), e.getMessage());
        }
      });
      try {
        if (HostFiles.deleteTree(dir)) {
          removed.add(dir);
          LOG.info("removed {} (pod {} {})", dir, uid.get(), phase == null ? "deleted" : phase);
        }
      } catch (IOException e) {
        LOG.warn("remove {} failed: {}", dir, e.getMessage());
      }
    }
    if (registrations.isPresent()) {
      try {
        registrations.get().reconcile();
      } catch (IOException | RuntimeException e) {
        LOG.warn("compute registry clean-up in {} failed: {}; the next round retries",
            registrations.get().registryDir(), e.getMessage());
      }
    }
    return removed;
  }

  /** The pod UID of a directory name {@code <uid>_<container>} (a UID has no '_'; a name has none either). */
  static Optional<String> podUid(String name) {
    int sep = name.indexOf('_');
    if (sep <= 0 || sep == name.length() - 1) return Optional.empty();
    return Optional.of(name.substring(0, sep));
  }
}
