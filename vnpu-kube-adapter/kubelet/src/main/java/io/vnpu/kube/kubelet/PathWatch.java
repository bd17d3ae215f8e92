package io.vnpu.kube.kubelet;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices that files of interest (kubelet and plugin sockets) are created or deleted, by watching
 * their directories with a {@link WatchService}, and calls a callback on its own daemon thread. The
 * callback should only schedule the owner's reconcile, which compares {@link FileIdentity}s; the
 * owner also runs that reconcile periodically, because a watch dies when its directory is removed
 * (the kubelet wipes its device-plugin directory on restart) — {@link #ensureRegistered()} re-arms
 * it once the directory is back.
 */
public final class PathWatch implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PathWatch.class);

  private final WatchService service;
  private final Map<Path, Set<String>> namesByDir;
  private final Map<Path, WatchKey> keys = new ConcurrentHashMap<>();
  private final Runnable onChange;
  private final Thread thread;

  private PathWatch(
      WatchService service,
      Map<Path, Set<String>> namesByDir,
      Runnable onChange,
      String threadName) {
    this.service = service;
    this.namesByDir = namesByDir;
    this.onChange = onChange;
    this.thread = new Thread(this::loop, threadName);
    this.thread.setDaemon(true);
  }

  /**
   * Creates the watch (directories are created when missing) and starts its thread.
   *
   * @param files absolute paths whose creation or deletion matters
   * @param onChange called on the watch thread after a relevant event (or an overflow)
   * @throws IOException when no watch service is available
   */
  public static PathWatch start(String threadName, Collection<Path> files, Runnable onChange)
      throws IOException {
    Objects.requireNonNull(onChange, "onChange");
    Map<Path, Set<String>> byDir =
        files.stream()
            .map(Path::toAbsolutePath)
            .collect(
                Collectors.groupingBy(
                    Path::getParent,
                    LinkedHashMap::new,
                    Collectors.mapping(p -> p.getFileName().toString(), Collectors.toSet())));
    for (Path dir : byDir.keySet()) {
      Files.createDirectories(dir);
    }
    PathWatch w =
        new PathWatch(FileSystems.getDefault().newWatchService(), byDir, onChange, threadName);
    w.ensureRegistered();
    w.thread.start();
    return w;
  }

  /** (Re-)registers every directory whose watch is not valid (removed and re-created). */
  public void ensureRegistered() {
    for (Path dir : namesByDir.keySet()) {
      WatchKey k = keys.get(dir);
      if (k != null && k.isValid()) {
        continue;
      }
      try {
        keys.put(
            dir,
            dir.register(
                service,
                StandardWatchEventKinds.ENTRY_CREATE,
                StandardWatchEventKinds.ENTRY_DELETE));
      } catch (IOException | ClosedWatchServiceException e) {
        log.debug("watching {} failed: {}", dir, e.toString());
      }
    }
  }

  @Override
  public void close() {
    try {
      service.close();
    } catch (IOException e) {
      log.debug("closing the watch failed: {}", e.toString());
    }
  }

  private void loop() {
    while (true) {
      WatchKey key;
      try {
        key = service.take();
      } catch (InterruptedException | ClosedWatchServiceException e) {
        return;
      }
      Set<String> names = namesByDir.getOrDefault((Path) key.watchable(), Set.of());
      boolean relevant = false;
      for (WatchEvent<?> ev : key.pollEvents()) {
        relevant |=
            ev.kind() == StandardWatchEventKinds.OVERFLOW
                || (ev.context() instanceof Path p && names.contains(p.toString()));
      }
      key.reset();
      if (relevant) {
        try {
          onChange.run();
        } catch (RuntimeException e) {
          log.warn("path watch callback failed: {}", e.toString());
        }
      }
    }
  }
}
