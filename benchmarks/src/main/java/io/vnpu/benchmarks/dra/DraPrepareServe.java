package io.vnpu.benchmarks.dra;

/**
 * Serves the plugin of {@link DraPrepareBenchmark} (the same set-up: driver, state, CDI and
 * checkpoint directories, the kubelet plugin server on its unix socket) until killed, for a kubelet
 * stand-in outside this JVM: {@code benchmarks/dra-prepare-h2.sh} calls it from a Python HTTP/2
 * client in its own process (no JIT, no CPU of a Java client in this JVM), so that the round trip
 * holds the plugin's side and a thin client only. Prints the DRA socket path on the first line.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.vnpu.benchmarks.dra.DraPrepareServe disk|tmpfs whole|soft
 * </pre>
 */
public final class DraPrepareServe {
  private DraPrepareServe() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2
        || !java.util.Set.of("disk", "tmpfs").contains(args[0])
        || !java.util.Set.of("whole", "soft").contains(args[1])) {
      System.err.println("usage: DraPrepareServe disk|tmpfs whole|soft");
      System.exit(2);
    }
    System.setProperty("slf4j.internal.verbosity", "ERROR");
    DraPrepareBenchmark b = new DraPrepareBenchmark();
    b.checkpointOn = args[0];
    b.share = args[1];
    b.setUp();
    b.unpreparePrevious(); // the set-up's claim holds npu-0; the caller prepares its own claims
    Runtime.getRuntime().addShutdownHook(new Thread(() -> tearDown(b)));
    System.out.println(b.server.sockets().draSocket());
    System.out.flush();
    Thread.currentThread().join();
  }

  private static void tearDown(DraPrepareBenchmark b) {
    try {
      b.tearDown();
    } catch (Exception e) {
      System.err.println("DraPrepareServe: tear-down failed: " + e);
    }
  }
}
