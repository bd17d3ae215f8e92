package io.vnpu.kube.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.Status;
import io.vnpu.api.testing.HamiFixtures;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginState;
import io.vnpu.kube.deviceplugin.RestartPolicy;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeAgentTest {

  static final Path DEVICE_CONFIG = HamiFixtures.file("ascend-device-configmap.yaml");
  static final Path NODE_CONFIG = HamiFixtures.file("ascend-device-node-configmap.yaml");
  private static final Duration WAIT = Duration.ofSeconds(5);

  @TempDir Path dir;
  private KubeletStandIn kubelet;
  private final AtomicReference<RecordingBackend> backend = new AtomicReference<>();

  @BeforeEach
  void setUp() throws Exception {
    kubelet = KubeletStandIn.start(dir);
  }

  @AfterEach
  void tearDown() throws Exception {
    kubelet.close();
  }

  private NodeAgentOptions options(String node, Optional<Path> nodeConfig) {
    return new NodeAgentOptions(
        DEVICE_CONFIG,
        nodeConfig,
        node,
        Duration.ofSeconds(60),
        Duration.ofSeconds(1),
        0,
        dir,
        Optional.empty(),
        Optional.empty());
  }

  private NodeAgent agent(NodeAgentOptions o, FixedDeviceManager dm) {
    return new NodeAgent(
        o,
        opts -> dm,
        env -> {
          RecordingBackend b = new RecordingBackend(env);
          backend.set(b);
          return b;
        },
        UnaryOperator.identity());
  }

  @Test
  void servesTheChipOfTheNodeWithTheConfiguredResourceAndNodeSettings() throws Exception {
    FixedDeviceManager dm = new FixedDeviceManager("910B3", 2);
    NodeAgent agent = agent(options("worker-1", Optional.of(NODE_CONFIG)), dm);

    assertThat(agent.start()).isEqualTo(PluginState.REGISTERED);

    RegisterRequest r = kubelet.awaitRegistration(WAIT);
    assertThat(r.getResourceName()).isEqualTo("huawei.com/Ascend910B3");
    assertThat(r.getEndpoint()).isEqualTo("Ascend910B3.sock");
    AgentEnvironment env = backend.get().environment;
    assertThat(env.chip().commonWord()).isEqualTo("Ascend910B3");
    assertThat(env.npus()).hasSize(2);
    assertThat(env.nodeSettings())
        .hasValueSatisfying(
            n -> {
              assertThat(n.name()).isEqualTo("worker-1");
              assertThat(n.vDeviceCount()).isEqualTo(8);
              assertThat(n.hamiVnpuCore(false)).isTrue();
            });
    assertThat(backend.get().started).isTrue();
    assertThat(kubelet.connect(r).listAndWatch().next(WAIT).getDevicesList())
        .extracting(Device::getID)
        .containsExactly(
            "00000000-00000000-00000000-00000000-00000000-0",
            "00000001-00000000-00000000-00000000-00000000-0");

    agent.stop();
    assertThat(Files.exists(dir.resolve("Ascend910B3.sock"))).isFalse();
    assertThat(backend.get().closed).isTrue();
    assertThat(dm.closed).isTrue();
    assertThat(agent.awaitTermination()).isEqualTo(PluginState.STOPPED);
  }

  @Test
  void aNodeWithoutEntryGetsNoNodeSettings() throws Exception {
    NodeAgent agent =
        agent(options("worker-9", Optional.of(NODE_CONFIG)), new FixedDeviceManager("310P3", 1));
    agent.start();
    assertThat(kubelet.awaitRegistration(WAIT).getResourceName())
        .isEqualTo("huawei.com/Ascend310P");
    assertThat(backend.get().environment.nodeSettings()).isEmpty();
    agent.stop();
  }

  @Test
  void unknownChipFailsNamingTheChipAndTheConfigFileAndClosesTheDriver() {
    FixedDeviceManager dm = new FixedDeviceManager("910X", 1);
    NodeAgent agent = agent(options("worker-1", Optional.empty()), dm);

    assertThatThrownBy(agent::start)
        .isInstanceOf(AgentStartupException.class)
        .hasMessage(
            "can not find vnpu config for chip 910X in "
                + DEVICE_CONFIG
                + " (vnpus.configs[].chipName: 910A, 910B2, 910B3, 910B4-1, 910B4, 310P3, Ascend910)");
    assertThat(dm.closed).isTrue();
    assertThat(backend.get()).isNull();
  }

  @Test
  void missingConfigFileExitsWithTheStartupCode() {
    FixedDeviceManager dm = new FixedDeviceManager("910B3", 1);
    NodeAgentOptions o =
        new NodeAgentOptions(
            dir.resolve("nope.yaml"),
            Optional.empty(),
            "worker-1",
            Duration.ofSeconds(60),
            Duration.ofSeconds(1),
            0,
            dir,
            Optional.empty(),
            Optional.empty());
    NodeAgent agent = agent(o, dm);
    assertThatThrownBy(agent::start)
        .isInstanceOf(AgentStartupException.class)
        .hasMessageContaining(dir.resolve("nope.yaml").toString())
        .hasMessageContaining("no such file");
    assertThat(agent(o, dm).run()).isEqualTo(NodeAgent.EXIT_STARTUP_FAILED);
    assertThat(kubelet.registrations()).isEmpty();
  }

  @Test
  void aBadConfigFailsWithItsErrorLinesAndNoStackTrace() throws Exception {
    Path bad =
        Files.writeString(
            dir.resolve("bad.yaml"),
            String.join(
                "\n",
                "vnpus:",
                "  configs:",
                "  - chipName: 910B3",
                "    commonWord: Ascend910B3",
                "    resourceName: huawei.com/Ascend910B3",
                "    memoryAllocatable: lots",
                "    memoryCapacity: 65536",
                "    aiCore: 20",
                ""));
    NodeAgentOptions o =
        new NodeAgentOptions(
            bad,
            Optional.empty(),
            "worker-1",
            Duration.ofSeconds(60),
            Duration.ofSeconds(1),
            0,
            dir,
            Optional.empty(),
            Optional.empty());
    FixedDeviceManager dm = new FixedDeviceManager("910B3", 1);

    AgentStartupException e =
        catchThrowableOfType(AgentStartupException.class, () -> agent(o, dm).start());

    assertThat(e.getMessage())
        .isEqualTo(
            bad
                + ":6: vnpus.configs[0].memoryAllocatable = lots: not an integer "
                + "number of MiB nor a quantity such as 16Gi or 16384Mi");
    assertThat(e.getCause()).as("a user's mistake carries no stack trace").isNull();
    assertThat(kubelet.registrations()).isEmpty();
  }

  @Test
  void runReturnsTheGiveUpCodeWhenThePluginSpendsItsRestartBudget() {
    kubelet.rejectAllRegistrations(Status.INVALID_ARGUMENT.withDescription("bad resource"));
    FixedDeviceManager dm = new FixedDeviceManager("910B3", 1);
    NodeAgent agent =
        new NodeAgent(
            options("worker-1", Optional.empty()),
            opts -> dm,
            RecordingBackend::new,
            b ->
                b.restartPolicy(
                    new RestartPolicy(
                        2, Duration.ofMinutes(1), Duration.ofMillis(10), Duration.ofMillis(10))));

    assertThat(agent.run()).isEqualTo(NodeAgent.EXIT_PLUGIN_GAVE_UP);
    assertThat(kubelet.registrations()).hasSize(3);
    assertThat(dm.closed).isTrue();
    assertThat(Files.exists(dir.resolve("Ascend910B3.sock"))).isFalse();
  }
}
