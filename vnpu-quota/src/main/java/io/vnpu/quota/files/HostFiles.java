package io.vnpu.quota.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * File operations for a process that runs as root next to hostile tenants (the node agent, the DRA
 * plugin, {@code vnpu run}): it must never create, chmod, truncate or delete anything outside the
 * directory it means, whatever links a tenant plants.
 *
 * <p>The rules, in one place:
 *
 * <ul>
 *   <li>files are created exclusively ({@code O_CREAT|O_EXCL|O_NOFOLLOW}): an existing file or a
 *       planted link (even a dangling one) makes the creation fail, nothing is truncated;
 *   <li>modes and owners are set without following links ({@code fchmod} on a descriptor opened
 *       {@code O_NOFOLLOW}, {@code lchown}), never by a path that may lead elsewhere;
 *   <li>a directory is created {@code 0700} ({@link #createPrivateDirectory}) and opened to others
 *       only when its content is complete ({@link #setMode}): nobody else can plant anything in it
 *       meanwhile;
 *   <li>deletes walk directories with {@code openat/unlinkat} relative to descriptors opened {@code
 *       O_NOFOLLOW} ({@link SecureDirectoryStream}), so a link swapped in mid-walk is removed as a
 *       link, its target is never touched;
 *   <li>a trusted directory ({@link #ensureTrustedDirectory}) is a real directory (not a link)
 *       owned by this process's user or root and not writable by group or others.
 * </ul>
 *
 * Linux (POSIX with {@code openat}) only; on other file systems the methods throw {@link
 * IOException} instead of silently degrading.
 */
public final class HostFiles {
  /**
   * Deepest directory nesting {@link #deleteTree} walks; a deeper tree is refused, not followed.
   */
  public static final int MAX_DELETE_DEPTH = 64;

  /** {@code rw-------}. */
  public static final Set<PosixFilePermission> OWNER_ONLY_FILE =
      PosixFilePermissions.fromString("rw-------");

  /** {@code rwx------}. */
  public static final Set<PosixFilePermission> OWNER_ONLY_DIR =
      PosixFilePermissions.fromString("rwx------");

  private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
  private static final LinkOption[] FOLLOW = {};

  /** Mode (type and permission bits) and numeric owner in one {@code stat}, no name lookup. */
  private static final String UNIX_MODE_AND_OWNER = "unix:mode,uid";

  private static final int S_IFMT = 0170000;
  private static final int S_IFDIR = 0040000;
  private static final int S_IFLNK = 0120000;
  private static final int S_ISVTX = 01000;
  private static final int GROUP_OTHER_WRITE_BITS = 0022;

  private HostFiles() {}

  /**
   * Makes sure {@code dir} exists and is trusted: missing components are created with mode {@code
   * mode} (typically {@code rwx------} or {@code rwx--x--x}); the final directory must not be a
   * symbolic link, must be owned by this process's user or root, and must not be writable by group
   * or others; each ancestor must be owned likewise and not writable by group or others unless
   * sticky (like {@code /tmp}).
   *
   * @return {@code dir}
   * @throws IOException naming the directory and the reason when it is a link, not a directory,
   *     foreign-owned or writable by others, or cannot be created
   */
  public static Path ensureTrustedDirectory(Path dir, Set<PosixFilePermission> mode)
      throws IOException {
    Path parent = dir.toAbsolutePath().normalize().getParent();
    if (parent != null) {
      if (!Files.exists(parent, NOFOLLOW)) {
        ensureTrustedDirectory(parent, mode);
      } else {
        // an ancestor writable by others could have the whole subtree renamed away under us
        for (Path p = parent; p != null; p = p.getParent()) {
          checkTrusted(p, Files.readAttributes(p, UNIX_MODE_AND_OWNER), true, FOLLOW);
        }
      }
    }
    if (!Files.exists(dir, NOFOLLOW)) {
      try {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
        setMode(dir, mode);
      } catch (FileAlreadyExistsException raced) {
        // created concurrently; checked below like any existing directory
      }
    }
    Map<String, Object> a = Files.readAttributes(dir, UNIX_MODE_AND_OWNER, NOFOLLOW);
    int type = (Integer) a.get("mode") & S_IFMT;
    if (type == S_IFLNK)
      throw new FileSystemException(
          dir.toString(), null, "is a symbolic link, not a trusted directory");
    if (type != S_IFDIR) throw new FileSystemException(dir.toString(), null, "is not a directory");
    checkTrusted(dir, a, false, NOFOLLOW);
    return dir;
  }

  /**
   * One {@code stat} per directory: mode and numeric owner. A directory owned by root (uid 0, as
   * every directory of a node agent running as root is) is trusted without a user-database lookup;
   * another owner's name is looked up ({@code getpwuid}, which reads {@code /etc/passwd} on every
   * call) only to compare it with this process's user.
   */
  private static void checkTrusted(
      Path dir, Map<String, Object> a, boolean stickyIsEnough, LinkOption... links)
      throws IOException {
    int mode = (Integer) a.get("mode");
    // a sticky directory (/tmp) lets nobody rename or remove another user's entry
    if ((mode & GROUP_OTHER_WRITE_BITS) != 0 && !(stickyIsEnough && (mode & S_ISVTX) != 0)) {
      throw new FileSystemException(
          dir.toString(),
          null,
          "is writable by group or others (mode "
              + PosixFilePermissions.toString(permissionsOf(mode))
              + "); refusing to keep host state there");
    }
    if ((Integer) a.get("uid") == 0) return;
    String owner = Files.getOwner(dir, links).getName();
    if (!owner.equals("root") && !owner.equals(System.getProperty("user.name"))) {
      throw new FileSystemException(
          dir.toString(), null, "is owned by " + owner + ", not by root or this process's user");
    }
  }

  private static Set<PosixFilePermission> permissionsOf(int mode) {
    Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] bits = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE
    for (int i = 0; i < bits.length; i++) {
      if ((mode & (0400 >> i)) != 0) out.add(bits[i]);
    }
    return out;
  }

  /**
   * Whether {@code path} names an existing file, following links: a dangling link counts as absent.
   * A missing path costs one {@code stat} and no exception ({@link Files#exists} builds a {@link
   * NoSuchFileException} with the caller's whole stack trace for it on Java 17, tens of
   * microseconds on a call path as deep as a gRPC handler's). Nothing is opened.
   */
  public static boolean presentFollowingLinks(Path path) {
    return path.toFile().exists();
  }

  /**
   * Creates directory {@code dir} with mode {@code rwx------} (set without following links,
   * whatever the umask); the parent must already exist. Nothing but this process can add entries
   * until the caller opens it with {@link #setMode}.
   *
   * @throws FileAlreadyExistsException when anything, a link included, already has that name
   */
  public static void createPrivateDirectory(Path dir) throws IOException {
    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
    setMode(dir, OWNER_ONLY_DIR);
  }

  /**
   * Creates regular file {@code file} exclusively and without following links, opened for reading
   * and writing, with mode {@code mode} set through a descriptor opened {@code O_NOFOLLOW} (the
   * umask cannot narrow it). Call it in a directory nobody else can write (see {@link
   * #createPrivateDirectory}): then the name still denotes the new file when its mode is set. On
   * failure after creation, the new file is removed again.
   *
   * @param extra further options, e.g. {@link StandardOpenOption#DSYNC}; never needed for safety
   * @throws FileAlreadyExistsException when a file or a link (even dangling) has that name
   */
  public static FileChannel createExclusive(
      Path file, Set<PosixFilePermission> mode, OpenOption... extra) throws IOException {
    Set<OpenOption> options =
        new java.util.HashSet<>(
            List.of(
                StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ,
                StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS));
    options.addAll(List.of(extra));
    FileChannel ch =
        FileChannel.open(file, options, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
    try {
      setMode(file, mode);
      return ch;
    } catch (IOException | RuntimeException e) {
      ch.close();
      deleteQuietly(file);
      throw e;
    }
  }

  /**
   * Sets the mode of {@code path} without following a link: a link in its place makes this fail
   * ({@code ELOOP}) instead of changing the link's target.
   */
  public static void setMode(Path path, Set<PosixFilePermission> mode) throws IOException {
    PosixFileAttributeView v =
        Files.getFileAttributeView(path, PosixFileAttributeView.class, NOFOLLOW);
    if (v == null)
      throw new FileSystemException(path.toString(), null, "file system has no POSIX permissions");
    try {
      v.setPermissions(mode);
    } catch (FileSystemException e) {
      throw new FileSystemException(
          path.toString(),
          null,
          "cannot set mode "
              + PosixFilePermissions.toString(mode)
              + " without following links: "
              + e.getReason());
    }
  }

  /** Sets the owner of {@code path} without following a link ({@code lchown}). */
  public static void setOwner(Path path, UserPrincipal owner) throws IOException {
    PosixFileAttributeView v =
        Files.getFileAttributeView(path, PosixFileAttributeView.class, NOFOLLOW);
    v.setOwner(owner);
  }

  /** When {@link #writeAtomically(Path, byte[], Set, DirectorySync)} syncs the directory. */
  public enum DirectorySync {
    /** After every rename: the new content itself survives a power cut once the call returns. */
    ALWAYS,
    /**
     * Only when the rename creates the name (no file was there). A rename over an existing file is
     * atomic without it: after a power cut the name holds the old or the new content, each complete
     * (both were synced before their rename); the journal's next commit makes the new one durable.
     * One fsync per write instead of two, for a file rewritten on every change.
     */
    WHEN_CREATED
  }

  /**
   * Writes {@code content} to {@code file} atomically: a new file with a random name is created
   * exclusively in the same directory with mode {@code mode}, synced, and renamed over {@code file}
   * ({@code rename} replaces a link by the new file, it never writes through it), and the directory
   * is synced so the rename survives a power cut.
   */
  public static void writeAtomically(Path file, byte[] content, Set<PosixFilePermission> mode)
      throws IOException {
    writeAtomically(file, content, mode, DirectorySync.ALWAYS);
  }

  /**
   * As {@link #writeAtomically(Path, byte[], Set)}, with the directory synced as {@code dirSync}
   * says.
   */
  public static void writeAtomically(
      Path file, byte[] content, Set<PosixFilePermission> mode, DirectorySync dirSync)
      throws IOException {
    // a new name survives a power cut only once the directory is synced
    boolean syncDirectory = dirSync == DirectorySync.ALWAYS || !Files.exists(file, NOFOLLOW);
    replace(file, content, mode, true, syncDirectory);
  }

  /**
   * Replaces {@code file} with {@code content} atomically for readers while the system runs (they
   * see the old or the new file, never a partial one: exclusive temporary file, rename), without
   * any fsync: after a power cut the name may hold the old content, the new one, or an empty file.
   * For files no more durable than what they describe, e.g. a slice's record beside its quota
   * region, which is never synced either; a durable file is {@link #writeAtomically}'s.
   */
  public static void replaceAtomically(Path file, byte[] content, Set<PosixFilePermission> mode)
      throws IOException {
    replace(file, content, mode, false, false);
  }

  /**
   * A fresh name for a temporary file beside {@code file}: {@code .<name>.tmp-<16 hex digits>} in
   * the same directory, so that a rename over {@code file} stays within one file system. The name
   * is random (not guessable by whoever else can write to the directory) and not yet created;
   * create it with {@link #createExclusive}.
   */
  public static Path temporarySibling(Path file) {
    byte[] random = RandomIds.bytes(new byte[8]);
    return file.toAbsolutePath()
        .getParent()
        .resolve("." + file.getFileName() + ".tmp-" + HexFormat.of().formatHex(random));
  }

  private static void replace(
      Path file,
      byte[] content,
      Set<PosixFilePermission> mode,
      boolean syncFile,
      boolean syncDirectory)
      throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = temporarySibling(file);
    try (FileChannel ch = createExclusive(tmp, mode)) {
      ByteBuffer b = ByteBuffer.wrap(content);
      while (b.hasRemaining()) ch.write(b);
      if (syncFile) ch.force(true);
    } catch (IOException | RuntimeException e) {
      deleteQuietly(tmp);
      throw e;
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      deleteQuietly(tmp);
      throw e;
    }
    if (syncDirectory) {
      try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
        d.force(true);
      }
    }
  }

  /**
   * Removes {@code path} and, if it is a directory, everything below it, never following a symbolic
   * link: a link is removed as a link. The parent of {@code path} is trusted (the walk is relative
   * to it). A missing {@code path} is not an error.
   *
   * @return whether anything was removed
   * @throws IOException when an entry cannot be removed or the tree is deeper than {@value
   *     #MAX_DELETE_DEPTH} levels (nothing above the failing entry is removed then)
   */
  public static boolean deleteTree(Path path) throws IOException {
    Path abs = path.toAbsolutePath().normalize();
    Path parent = abs.getParent();
    Path name = abs.getFileName();
    if (parent == null || name == null)
      throw new FileSystemException(path.toString(), null, "refusing to delete a root");
    DirectoryStream<Path> ds;
    try {
      ds = Files.newDirectoryStream(parent);
    } catch (NoSuchFileException e) {
      return false;
    }
    try (ds) {
      if (!(ds instanceof SecureDirectoryStream<Path> sds)) {
        throw new FileSystemException(
            parent.toString(),
            null,
            "file system has no secure directory stream (openat); refusing an unsafe delete");
      }
      return deleteEntry(sds, name, abs, 0);
    }
  }

  /** As {@link #deleteTree}, reporting any failure as {@code false} (for rollback paths). */
  public static boolean deleteQuietly(Path path) {
    try {
      return deleteTree(path);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static boolean deleteEntry(
      SecureDirectoryStream<Path> parent, Path name, Path shown, int depth) throws IOException {
    BasicFileAttributes a;
    try {
      a =
          parent
              .getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
              .readAttributes();
    } catch (NoSuchFileException e) {
      return false;
    }
    if (a.isDirectory()) {
      if (depth >= MAX_DELETE_DEPTH) {
        throw new FileSystemException(
            shown.toString(),
            null,
            "directory tree deeper than " + MAX_DELETE_DEPTH + " levels; refusing to walk it");
      }
      // O_NOFOLLOW: if a link replaced the directory since the stat, this fails with ELOOP
      try (SecureDirectoryStream<Path> child = parent.newDirectoryStream(name, NOFOLLOW)) {
        List<Path> entries = new ArrayList<>();
        for (Path e : child) entries.add(e.getFileName());
        for (Path e : entries) deleteEntry(child, e, shown.resolve(e), depth + 1);
      }
      try {
        parent.deleteDirectory(name);
      } catch (NoSuchFileException e) {
        return false;
      }
    } else {
      try {
        parent.deleteFile(name);
      } catch (NoSuchFileException e) {
        return false;
      }
    }
    return true;
  }
}
