package io.vnpu.kube.cli;

import io.vnpu.dcmi.DcmiNodeSelector;
import io.vnpu.kube.dra.app.DraFlags;
import io.vnpu.kube.dra.app.DraLauncher;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code vnpu dra}: the NPU DRA kubelet plugin in the foreground. Exit codes: {@value
 * DraLauncher#EXIT_OK} stopped, {@value DraLauncher#EXIT_STARTUP_FAILED} startup failed, {@value
 * DraLauncher#EXIT_USAGE} invalid flag.
 */
@Command(
    name = "dra",
    mixinStandardHelpOptions = true,
    description =
        "Run the DRA kubelet plugin for this node's Ascend NPUs (ResourceSlices,"
            + " NodePrepareResources with CDI; the openFuyao driver's flags).")
public final class DraCommand implements Callable<Integer> {

  @Mixin DraFlags flags;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    return new DraLauncher(DcmiNodeSelector.system(), spec.commandLine().getErr())
        .run(flags, "vnpu dra");
  }
}
