package io.vnpu.api.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Reads a configuration file's text, turning I/O failures into a {@link ConfigException}. */
final class ConfigFiles {
  private ConfigFiles() {}

  static String read(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw failure(file, 0, "no such file", e);
    } catch (IOException e) {
      throw failure(
          file, 0, "cannot read: " + (e.getMessage() == null ? "I/O error" : e.getMessage()), e);
    }
    return decode(bytes, file);
  }

  /** Strict UTF-8: the first invalid byte is reported with its line, never replaced silently. */
  static String decode(byte[] bytes, Path file) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult r = decoder.decode(in, out, true);
    if (!r.isError()) r = decoder.flush(out);
    if (r.isError()) {
      int at = in.position();
      int line = 1;
      for (int i = 0; i < at; i++) if (bytes[i] == '\n') line++;
      throw failure(
          file,
          line,
          String.format("not UTF-8: invalid byte 0x%02x at byte offset %d", bytes[at] & 0xff, at),
          null);
    }
    return out.flip().toString();
  }

  private static ConfigException failure(Path file, int line, String message, Exception cause) {
    return new ConfigException(
        List.of(new ConfigProblem(file.toString(), line, "", Optional.empty(), message)), cause);
  }
}
