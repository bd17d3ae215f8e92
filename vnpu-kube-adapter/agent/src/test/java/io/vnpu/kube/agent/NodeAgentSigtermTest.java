package io.vnpu.kube.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent in its own JVM stops cleanly on SIGTERM: streams ended, socket removed. */
class NodeAgentSigtermTest {

  @TempDir Path dir;

  @Test
  void sigtermStopsThePluginAndRemovesTheSocket() throws Exception {
    Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
    Path log = dir.resolve("agent.log");
    try (KubeletStandIn kubelet = KubeletStandIn.start(plugins)) {
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      // the agent's log goes to stderr (the tests' simplelogger.properties sends it to a file)
      Process p =
          new ProcessBuilder(
                  List.of(
                      java.toString(),
                      "-Dorg.slf4j.simpleLogger.logFile=System.err",
                      "-cp",
                      System.getProperty("java.class.path"),
                      AgentProcessMain.class.getName(),
                      plugins.toString(),
                      NodeAgentTest.DEVICE_CONFIG.toString()))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      try {
        RegisterRequest r = kubelet.awaitRegistration(Duration.ofSeconds(60));
        assertThat(r.getEndpoint()).isEqualTo("Ascend910B3.sock");
        PluginClient.ListAndWatchRecorder stream = kubelet.connect(r).listAndWatch();
        assertThat(stream.next(Duration.ofSeconds(10)).getDevicesCount()).isEqualTo(2);

        p.destroy(); // SIGTERM

        assertThat(p.waitFor(30, TimeUnit.SECONDS))
            .as("agent exited; log:%n%s", read(log))
            .isTrue();
        assertThat(p.exitValue()).as("exit code; log:%n%s", read(log)).isEqualTo(143);
        assertThat(stream.awaitEnd(Duration.ofSeconds(5))).isTrue();
        assertThat(stream.error()).as("stream ended cleanly").isEmpty();
        assertThat(Files.exists(plugins.resolve("Ascend910B3.sock"))).isFalse();
        assertThat(read(log)).contains("node agent stopped");
      } finally {
        p.destroyForcibly();
      }
    }
  }

  private static String read(Path log) throws java.io.IOException {
    return Files.exists(log) ? Files.readString(log) : "(no log)";
  }
}
