package io.vnpu.kube.dra.cdi;

import io.vnpu.kube.json.JsonMappers;
import io.vnpu.quota.files.HostFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes and removes the per-claim CDI spec files of one {@link CdiKind} in the CDI directory
 * ({@code --cdi-root}). Writes are atomic ({@link HostFiles#writeAtomically}): a runtime reading
 * the directory sees the old file or the new one, never a partial one, and the temporary file's
 * name (not ending in {@code .json}) is not one the runtime reads. Deletes never follow a link. The
 * directory must be trusted (not writable by others), as {@link HostFiles} checks. The version
 * field is set to {@link CdiVersion#minimumFor}.
 */
public final class CdiSpecWriter {

  private final Path cdiRoot;
  private final CdiKind kind;
  private final JsonMapper json = JsonMappers.indented();

  /**
   * @param cdiRoot directory the container runtime reads CDI specs from, created when missing
   */
  public CdiSpecWriter(Path cdiRoot, CdiKind kind) {
    this.cdiRoot = Objects.requireNonNull(cdiRoot, "cdiRoot").toAbsolutePath();
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  public CdiKind kind() {
    return kind;
  }

  /** Path of the spec file of a claim. */
  public Path specPath(String claimUid) {
    return cdiRoot.resolve(kind.claimSpecFileName(claimUid));
  }

  /** The bytes written for {@code spec}: JSON with the minimum CDI version. */
  public byte[] render(CdiSpec spec) {
    try {
      return json.writeValueAsBytes(spec.withVersion(CdiVersion.minimumFor(spec)));
    } catch (JacksonException e) {
      throw new IllegalStateException(
          "CDI spec of kind " + spec.kind() + " is not serializable", e);
    }
  }

  /**
   * Writes (or replaces) the spec file of a claim.
   *
   * @return the file written
   * @throws IOException naming the file when the directory or the file cannot be written
   */
  public Path write(String claimUid, CdiSpec spec) throws IOException {
    if (!spec.kind().equals(kind.kind())) {
      throw new IllegalArgumentException("spec kind " + spec.kind() + " is not " + kind.kind());
    }
    Path file = specPath(claimUid);
    try {
      HostFiles.ensureTrustedDirectory(cdiRoot, PosixFilePermissions.fromString("rwxr-xr-x"));
      HostFiles.writeAtomically(file, render(spec), PosixFilePermissions.fromString("rw-r--r--"));
    } catch (IOException e) {
      throw new IOException(file + ": writing the CDI spec failed: " + e.getMessage(), e);
    }
    return file;
  }

  /** Whether the spec file of a claim exists. */
  public boolean exists(String claimUid) {
    return Files.isRegularFile(specPath(claimUid));
  }

  /**
   * Removes the spec file of a claim; a missing file is fine.
   *
   * @throws IOException naming the file when it exists and cannot be removed
   */
  public void delete(String claimUid) throws IOException {
    Path file = specPath(claimUid);
    try {
      HostFiles.deleteTree(file);
    } catch (IOException e) {
      throw new IOException(file + ": removing the CDI spec failed: " + e.getMessage(), e);
    }
  }

  /**
   * The claim UIDs that have a spec file of this kind in the directory (for rebuilding state when
   * the checkpoint is unreadable).
   *
   * @throws IOException when the directory cannot be listed (a missing directory gives none)
   */
  public List<String> claimUids() throws IOException {
    List<String> uids = new ArrayList<>();
    if (!Files.isDirectory(cdiRoot)) {
      return uids;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(cdiRoot)) {
      for (Path p : ds) {
        String uid = kind.claimUidOf(p.getFileName().toString());
        if (uid != null) {
          uids.add(uid);
        }
      }
    }
    uids.sort(null);
    return uids;
  }

  /**
   * Reads back a spec file written by this class.
   *
   * @throws IOException naming the file when it is missing or not a CDI spec
   */
  public CdiSpec read(String claimUid) throws IOException {
    Path file = specPath(claimUid);
    try {
      return json.readValue(file.toFile(), CdiSpec.class);
    } catch (JacksonException e) {
      throw new IOException(
          file + ": reading the CDI spec failed: " + io.vnpu.quota.json.JsonProblem.describe(e), e);
    }
  }
}
