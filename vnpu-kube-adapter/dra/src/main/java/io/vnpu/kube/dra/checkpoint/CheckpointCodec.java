package io.vnpu.kube.dra.checkpoint;

import io.vnpu.kube.json.JsonMappers;
import io.vnpu.quota.json.JsonProblem;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The checkpoint file format:
 *
 * <pre>
 * {"version":"v1","checksum":"sha256:&lt;hex&gt;","checkpoint":{ ...Checkpoint as JSON... }}
 * </pre>
 *
 * <p>The checksum covers the exact bytes of the {@code checkpoint} value as stored, not a
 * re-serialization of the fields this build knows: a newer build may add fields, an older build
 * then still verifies the file and ignores what it does not know (NVIDIA's DRA driver hit checksum
 * mismatches by hashing its own re-serialization). Unknown top-level fields are ignored too.
 */
public final class CheckpointCodec {
  /** Format version written and read. */
  public static final String VERSION = "v1";

  private static final String SHA256 = "sha256:";

  private final JsonMapper json =
      JsonMappers.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  /** Serializes a checkpoint to the stored bytes. */
  public byte[] encode(Checkpoint checkpoint) {
    try {
      byte[] payload = json.writeValueAsBytes(checkpoint);
      ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + 128);
      out.writeBytes(
          ("{\"version\":\""
                  + VERSION
                  + "\",\"checksum\":\""
                  + SHA256
                  + sha256(payload)
                  + "\",\"checkpoint\":")
              .getBytes(StandardCharsets.UTF_8));
      out.writeBytes(payload);
      out.writeBytes("}\n".getBytes(StandardCharsets.UTF_8));
      return out.toByteArray();
    } catch (JacksonException e) {
      throw new IllegalStateException("checkpoint is not serializable", e);
    }
  }

  /**
   * Parses and verifies stored bytes.
   *
   * @param file only for error messages
   * @throws CheckpointCorruptException naming the file and what is wrong
   */
  public Checkpoint decode(byte[] bytes, Path file) throws CheckpointCorruptException {
    String version = null;
    String checksum = null;
    int start = -1;
    int end = -1;
    try (JsonParser p = json.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new CheckpointCorruptException(file, "not a JSON object", null);
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.PROPERTY_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "version" -> version = p.getValueAsString();
          case "checksum" -> checksum = p.getValueAsString();
          case "checkpoint" -> {
            if (value != JsonToken.START_OBJECT) {
              throw new CheckpointCorruptException(file, "checkpoint: not a JSON object", null);
            }
            start = (int) p.currentTokenLocation().getByteOffset();
            p.skipChildren();
            end = (int) p.currentTokenLocation().getByteOffset() + 1;
          }
          default -> p.skipChildren();
        }
      }
      if (t != JsonToken.END_OBJECT) {
        throw new CheckpointCorruptException(file, "truncated JSON", null);
      }
    } catch (CheckpointCorruptException e) {
      throw e;
    } catch (StreamReadException e) {
      throw new CheckpointCorruptException(
          file, "not valid JSON (truncated or damaged): " + e.getOriginalMessage(), e);
    } catch (JacksonException e) {
      throw new CheckpointCorruptException(file, "unreadable: " + JsonProblem.describe(e), e);
    }
    if (!VERSION.equals(version)) {
      throw new CheckpointCorruptException(
          file, "version = " + version + ": expected " + VERSION, null);
    }
    if (start < 0) {
      throw new CheckpointCorruptException(file, "checkpoint: missing", null);
    }
    byte[] payload = Arrays.copyOfRange(bytes, start, end);
    String actual = SHA256 + sha256(payload);
    if (!actual.equals(checksum)) {
      throw new CheckpointCorruptException(
          file,
          "checksum = " + checksum + ": does not match the stored checkpoint (" + actual + ")",
          null);
    }
    try {
      Checkpoint c = json.readValue(payload, Checkpoint.class);
      for (var e : c.preparedClaims().entrySet()) {
        if (!e.getKey().equals(e.getValue().uid())) {
          throw new CheckpointCorruptException(
              file,
              "preparedClaims."
                  + e.getKey()
                  + ".uid = "
                  + e.getValue().uid()
                  + ": differs from its key",
              null);
        }
      }
      return c;
    } catch (CheckpointCorruptException e) {
      throw e;
    } catch (JacksonException e) {
      throw new CheckpointCorruptException(file, "checkpoint." + JsonProblem.describe(e), e);
    } catch (RuntimeException e) {
      throw new CheckpointCorruptException(file, "checkpoint: " + e.getMessage(), e);
    }
  }

  private static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
  }
}
