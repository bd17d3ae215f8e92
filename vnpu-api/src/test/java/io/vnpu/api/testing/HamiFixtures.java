package io.vnpu.api.testing;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/**
 * The HAMi Ascend device plugin ConfigMaps kept as test resources under
 * {@code hami-ascend-device-plugin/} (what each mirrors: the README beside them). Part of the
 * vnpu-api test fixtures ({@code vnpu-api} {@code test-jar}), which the other modules' tests use
 * instead of copies.
 */
public final class HamiFixtures {
  private HamiFixtures() {}

  /** The fixture {@code name} as a file path, so loaders report it the way they report a user's file. */
  public static Path file(String name) {
    URL url = HamiFixtures.class.getResource("/hami-ascend-device-plugin/" + name);
    if (url == null) throw new IllegalStateException("no test resource hami-ascend-device-plugin/" + name);
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(url.toString(), e);
    }
  }
}
