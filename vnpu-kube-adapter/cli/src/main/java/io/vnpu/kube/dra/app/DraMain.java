package io.vnpu.kube.dra.app;

import io.vnpu.dcmi.DcmiNodeSelector;
import io.vnpu.kube.app.ParserRules;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Plain main class of the NPU DRA kubelet plugin, for images that run it without the {@code vnpu}
 * CLI: {@code java -cp vnpu.jar io.vnpu.kube.dra.app.DraMain --node-name ...}. Same flags and exit
 * codes as {@code vnpu dra}.
 */
@Command(
    name = "vnpu-dra-kubeletplugin",
    mixinStandardHelpOptions = true,
    description =
        "DRA kubelet plugin for Ascend NPUs (driver npu.huawei.com): ResourceSlices,"
            + " NodePrepareResources with CDI.")
public final class DraMain implements Callable<Integer> {

  @Mixin DraFlags flags;

  @Override
  public Integer call() {
    return new DraLauncher(DcmiNodeSelector.system(), new java.io.PrintWriter(System.err, true))
        .run(flags, "vnpu-dra-kubeletplugin");
  }

  public static void main(String[] args) {
    CommandLine cl = ParserRules.apply(new CommandLine(new DraMain()));
    cl.setParameterExceptionHandler(
        (ex, a) -> {
          ex.getCommandLine()
              .getErr()
              .println(
                  "vnpu-dra-kubeletplugin: "
                      + ex.getMessage().lines().findFirst().orElse("invalid usage"));
          return DraLauncher.EXIT_USAGE;
        });
    System.exit(cl.execute(args));
  }
}
