package io.vnpu.kube.cli.top;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Waits between refreshes of {@code vnpu top} and notices the {@code q} key. On an interactive
 * terminal it switches the terminal to single-key input ({@code stty -icanon -echo}) for its
 * lifetime, so {@code q} works without Enter, and restores the saved settings on {@link #close}.
 * Without a terminal it never reads standard input (which may belong to someone else) and only
 * sleeps.
 */
public final class QuitKey implements AutoCloseable {
  private static final long POLL_MS = 50;

  private final InputStream in;
  private final String savedStty;
  private final Thread restoreOnExit;

  private QuitKey(InputStream in, String savedStty) {
    this.in = in;
    this.savedStty = savedStty;
    this.restoreOnExit =
        savedStty == null ? null : new Thread(() -> stty(savedStty), "vnpu-top-tty");
    if (restoreOnExit != null) Runtime.getRuntime().addShutdownHook(restoreOnExit);
  }

  /** Watches {@code System.in} when this process has an interactive terminal, else only sleeps. */
  public static QuitKey forThisProcess() {
    if (System.console() == null || !new File("/dev/tty").canRead()) return sleepOnly();
    String saved = stty("-g");
    if (saved == null || stty("-icanon", "-echo", "min", "1") == null)
      return new QuitKey(System.in, null);
    return new QuitKey(System.in, saved.strip());
  }

  /** Never reads input. */
  public static QuitKey sleepOnly() {
    return new QuitKey(null, null);
  }

  /** Watches {@code in} (tests). */
  static QuitKey watching(InputStream in) {
    return new QuitKey(in, null);
  }

  /**
   * Waits {@code millis}; returns {@code true} early when {@code q} or {@code Q} was pressed.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  public boolean awaitQuit(long millis) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (true) {
      if (in != null && quitPressed()) return true;
      long left = end - System.nanoTime();
      if (left <= 0) return false;
      Thread.sleep(Math.min(POLL_MS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
    }
  }

  private boolean quitPressed() {
    try {
      while (in.available() > 0) {
        int c = in.read();
        if (c == 'q' || c == 'Q') return true;
        if (c < 0) return false;
      }
    } catch (IOException e) {
      // input closed or unreadable: there is no key to notice
    }
    return false;
  }

  @Override
  public void close() {
    if (restoreOnExit == null) return;
    stty(savedStty);
    try {
      Runtime.getRuntime().removeShutdownHook(restoreOnExit);
    } catch (IllegalStateException shuttingDown) {
      // the hook restores the terminal anyway
    }
  }

  /** Runs stty on the controlling terminal; its output, or null when it failed. */
  private static String stty(String... args) {
    String[] cmd = new String[args.length + 1];
    cmd[0] = "stty";
    System.arraycopy(args, 0, cmd, 1, args.length);
    try {
      Process p =
          new ProcessBuilder(cmd)
              .redirectInput(new File("/dev/tty"))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 ? out : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
