package io.vnpu.kube.limiter;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node agent or DRA plugin does with the limiter at start, in one call: install it from the
 * image (when asked), then verify the host files, logging one line either way. A failure does not
 * stop the agent (whole-NPU and hard-split requests still work); the returned verifier refuses
 * every soft-slice request and reports the problem to readiness and metrics until the files are
 * fixed.
 */
public final class LimiterProvisioning {
  private static final Logger LOG = LoggerFactory.getLogger(LimiterProvisioning.class);

  private LimiterProvisioning() {}

  /**
   * @param files host directory and container path
   * @param source the library in the image to install from; empty: verify only (an operator put the
   *     files there)
   * @param elf the architecture check ({@link ElfSharedObject#thisMachine()})
   * @return the verifier to pass to the backend as its {@link LimiterGate}
   */
  public static LimiterVerifier provision(
      LimiterFiles files, Optional<Path> source, ElfSharedObject elf) {
    Objects.requireNonNull(files, "files");
    Objects.requireNonNull(source, "source");
    LimiterVerifier verifier = new LimiterVerifier(files, elf);
    if (source.isPresent()) {
      try {
        LimiterInstaller.Report r = new LimiterInstaller(files, elf).install(source.get());
        LOG.info(
            "limiter {} in {}: libvnpu.so {} (sha256 {}), ld.so.preload {} (\"{}\")",
            r.library() == LimiterInstaller.Outcome.UNCHANGED
                    && r.preload() == LimiterInstaller.Outcome.UNCHANGED
                ? "up to date"
                : "installed",
            files.hostDir(),
            r.library().name().toLowerCase(java.util.Locale.ROOT),
            r.librarySha256(),
            r.preload().name().toLowerCase(java.util.Locale.ROOT),
            files.containerLibraryPath());
      } catch (LimiterUnavailableException | IOException e) {
        LOG.warn(
            "limiter not installed into {}: {}; soft-slice requests are refused until it is",
            files.hostDir(),
            e.getMessage());
        verifier.usable();
        return verifier;
      }
    }
    if (!verifier.usable()) {
      LOG.warn(
          "limiter in {} is not usable: {}; soft-slice requests are refused until it is",
          files.hostDir(),
          verifier.lastProblem().orElse(""));
    }
    return verifier;
  }
}
