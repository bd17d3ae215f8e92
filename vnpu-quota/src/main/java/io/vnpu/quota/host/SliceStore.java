package io.vnpu.quota.host;

import io.vnpu.quota.files.HostFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The slices of a {@link StateDir}: {@code slices/<name>/slice.json} (a {@link SliceRecord}) and
 * {@code slices/<name>/region} (the quota region), plus whatever else the limiter keeps beside the
 * region in that directory.
 */
public final class SliceStore {

  /** File name of the record in a slice directory. */
  public static final String RECORD_FILE = "slice.json";

  /** File name of the quota region in a slice directory. */
  public static final String REGION_FILE = "region";

  /**
   * State, slices and slice directories: {@code rwxr-xr-x}, {@code vnpu top} of any user reads
   * them.
   */
  static final Set<PosixFilePermission> SHARED_DIR_MODE =
      PosixFilePermissions.fromString("rwxr-xr-x");

  /** The record: {@code rw-r--r--}. */
  static final Set<PosixFilePermission> RECORD_FILE_MODE =
      PosixFilePermissions.fromString("rw-r--r--");

  private final StateDir dir;
  // fields in record order (Jackson 3 sorts them by default); a record of a newer vnpu still reads
  private final JsonMapper mapper =
      JsonMapper.builder()
          .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

  public SliceStore(StateDir dir) {
    this.dir = dir;
  }

  /** The state directory. */
  public StateDir stateDir() {
    return dir;
  }

  /** Directory of slice {@code name}. */
  public Path sliceDir(String name) {
    return dir.slices().resolve(name);
  }

  /** Quota region file of slice {@code name}. */
  public Path regionFile(String name) {
    return sliceDir(name).resolve(REGION_FILE);
  }

  /**
   * Creates the slice directory and writes its record, world-readable so that {@code vnpu top} of
   * any user lists it.
   *
   * @throws FileAlreadyExistsException when a slice of that name exists
   */
  public Path create(SliceRecord record) throws IOException {
    // the default root is /tmp/vnpu-<uid> for a non-root user: a directory another user created
    // there first (or made writable) is refused, not written into (HostFiles rules)
    HostFiles.ensureTrustedDirectory(dir.slices(), SHARED_DIR_MODE);
    Path d = sliceDir(record.name());
    try {
      Files.createDirectory(d);
    } catch (FileAlreadyExistsException e) {
      throw new FileAlreadyExistsException(
          d.toString(),
          null,
          "a slice named '"
              + record.name()
              + "' exists (pick another --name, or remove it if stale)");
    }
    HostFiles.setMode(d, SHARED_DIR_MODE);
    HostFiles.writeAtomically(
        d.resolve(RECORD_FILE), mapper.writeValueAsBytes(record), RECORD_FILE_MODE);
    return d;
  }

  /**
   * Replaces the record of an existing slice (atomically: a reader sees the old or the new one).
   *
   * @throws java.nio.file.NoSuchFileException when the slice has no record (it was removed)
   */
  public void update(SliceRecord record) throws IOException {
    Path f = sliceDir(record.name()).resolve(RECORD_FILE);
    if (!Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw new NoSuchFileException(f.toString(), null, "no slice record (the slice was removed)");
    }
    HostFiles.writeAtomically(f, mapper.writeValueAsBytes(record), RECORD_FILE_MODE);
  }

  /**
   * Reads one slice's record.
   *
   * @return empty when the slice does not exist (or is being created: no record yet)
   * @throws IOException naming the file when the record is unreadable or malformed
   */
  public Optional<SliceRecord> read(String name) throws IOException {
    Path f = sliceDir(name).resolve(RECORD_FILE);
    try {
      return Optional.of(mapper.readValue(Files.readAllBytes(f), SliceRecord.class));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (JacksonException e) {
      throw new IOException(
          "slice record " + f + " is malformed: " + io.vnpu.quota.json.JsonProblem.describe(e), e);
    } catch (IOException | IllegalArgumentException e) {
      throw new IOException("slice record " + f + " is malformed: " + e.getMessage(), e);
    }
  }

  /** Names of every slice directory that holds a record, sorted. */
  public List<String> names() throws IOException {
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(dir.slices())) return out;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir.slices(), Files::isDirectory)) {
      for (Path p : ds)
        if (Files.exists(p.resolve(RECORD_FILE))) out.add(p.getFileName().toString());
    }
    out.sort(Comparator.naturalOrder());
    return out;
  }

  /** Removes the slice directory with everything in it; a missing slice is not an error. */
  public void remove(String name) throws IOException {
    // never follows a link planted in the slice directory
    HostFiles.deleteTree(sliceDir(name));
  }

  /**
   * Whether the slice's owner is gone: no process with that pid, or one started at another time
   * (the pid was reused).
   */
  public static boolean ownerGone(SliceRecord r) {
    Optional<ProcessHandle> h = ProcessHandle.of(r.ownerPid());
    if (h.isEmpty() || !h.get().isAlive()) return true;
    return h.get()
        .info()
        .startInstant()
        .map(start -> Math.abs(start.toEpochMilli() - r.ownerStartMillis()) > 1000)
        .orElse(false);
  }
}
