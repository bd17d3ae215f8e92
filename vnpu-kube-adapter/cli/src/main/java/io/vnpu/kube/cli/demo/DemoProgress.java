package io.vnpu.kube.cli.demo;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Progress lines of {@code vnpu demo}: {@code [2/6] title} when a step starts, indented detail
 * lines under it, each prefixed with the time since the demo started.
 */
public final class DemoProgress {

  private final PrintWriter out;
  private final int steps;
  private final LongSupplier nanoClock;
  private final long startNs;
  private int step;

  /**
   * @param out where progress goes (flushed after each line)
   * @param steps total number of steps
   * @param nanoClock monotonic clock ({@code System::nanoTime})
   */
  public DemoProgress(PrintWriter out, int steps, LongSupplier nanoClock) {
    this.out = out;
    this.steps = steps;
    this.nanoClock = nanoClock;
    this.startNs = nanoClock.getAsLong();
  }

  /** Starts the next step. */
  public void step(String title) {
    if (step >= steps) throw new IllegalStateException("more than " + steps + " demo steps");
    step++;
    line(String.format(Locale.ROOT, "[%d/%d] %s", step, steps, title));
  }

  /** A detail line of the current step. */
  public void detail(String text) {
    line("      " + text);
  }

  /** Seconds since the demo started. */
  public double elapsedSeconds() {
    return (nanoClock.getAsLong() - startNs) / 1e9;
  }

  private void line(String text) {
    out.print(String.format(Locale.ROOT, "%5.1fs %s", elapsedSeconds(), text) + "\n");
    out.flush();
  }
}
