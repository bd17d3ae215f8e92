package io.vnpu.kube.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/**
 * The build's version, from {@code version.properties} beside this class, which Maven fills in from
 * the project version at build time (so it is right in the jar and when run from classes alike).
 */
final class VersionProvider implements CommandLine.IVersionProvider {
  static final String RESOURCE = "version.properties";

  @Override
  public String[] getVersion() {
    return new String[] {"vnpu " + version()};
  }

  static String version() {
    try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
      if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the vnpu build");
      Properties p = new Properties();
      p.load(in);
      String v = p.getProperty("version", "");
      if (v.isBlank() || v.contains("${")) {
        throw new IllegalStateException(
            RESOURCE + ": version = " + v + ": not filled in by the build");
      }
      return v;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
