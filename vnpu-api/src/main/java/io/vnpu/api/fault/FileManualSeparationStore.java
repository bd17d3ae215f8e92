package io.vnpu.api.fault;

import io.vnpu.api.config.ConfigException;
import io.vnpu.api.config.ConfigProblem;
import io.vnpu.api.health.ManualSeparationStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@link ManualSeparationStore} in a text file (hosts and the HAMi agent, which have no device-info
 * ConfigMap): one logic ID per line, {@code #} starts a comment. An operator releases a chip by
 * deleting its line. Written atomically (temporary file, then rename). An absent file is an empty
 * set.
 */
public final class FileManualSeparationStore implements ManualSeparationStore {
  private final Path file;

  public FileManualSeparationStore(Path file) {
    this.file = Objects.requireNonNull(file, "file");
  }

  /**
   * @throws ConfigException naming {@code file:line} for a line that is not a logic ID
   * @throws UncheckedIOException when the file cannot be read
   */
  @Override
  public Set<Integer> load() {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Set.of();
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": cannot read: " + e.getMessage(), e);
    }
    Set<Integer> out = new TreeSet<>();
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      int hash = l.indexOf('#');
      String v = (hash >= 0 ? l.substring(0, hash) : l).strip();
      if (v.isEmpty()) continue;
      try {
        int logic = Integer.parseInt(v);
        if (logic < 0) throw new NumberFormatException();
        out.add(logic);
      } catch (NumberFormatException e) {
        throw new ConfigException(
            List.of(
                new ConfigProblem(
                    file.toString(),
                    i + 1,
                    "ManuallySeparateNPU",
                    Optional.of(v),
                    "not an NPU logic ID (one non-negative integer per line)")));
      }
    }
    return out;
  }

  @Override
  public void save(Set<Integer> logicIds) {
    String text =
        "# NPUs in ManuallySeparateNPU (logic IDs); delete a line to release the NPU\n"
            + new TreeSet<>(logicIds)
                .stream().map(String::valueOf).collect(Collectors.joining("\n"))
            + (logicIds.isEmpty() ? "" : "\n");
    try {
      Path dir = file.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
      try {
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        try {
          Files.move(
              tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": cannot write: " + e.getMessage(), e);
    }
  }
}
