package io.vnpu.kube.dra.vnpu;

import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The vNPU template table {@code --enable-hard-vnpu} uses when no {@code --device-config} is given
 * (openFuyao's driver has no such flag, so its manifests never pass one): HAMi's chip entries, the
 * same file as the Helm chart's {@code files/device-config.yaml} (a test keeps the two equal), read
 * from the classpath resource {@value #RESOURCE}.
 */
public final class BundledTemplates {
  /** Classpath location of the table. */
  public static final String RESOURCE = "/io/vnpu/kube/dra/vnpu/device-config.yaml";

  private BundledTemplates() {}

  /**
   * The bundled table.
   *
   * @throws UncheckedIOException when the resource is missing from the jar (a broken build)
   */
  public static DeviceConfig load() {
    try (InputStream in = BundledTemplates.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IOException("classpath resource " + RESOURCE + " is missing");
      }
      return new DeviceConfigLoader(w -> {})
          .parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "(bundled) " + RESOURCE)
          .value();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
