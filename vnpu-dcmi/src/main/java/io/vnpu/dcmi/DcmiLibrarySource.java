package io.vnpu.dcmi;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where {@code libdcmi.so} was found and how.
 *
 * @param path absolute path of the library
 * @param origin which rule chose it, e.g. {@code "system property vnpu.dcmi.library"}, {@code
 *     "driver location"}, {@code "bundled simulator"}
 * @param tried every path examined, in order, including the chosen one
 */
public record DcmiLibrarySource(Path path, String origin, List<Path> tried) {
  public DcmiLibrarySource {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(origin, "origin");
    tried = List.copyOf(tried);
  }
}
