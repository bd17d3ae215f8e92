package io.vnpu.api.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The HAMi Ascend device plugin ConfigMaps kept as test resources under {@code
 * hami-ascend-device-plugin/} (what each mirrors: the README beside them). Part of the vnpu-api
 * test fixtures ({@code vnpu-api} {@code test-jar}), which the other modules' tests use instead of
 * copies.
 */
public final class HamiFixtures {
  private static final String DIR = "hami-ascend-device-plugin";

  private HamiFixtures() {}

  /**
   * The fixture {@code name} as a file path, so loaders report it the way they report a user's
   * file. Within one reactor build the fixtures are a directory; in {@code mvn verify} the other
   * modules see the packaged test-jar, so a resource inside a jar is copied out under its own name.
   *
   * @throws IllegalStateException when there is no such fixture
   * @throws UncheckedIOException when copying it out of the jar fails
   */
  public static Path file(String name) {
    URL url = HamiFixtures.class.getResource("/" + DIR + "/" + name);
    if (url == null) throw new IllegalStateException("no test resource " + DIR + "/" + name);
    if ("file".equals(url.getProtocol())) {
      try {
        return Path.of(url.toURI());
      } catch (URISyntaxException e) {
        throw new IllegalStateException(url.toString(), e);
      }
    }
    try (InputStream in = url.openStream()) {
      Path dir = Files.createTempDirectory("vnpu-fixtures").resolve(DIR);
      Files.createDirectories(dir);
      Path out = dir.resolve(name);
      Files.createDirectories(out.getParent());
      Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
      out.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      dir.getParent().toFile().deleteOnExit();
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("copying " + url + " out of the test jar", e);
    }
  }
}
