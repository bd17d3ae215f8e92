package io.vnpu.quota.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host-file rules: exclusive no-follow creation, modes without links, deletes never follow. */
class HostFilesTest {
  @TempDir Path tmp;

  @Test
  void createExclusiveSetsTheModeWhateverTheUmaskAndRefusesLinksAndFiles() throws Exception {
    Path f = tmp.resolve("f");
    try (FileChannel ch =
        HostFiles.createExclusive(f, PosixFilePermissions.fromString("rw-rw-rw-"))) {
      ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-rw-rw-");
    assertThat(Files.readAllBytes(f)).containsExactly(1, 2, 3);
    assertThatThrownBy(() -> HostFiles.createExclusive(f, HostFiles.OWNER_ONLY_FILE))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(Files.readAllBytes(f)).containsExactly(1, 2, 3);

    Path victim = tmp.resolve("victim");
    Path dangling = tmp.resolve("dangling");
    Files.createSymbolicLink(dangling, victim);
    assertThatThrownBy(() -> HostFiles.createExclusive(dangling, HostFiles.OWNER_ONLY_FILE))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(victim).doesNotExist();
  }

  @Test
  void setModeRefusesALinkInsteadOfChangingItsTarget() throws Exception {
    Path target = Files.writeString(tmp.resolve("target"), "x");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
    Path link = Files.createSymbolicLink(tmp.resolve("link"), target);
    assertThatThrownBy(() -> HostFiles.setMode(link, PosixFilePermissions.fromString("rwxrwxrwx")))
        .isInstanceOf(FileSystemException.class)
        .hasMessageContaining(link.toString());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rw-------");
  }

  @Test
  void deleteTreeRemovesLinksAsLinksAndLeavesTheirTargets() throws Exception {
    Path outside = Files.createDirectory(tmp.resolve("outside"));
    Path keep = Files.writeString(outside.resolve("keep"), "keep");
    Path dir = Files.createDirectory(tmp.resolve("dir"));
    Files.createDirectories(dir.resolve("a/b"));
    Files.writeString(dir.resolve("a/b/file"), "x");
    Files.createSymbolicLink(dir.resolve("a/to-outside"), outside);
    Files.createSymbolicLink(dir.resolve("to-file"), keep);
    assertThat(HostFiles.deleteTree(dir)).isTrue();
    assertThat(dir).doesNotExist();
    assertThat(Files.readString(keep)).isEqualTo("keep");
    assertThat(HostFiles.deleteTree(dir)).isFalse();

    // the path itself a link to a directory: the link goes, the directory stays
    Path link = Files.createSymbolicLink(tmp.resolve("dir-link"), outside);
    assertThat(HostFiles.deleteTree(link)).isTrue();
    assertThat(Files.exists(link, LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(keep).exists();
  }

  @Test
  void deleteTreeRefusesATreeDeeperThanTheBound() throws Exception {
    Path dir = tmp.resolve("deep");
    Path p = dir;
    for (int i = 0; i <= HostFiles.MAX_DELETE_DEPTH; i++) p = p.resolve("d");
    Files.createDirectories(p);
    assertThatThrownBy(() -> HostFiles.deleteTree(dir))
        .isInstanceOf(FileSystemException.class)
        .hasMessageContaining("deeper than " + HostFiles.MAX_DELETE_DEPTH);
  }

  @Test
  void trustedDirectoryIsCreatedPrivateAndAWritableOrLinkedOneIsRefused() throws Exception {
    Path root = tmp.resolve("state/containers");
    assertThat(HostFiles.ensureTrustedDirectory(root, HostFiles.OWNER_ONLY_DIR)).isEqualTo(root);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root)))
        .isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.getParent())))
        .isEqualTo("rwx------");

    Path open = Files.createDirectory(tmp.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> HostFiles.ensureTrustedDirectory(open, HostFiles.OWNER_ONLY_DIR))
        .hasMessageContaining(open.toString())
        .hasMessageContaining("writable by group or others");
    assertThatThrownBy(
            () -> HostFiles.ensureTrustedDirectory(open.resolve("below"), HostFiles.OWNER_ONLY_DIR))
        .hasMessageContaining(open.toString())
        .hasMessageContaining("writable by group or others");

    Path link = Files.createSymbolicLink(tmp.resolve("linked"), root);
    assertThatThrownBy(() -> HostFiles.ensureTrustedDirectory(link, HostFiles.OWNER_ONLY_DIR))
        .hasMessageContaining("symbolic link");
  }

  /**
   * The trust check reads mode and numeric owner in one stat: a sticky ancestor is enough, a sticky
   * final directory is not, a file is not a directory, and a directory of another user is refused
   * by that user's name (looked up only for an owner other than root).
   */
  @Test
  void trustedDirectoryJudgesStickyBitsFilesAndForeignOwnersFromOneStat() throws Exception {
    Path sticky = Files.createDirectory(tmp.resolve("sticky"));
    Files.setAttribute(sticky, "unix:mode", 01777);
    Path below = sticky.resolve("agent");
    assertThat(HostFiles.ensureTrustedDirectory(below, HostFiles.OWNER_ONLY_DIR)).isEqualTo(below);
    assertThatThrownBy(() -> HostFiles.ensureTrustedDirectory(sticky, HostFiles.OWNER_ONLY_DIR))
        .hasMessageContaining(sticky.toString())
        .hasMessageContaining("writable by group or others (mode rwxrwxrwx)");

    Path file = Files.createFile(tmp.resolve("plain"));
    assertThatThrownBy(() -> HostFiles.ensureTrustedDirectory(file, HostFiles.OWNER_ONLY_DIR))
        .hasMessageContaining(file + ": is not a directory");

    // CI and the node agents run as root, which may hand a directory to another user
    Path foreign = Files.createDirectory(tmp.resolve("foreign"));
    Files.setOwner(
        foreign,
        foreign.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
    assertThatThrownBy(() -> HostFiles.ensureTrustedDirectory(foreign, HostFiles.OWNER_ONLY_DIR))
        .hasMessageContaining(foreign + ": is owned by nobody, not by root or this process's user");
    assertThatThrownBy(
            () -> HostFiles.ensureTrustedDirectory(foreign.resolve("x"), HostFiles.OWNER_ONLY_DIR))
        .hasMessageContaining(foreign + ": is owned by nobody");
  }

  @Test
  void presentFollowingLinksIsFalseForMissingPathsAndDanglingLinks() throws Exception {
    Path there = Files.createFile(tmp.resolve("there"));
    assertThat(HostFiles.presentFollowingLinks(there)).isTrue();
    assertThat(HostFiles.presentFollowingLinks(tmp)).isTrue();
    assertThat(HostFiles.presentFollowingLinks(tmp.resolve("missing"))).isFalse();
    Path dangling = Files.createSymbolicLink(tmp.resolve("dangling"), tmp.resolve("missing"));
    assertThat(HostFiles.presentFollowingLinks(dangling)).isFalse();
    Path toThere = Files.createSymbolicLink(tmp.resolve("toThere"), there);
    assertThat(HostFiles.presentFollowingLinks(toThere)).isTrue();
  }

  /**
   * Without fsync, the same replacement: new content, the mode set, a link replaced not followed.
   */
  @Test
  void replaceAtomicallyReplacesTheNameAndNeverWritesThroughALink() throws Exception {
    Path file = tmp.resolve("record.json");
    HostFiles.replaceAtomically(
        file, "1".getBytes(StandardCharsets.UTF_8), HostFiles.OWNER_ONLY_FILE);
    HostFiles.replaceAtomically(
        file, "22".getBytes(StandardCharsets.UTF_8), HostFiles.OWNER_ONLY_FILE);
    assertThat(Files.readString(file)).isEqualTo("22");
    Path target = Files.writeString(tmp.resolve("target"), "original");
    Files.delete(file);
    Files.createSymbolicLink(file, target);
    HostFiles.replaceAtomically(
        file, "333".getBytes(StandardCharsets.UTF_8), HostFiles.OWNER_ONLY_FILE);
    assertThat(Files.isSymbolicLink(file)).isFalse();
    assertThat(Files.readString(file)).isEqualTo("333");
    assertThat(Files.readString(target)).isEqualTo("original");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    try (Stream<Path> s = Files.list(tmp)) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("target", "record.json");
    }
  }

  /** Syncing the directory only for a new name changes nothing of what the name holds. */
  @Test
  void writeAtomicallyWhenCreatedCreatesReplacesAndReplacesALink() throws Exception {
    Path file = tmp.resolve("checkpoint.json");
    HostFiles.writeAtomically(
        file,
        "1".getBytes(StandardCharsets.UTF_8),
        HostFiles.OWNER_ONLY_FILE,
        HostFiles.DirectorySync.WHEN_CREATED);
    assertThat(Files.readString(file)).isEqualTo("1");
    HostFiles.writeAtomically(
        file,
        "22".getBytes(StandardCharsets.UTF_8),
        HostFiles.OWNER_ONLY_FILE,
        HostFiles.DirectorySync.WHEN_CREATED);
    assertThat(Files.readString(file)).isEqualTo("22");
    Path target = Files.writeString(tmp.resolve("target"), "original");
    Files.delete(file);
    Files.createSymbolicLink(file, target);
    HostFiles.writeAtomically(
        file,
        "333".getBytes(StandardCharsets.UTF_8),
        HostFiles.OWNER_ONLY_FILE,
        HostFiles.DirectorySync.WHEN_CREATED);
    assertThat(Files.isSymbolicLink(file)).isFalse();
    assertThat(Files.readString(file)).isEqualTo("333");
    assertThat(Files.readString(target)).isEqualTo("original");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    try (Stream<Path> s = Files.list(tmp)) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("target", "checkpoint.json");
    }
  }

  @Test
  void writeAtomicallyReplacesALinkInsteadOfWritingThroughIt() throws Exception {
    Path target = Files.writeString(tmp.resolve("target"), "original");
    Path file = Files.createSymbolicLink(tmp.resolve("checkpoint.json"), target);
    HostFiles.writeAtomically(
        file, "{}".getBytes(StandardCharsets.UTF_8), HostFiles.OWNER_ONLY_FILE);
    assertThat(Files.isSymbolicLink(file)).isFalse();
    assertThat(Files.readString(file)).isEqualTo("{}");
    assertThat(Files.readString(target)).isEqualTo("original");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    try (Stream<Path> s = Files.list(tmp)) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("target", "checkpoint.json");
    }
  }

  /**
   * A thread plants links (to an outside directory and file, dangling and not) under the names the
   * creator uses, while regions are created and removed: no file ever appears outside, the outside
   * file keeps its content and mode, and every region that was created is a regular file in place.
   */
  @Test
  void symlinkRaceNeverCreatesOrChangesAnythingOutside() throws Exception {
    Path outside = Files.createDirectory(tmp.resolve("outside"));
    Path secret = Files.writeString(outside.resolve("secret"), "secret");
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
    // the directory-name link points elsewhere, so what the planter writes through its own link
    // (in reality it could not) is told apart from what the creator would have written
    Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
    Path root =
        HostFiles.ensureTrustedDirectory(tmp.resolve("containers"), HostFiles.OWNER_ONLY_DIR);
    Path dir = root.resolve("pod_c");
    Path region = dir.resolve("vnpu_local_shmem");
    QuotaRegions regions = new QuotaRegions();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger planted = new AtomicInteger();
    Thread attacker =
        new Thread(
            () -> {
              List<Path> targets =
                  List.of(secret, outside.resolve("new-file"), outside, elsewhere.resolve("x"));
              int i = 0;
              while (!stop.get()) {
                Path target = targets.get(i++ % targets.size());
                try {
                  Files.createSymbolicLink(region, target);
                  planted.incrementAndGet();
                } catch (IOException ignored) {
                  // the directory is missing or the name is taken; try again
                }
                try {
                  Files.createSymbolicLink(dir, elsewhere);
                  planted.incrementAndGet();
                } catch (IOException ignored) {
                  // the directory exists
                }
                Thread.onSpinWait();
              }
            },
            "link-planter");
    attacker.start();
    int created = 0;
    try {
      for (int i = 0; i < 400; i++) {
        try {
          HostFiles.deleteTree(dir);
          HostFiles.createPrivateDirectory(dir);
          try (QuotaRegion r = regions.create(region, RegionConfig.memoryLimit(1, 1L << 30))) {
            assertThat(Files.isRegularFile(region, LinkOption.NOFOLLOW_LINKS)).isTrue();
            assertThat(r.readConfig().devices().get(0).memLimitBytes()).isEqualTo(1L << 30);
            created++;
          }
          HostFiles.setMode(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException lostTheRace) {
          // the planter took the name first: the creation failed, which is the safe outcome
        }
      }
    } finally {
      stop.set(true);
      attacker.join();
    }
    HostFiles.deleteTree(dir);
    try (Stream<Path> s = Files.list(outside)) {
      assertThat(s.map(p -> p.getFileName().toString())).containsExactly("secret");
    }
    try (Stream<Path> s = Files.list(elsewhere)) {
      assertThat(s.filter(p -> !Files.isSymbolicLink(p)).toList()).isEmpty();
    }
    assertThat(Files.readString(secret)).isEqualTo("secret");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)))
        .isEqualTo("rw-------");
    assertThat(planted.get()).isPositive();
    assertThat(created).isPositive();
  }
}
