package io.vnpu.kube.dra;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.kube.dra.devices.NpuDeviceFacts;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * A simulated node for DRA plugin tests: kubelet directories, a CDI directory, a device directory
 * with stand-in files for {@code davinci0..7} and the management nodes, a driver tree with {@code
 * /usr/local/dcmi}, a Node object in the mock API server, eight 910B3 chips.
 */
final class DraTestBed {
  static final String NODE = "node-1";
  static final String DRIVER = "npu.huawei.com";

  final Path root;
  final Path registrar;
  final Path plugins;
  final Path cdi;
  final Path dev;
  final Path mounts;
  final KubernetesClient client;
  final MutableDeviceManager dcmi = new MutableDeviceManager(MutableDeviceManager.eight910b3());
  String bootId = "boot-1";

  /** {@code --enable-hard-vnpu} and the templates it reads. */
  boolean hardVnpu;

  DeviceConfig deviceConfig = new DeviceConfig(false, List.of());

  /** {@code --enable-soft-slicing}, {@code --capacity-names} and the limiter soft shares use. */
  boolean softSlicing;

  io.vnpu.kube.dra.modes.SoftCapacityNames capacityNames =
      io.vnpu.kube.dra.modes.SoftCapacityNames.HAMI;
  io.vnpu.kube.limiter.LimiterFiles limiter;

  /** {@code --chip-modes} and {@code --shared-counters} ({@code auto}: true). */
  io.vnpu.kube.dra.modes.ChipModePins chipModes = io.vnpu.kube.dra.modes.ChipModePins.NONE;

  boolean sharedCounters = true;

  /** How the plugin opens DCMI: the in-memory {@link #dcmi} unless a test points it elsewhere. */
  java.util.concurrent.Callable<io.vnpu.api.spi.DeviceManager> opener = () -> dcmi;

  DraTestBed(Path root, KubernetesClient client) throws IOException {
    this.root = root;
    this.client = client;
    // short: a rolling-update registration socket (.npu.huawei.com-<pod UID>-reg.sock.tmp) under
    // a JUnit temp directory of 18-20 digits passed the 107-byte sun_path limit as plugins_registry
    registrar = Files.createDirectories(root.resolve("reg"));
    plugins = Files.createDirectories(root.resolve("plugins"));
    cdi = root.resolve("cdi");
    dev = Files.createDirectories(root.resolve("dev"));
    mounts = root.resolve("host");
    Files.createDirectories(mounts.resolve("usr/local/dcmi"));
    for (int i = 0; i < 8; i++) {
      Files.writeString(dev.resolve("davinci" + i), "");
    }
    for (String n : List.of("davinci_manager", "devmm_svm", "hisi_hdc")) {
      Files.writeString(dev.resolve(n), "");
    }
    if (client.nodes().withName(NODE).get() == null) {
      client
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
          .create();
    }
  }

  int healthcheckPort = -1;

  /** Period of the check of prepared claims against the API server. */
  Duration claimReconcile = Duration.ofMillis(300);

  DraOptions options() {
    return DraOptions.builder(NODE)
        .driverName(DRIVER)
        .cdiRoot(cdi)
        .registrarDir(registrar)
        .pluginsDir(plugins)
        .enableHardVnpu(hardVnpu)
        .healthcheckPort(healthcheckPort)
        .devRoot(dev)
        .mountRoot(mounts)
        .resync(Duration.ofMillis(300))
        .enableSoftSlicing(softSlicing)
        .capacityNames(capacityNames)
        .chipModes(chipModes)
        .sharedCounters(sharedCounters)
        .claimReconcile(claimReconcile)
        .build();
  }

  /** {@code --pod-uid}: rolling-update socket names; null: the standard ones. */
  String podUid;

  DraPlugin plugin() {
    DraPlugin.Builder b =
        DraPlugin.builder(options(), client)
            .opener(opener)
            .facts(npu -> Optional.of(String.format("0000:%02x:00.0", 0xc1 + npu.phyId())))
            .bootId(bootId)
            .deviceConfig(deviceConfig)
            .limiter(
                limiter != null
                    ? limiter
                    : io.vnpu.kube.limiter.LimiterFiles.hami(root.resolve("no-limiter")));
    return (podUid == null ? b : b.rollingUpdate(podUid)).build();
  }

  DraPlugin startedPlugin() throws IOException {
    DraPlugin p = plugin();
    p.start();
    return p;
  }

  ResourceClaim create(ResourceClaim claim) {
    client
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName(claim.getMetadata().getNamespace())
                .endMetadata()
                .build())
        .createOr(n -> n.update());
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(claim.getMetadata().getNamespace())
        .resource(claim)
        .create();
  }

  List<ResourceSlice> slices() {
    return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  static NpuDeviceFacts noFacts() {
    return NpuDeviceFacts.NONE;
  }
}
