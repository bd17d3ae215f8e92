package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DcmiLibraryLocatorTest {
  @TempDir Path dir;

  private static DcmiLibraryLocator locator(
      Map<String, String> props, Map<String, String> env, List<Path> standard) {
    return new DcmiLibraryLocator(props::get, env::get, standard);
  }

  @Test
  void badExplicitPathListsThePathTried() {
    Path bad = dir.resolve("nope/libdcmi.so");
    assertThatThrownBy(() -> locator(Map.of(), Map.of(), List.of()).locate(bad))
        .isInstanceOfSatisfying(
            DcmiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(-99999);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "dlopen failed: -99999 LIBRARY_NOT_LOADED "
                          + "(libdcmi.so not loadable): libdcmi.so not found (the explicitly configured "
                          + "library does not exist); tried: "
                          + bad);
            });
  }

  @Test
  void noDriverListsEveryPathTried() {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    Path std = dir.resolve("driver/lib64/driver/libdcmi.so");
    DcmiLibraryLocator l = locator(Map.of(), Map.of("LD_LIBRARY_PATH", a + ":" + b), List.of(std));
    assertThatThrownBy(() -> l.locate(null))
        .isInstanceOf(DcmiException.class)
        .hasMessageEndingWith(
            "tried: " + a.resolve("libdcmi.so") + " " + b.resolve("libdcmi.so") + " " + std);
    assertThat(l.findInstalled()).isEmpty();
  }

  @Test
  void explicitSettingsWinInOrderApiPropertyEnvironment() throws Exception {
    Path api = Files.createFile(dir.resolve("api.so"));
    Path prop = Files.createFile(dir.resolve("prop.so"));
    Path env = Files.createFile(dir.resolve("env.so"));
    Map<String, String> props = Map.of(DcmiLibraryLocator.PROPERTY, prop.toString());
    Map<String, String> envs = Map.of(DcmiLibraryLocator.ENV, env.toString());
    assertThat(locator(props, envs, List.of()).locate(api).path()).isEqualTo(api);
    assertThat(locator(props, envs, List.of()).locate(null))
        .extracting(DcmiLibrarySource::path, DcmiLibrarySource::origin)
        .containsExactly(prop, "system property vnpu.dcmi.library");
    assertThat(locator(Map.of(), envs, List.of()).locate(null).origin())
        .isEqualTo("environment VNPU_DCMI_LIBRARY");
    assertThat(locator(Map.of(), envs, List.of()).explicitlyConfigured()).isTrue();
  }

  @Test
  void standardDriverLocationFoundAfterLdLibraryPath() throws Exception {
    Path std = dir.resolve("driver/lib64/driver/libdcmi.so");
    Files.createDirectories(std.getParent());
    Files.createFile(std);
    DcmiLibrarySource src =
        locator(
                Map.of(),
                Map.of("LD_LIBRARY_PATH", dir.resolve("x").toString()),
                List.of(dir.resolve("none.so"), std))
            .locate(null);
    assertThat(src.path()).isEqualTo(std);
    assertThat(src.origin()).isEqualTo("driver location");
    assertThat(src.tried())
        .containsExactly(dir.resolve("x/libdcmi.so"), dir.resolve("none.so"), std);
  }

  @Test
  void fileThatIsNotALibraryFailsToLoadWithItsPath() throws Exception {
    Path junk = Files.writeString(dir.resolve("libdcmi.so"), "not an ELF file");
    DcmiLibrarySource src = locator(Map.of(), Map.of(), List.of()).locate(junk);
    assertThatThrownBy(() -> Dcmi.load(src))
        .isInstanceOfSatisfying(
            DcmiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(-99999);
              assertThat(e.getMessage()).contains(junk.toString());
            });
  }

  @Test
  void standardLocationsAreTheDriversOnes() {
    assertThat(DcmiLibraryLocator.DRIVER_LOCATIONS)
        .first()
        .isEqualTo(Path.of("/usr/local/Ascend/driver/lib64/driver/libdcmi.so"));
  }
}
