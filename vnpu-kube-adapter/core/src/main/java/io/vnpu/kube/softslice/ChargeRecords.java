package io.vnpu.kube.softslice;

import io.vnpu.api.model.Priority;
import io.vnpu.kube.json.JsonMappers;
import io.vnpu.kube.observe.ChargedRegion;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/**
 * The agent's records of the soft slices it created ({@link ChargedRegion}), one JSON file per
 * slice directory in {@code <regionRoot>/}{@value #DIR}{@code /<slice directory name>.json}. The
 * region root is the agent's alone (0700) and never mounted whole; only each slice's own directory
 * is, so no container reaches these files (the directory and files are 0700/0600 on top). A slice
 * directory name never starts with {@code .} ({@link SoftSliceLayout#dirOf}), so {@value #DIR}
 * cannot be one. Format (version 1): {@code {"version":1,"key":<epoch>,"policyFlags":<u32>,
 * "registryDir":"...","devices":[{"memLimitBytes":..,"computeWeight":..,"computeCapPct":..,
 * "priority":"NORMAL|HIGH","physId":..,"uuid":".."}]}}; {@code "key":0} (no region has epoch 0) is
 * a region the limiter made itself ({@link ChargedRegion#limiterMade}). Thread-safe (each call is
 * one file operation).
 */
public final class ChargeRecords {
  /** Name of the records' directory under the region root. */
  public static final String DIR = ".charged";

  private static final String SUFFIX = ".json";

  /** A record is a few hundred bytes; anything far larger is not one of ours. */
  private static final int MAX_BYTES = 64 * 1024;

  private static final int VERSION = 1;

  /** The stored key of a region the limiter made: no region the agent makes has epoch 0. */
  private static final long LIMITER_MADE_KEY = 0;

  record Stored(
      int version, long key, int policyFlags, String registryDir, List<StoredDevice> devices) {}

  record StoredDevice(
      long memLimitBytes,
      int computeWeight,
      int computeCapPct,
      String priority,
      int physId,
      String uuid) {}

  private final Path dir;
  private final JsonMapper json = JsonMappers.compact();

  /**
   * @param regionRoot the host directory of the slice directories ({@link
   *     SoftSliceLayout#regionRoot})
   */
  public ChargeRecords(Path regionRoot) {
    this.dir = Objects.requireNonNull(regionRoot, "regionRoot").resolve(DIR);
  }

  /** The record file of slice directory {@code sliceDirName}. */
  public Path file(String sliceDirName) {
    if (sliceDirName.isEmpty()
        || sliceDirName.startsWith(".")
        || sliceDirName.indexOf('/') >= 0
        || sliceDirName.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("\"" + sliceDirName + "\" is not a slice directory name");
    }
    return dir.resolve(sliceDirName + SUFFIX);
  }

  /**
   * Writes (or replaces) the record of slice directory {@code sliceDirName} atomically.
   *
   * @throws IOException naming the file when the directory is not trusted or the file cannot be
   *     written
   */
  public void write(String sliceDirName, ChargedRegion record) throws IOException {
    Path f = file(sliceDirName);
    HostFiles.ensureTrustedDirectory(dir, HostFiles.OWNER_ONLY_DIR);
    RegionConfig c = record.config();
    List<StoredDevice> devices = new ArrayList<>();
    for (DeviceQuota q : c.devices()) {
      devices.add(
          new StoredDevice(
              q.memLimitBytes(),
              q.computeWeight(),
              q.computeCapPct(),
              q.priority().name(),
              q.physId(),
              q.uuid()));
    }
    byte[] bytes =
        json.writeValueAsBytes(
            new Stored(
                VERSION,
                record.key().orElse(LIMITER_MADE_KEY),
                PolicyFlag.encode(c.policy()),
                c.registryDir(),
                devices));
    // no fsync: the record is worth no more than the region it describes, which is never synced
    // either (one soft prepare had three fsyncs on the node's disk with it, one without)
    HostFiles.replaceAtomically(f, bytes, HostFiles.OWNER_ONLY_FILE);
  }

  /**
   * The record of slice directory {@code sliceDirName}.
   *
   * @return empty when there is none
   * @throws IOException naming the file and field when it cannot be read or is not a record this
   *     class wrote
   */
  public Optional<ChargedRegion> read(String sliceDirName) throws IOException {
    Path f = file(sliceDirName);
    byte[] bytes;
    try (InputStream in =
        Files.newInputStream(f, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    if (bytes.length > MAX_BYTES) {
      throw new IOException(f + ": larger than " + MAX_BYTES + " bytes: not a charge record");
    }
    Stored s;
    try {
      s = json.readValue(bytes, Stored.class);
    } catch (RuntimeException e) {
      // Jackson 3's exceptions are unchecked: not JSON, or not this shape
      throw new IOException(f + ": " + e.getMessage(), e);
    }
    if (s == null || s.version() != VERSION) {
      throw new IOException(
          f + ": version = " + (s == null ? "null" : s.version()) + ": expected " + VERSION);
    }
    if (s.devices() == null || s.registryDir() == null) {
      throw new IOException(
          f + ": " + (s.devices() == null ? "devices" : "registryDir") + " missing");
    }
    try {
      List<DeviceQuota> devices = new ArrayList<>();
      for (int i = 0; i < s.devices().size(); i++) {
        StoredDevice d = s.devices().get(i);
        Priority p;
        try {
          p = Priority.valueOf(String.valueOf(d.priority()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "devices[" + i + "].priority = " + d.priority() + ": not NORMAL or HIGH", e);
        }
        devices.add(
            new DeviceQuota(
                d.memLimitBytes(),
                d.computeWeight(),
                d.computeCapPct(),
                p,
                d.physId(),
                d.uuid() == null ? "" : d.uuid()));
      }
      RegionConfig config =
          new RegionConfig(devices, PolicyFlag.decode(s.policyFlags()), s.registryDir());
      return Optional.of(
          s.key() == LIMITER_MADE_KEY
              ? ChargedRegion.limiterMade(config)
              : ChargedRegion.agentMade(s.key(), config));
    } catch (IllegalArgumentException e) {
      throw new IOException(f + ": " + e.getMessage(), e);
    }
  }

  /**
   * Removes the record of slice directory {@code sliceDirName}; a missing one is fine.
   *
   * @throws IOException naming the file when it cannot be removed
   */
  public void delete(String sliceDirName) throws IOException {
    Files.deleteIfExists(file(sliceDirName));
  }

  /** Removes the record quietly, for rollback paths; whether none is left. */
  boolean deleteQuietly(String sliceDirName) {
    try {
      delete(sliceDirName);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** The slice directory names that have a record now; empty when there are none. */
  public List<String> names() throws IOException {
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return out;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String n = p.getFileName().toString();
        if (n.endsWith(SUFFIX) && !n.startsWith(".")) {
          out.add(n.substring(0, n.length() - SUFFIX.length()));
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return out;
  }
}
