package io.vnpu.kube.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.kube.limiter.LimiterInstaller.Outcome;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Installing the limiter into a host directory and verifying it, with the real native build. */
class LimiterInstallerTest {
  private static final ElfSharedObject ELF = ElfSharedObject.thisMachine();

  @TempDir Path tmp;

  private LimiterFiles files() {
    return LimiterFiles.hami(tmp.resolve("host/hami-vnpu-core"));
  }

  @Test
  void freshInstallWritesLibraryAndPreloadWithModes() throws Exception {
    LimiterFiles f = files();
    LimiterInstaller.Report r =
        new LimiterInstaller(f, ELF).install(LimiterFixture.nativeLibrary());

    assertThat(r.library()).isEqualTo(Outcome.INSTALLED);
    assertThat(r.preload()).isEqualTo(Outcome.INSTALLED);
    assertThat(f.library()).hasSameBinaryContentAs(LimiterFixture.nativeLibrary());
    assertThat(Files.readString(f.preload())).isEqualTo("/hami-vnpu-core/libvnpu.so\n");
    assertThat(Files.getPosixFilePermissions(f.library()))
        .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(Files.getPosixFilePermissions(f.preload()))
        .isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(r.librarySha256()).hasSize(64);
    // no temporary file left behind
    try (var s = Files.list(f.hostDir())) {
      assertThat(s.map(p -> p.getFileName().toString()).sorted().toList())
          .containsExactly("ld.so.preload", "libvnpu.so");
    }
    new LimiterVerifier(f, ELF).verify();
  }

  @Test
  void sameVersionIsLeftAlone() throws Exception {
    LimiterFiles f = files();
    LimiterInstaller installer = new LimiterInstaller(f, ELF);
    installer.install(LimiterFixture.nativeLibrary());
    FileTime old = FileTime.from(Instant.parse("2020-01-01T00:00:00Z"));
    Files.setLastModifiedTime(f.library(), old);
    Files.setLastModifiedTime(f.preload(), old);
    Object inode = Files.getAttribute(f.library(), "unix:ino");

    LimiterInstaller.Report r = installer.install(LimiterFixture.nativeLibrary());

    assertThat(r.library()).isEqualTo(Outcome.UNCHANGED);
    assertThat(r.preload()).isEqualTo(Outcome.UNCHANGED);
    assertThat(Files.getLastModifiedTime(f.library())).isEqualTo(old);
    assertThat(Files.getLastModifiedTime(f.preload())).isEqualTo(old);
    assertThat(Files.getAttribute(f.library(), "unix:ino")).isEqualTo(inode);
  }

  @Test
  void differentVersionIsReplacedByRenameAndWrongPreloadRewritten() throws Exception {
    LimiterFiles f = files();
    Files.createDirectories(f.hostDir());
    byte[] other =
        sharedObject(ElfSharedObject.forArch(System.getProperty("os.arch")).machine(), 4096);
    Files.write(f.library(), other);
    Files.writeString(f.preload(), "/vnpu/libvnpu.so\n");
    Object oldInode = Files.getAttribute(f.library(), "unix:ino");

    LimiterInstaller.Report r =
        new LimiterInstaller(f, ELF).install(LimiterFixture.nativeLibrary());

    assertThat(r.library()).isEqualTo(Outcome.REPLACED);
    assertThat(r.preload()).isEqualTo(Outcome.REPLACED);
    assertThat(f.library()).hasSameBinaryContentAs(LimiterFixture.nativeLibrary());
    // a new inode: a container that mapped the old library keeps it intact
    assertThat(Files.getAttribute(f.library(), "unix:ino")).isNotEqualTo(oldInode);
    assertThat(Files.readString(f.preload())).isEqualTo("/hami-vnpu-core/libvnpu.so\n");
  }

  @Test
  void brokenSourceInstallsNothing() throws Exception {
    LimiterFiles f = files();
    Path source = tmp.resolve("libvnpu.so");
    Files.writeString(source, "not a library");
    assertThatThrownBy(() -> new LimiterInstaller(f, ELF).install(source))
        .isInstanceOf(LimiterUnavailableException.class)
        .hasMessage(source + ": is not an ELF file (13 header bytes read)");
    assertThat(f.hostDir()).doesNotExist();
    assertThatThrownBy(() -> new LimiterInstaller(f, ELF).install(tmp.resolve("nope.so")))
        .hasMessage(tmp.resolve("nope.so") + ": does not exist");
  }

  @Test
  void verifierNamesTheFileThatIsWrong() throws Exception {
    LimiterFiles f = LimiterFixture.installInto(tmp.resolve("dir"));
    LimiterVerifier v = new LimiterVerifier(f, ELF);
    assertThat(v.lastProblem()).contains("not verified yet");
    v.verify();
    assertThat(v.lastProblem()).isEmpty();

    Files.writeString(f.preload(), "/somewhere/else.so\n");
    assertThatThrownBy(v::verify)
        .hasMessage(
            f.preload()
                + ": content = \"/somewhere/else.so\": expected \"/hami-vnpu-core/libvnpu.so\"");
    Files.delete(f.preload());
    assertThatThrownBy(v::verify).hasMessage(f.preload() + ": does not exist");
    Files.writeString(f.preload(), "/hami-vnpu-core/libvnpu.so\n");

    Files.write(f.library(), new byte[] {0x7f, 'E', 'L', 'F'});
    assertThatThrownBy(v::verify)
        .hasMessage(f.library() + ": is not an ELF file (4 header bytes read)");
    assertThat(v.usable()).isFalse();
    assertThat(v.lastProblem())
        .contains(f.library() + ": is not an ELF file (4 header bytes read)");
    Files.delete(f.library());
    assertThatThrownBy(v::verify).hasMessage(f.library() + ": does not exist");
  }

  @Test
  void elfCheckRejectsOtherMachinesTypesAndClasses() throws Exception {
    ElfSharedObject x86 = ElfSharedObject.forArch("amd64");
    Path f = tmp.resolve("lib.so");
    Files.write(f, sharedObject(ElfSharedObject.EM_AARCH64, 64));
    assertThatThrownBy(() -> x86.check(f))
        .hasMessage(f + ": ELF e_machine = 183: built for another machine than this one (62)");
    ElfSharedObject.forArch("aarch64").check(f);

    byte[] exec = sharedObject(ElfSharedObject.EM_X86_64, 64);
    exec[16] = 2; // ET_EXEC
    Files.write(f, exec);
    assertThatThrownBy(() -> x86.check(f))
        .hasMessage(f + ": ELF e_type = 2: not a shared object (3)");

    byte[] elf32 = sharedObject(ElfSharedObject.EM_X86_64, 64);
    elf32[4] = 1;
    Files.write(f, elf32);
    assertThatThrownBy(() -> x86.check(f)).hasMessage(f + ": ELF class = 1: not a 64-bit object");

    assertThatThrownBy(() -> x86.check(tmp)).hasMessage(tmp + ": is a directory, not a library");
    assertThatThrownBy(() -> ElfSharedObject.forArch("s390x"))
        .hasMessageContaining("os.arch = s390x");
  }

  @Test
  void unreadableLibraryIsNamed() throws Exception {
    LimiterFiles f = LimiterFixture.installInto(tmp.resolve("dir"));
    Files.setPosixFilePermissions(f.library(), PosixFilePermissions.fromString("---------"));
    if (Files.isReadable(f.library())) return; // running as root: permissions do not apply
    assertThatThrownBy(() -> new LimiterVerifier(f, ELF).verify())
        .hasMessage(f.library() + ": is not readable");
  }

  @Test
  void provisioningWithoutSourceOnlyVerifies() throws Exception {
    LimiterFiles f = files();
    LimiterVerifier v = LimiterProvisioning.provision(f, Optional.empty(), ELF);
    assertThat(v.usable()).isFalse();
    assertThat(v.lastProblem()).contains(f.library() + ": does not exist");
    assertThat(f.hostDir()).doesNotExist();

    LimiterVerifier installed =
        LimiterProvisioning.provision(f, Optional.of(LimiterFixture.nativeLibrary()), ELF);
    assertThat(installed.lastProblem()).isEmpty();
    assertThat(Files.readAllBytes(f.preload()))
        .isEqualTo("/hami-vnpu-core/libvnpu.so\n".getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * A minimal 64-bit little-endian ELF header of type ET_DYN for {@code machine}, padded to {@code
   * size}.
   */
  static byte[] sharedObject(int machine, int size) {
    ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    b.put(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1});
    b.putShort(16, (short) 3);
    b.putShort(18, (short) machine);
    return b.array();
  }
}
