package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraClaims.result;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.checkpoint.ClaimState;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.testing.DraKubeletStandIn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling update of the DRA plugin as a DaemonSet with {@code maxSurge: 1} drives it: the old pod
 * runs and is registered; the new pod starts with its own sockets in the same directories and
 * registers next to it; the old pod gets SIGTERM ({@link DraPlugin#close()}). The kubelet stand-in
 * keeps both registrations as the kubelet does and picks one per call. Throughout, a stream of
 * claims is prepared and unprepared; claims prepared by the old pod stay prepared and are
 * unprepared by the new one.
 */
@EnableKubernetesMockClient(crud = true)
class RollingUpdateEndToEndTest {
  static final String OLD_POD = "7c1f0d4e-1111-4a2b-9c3d-000000000001";
  static final String NEW_POD = "7c1f0d4e-2222-4a2b-9c3d-000000000002";

  KubernetesClient client;

  @TempDir Path tmp;

  DraTestBed bed;
  DraKubeletStandIn kubelet;
  final List<DraPlugin> plugins = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    bed = new DraTestBed(tmp, client);
    kubelet = new DraKubeletStandIn();
  }

  @AfterEach
  void tearDown() {
    plugins.forEach(DraPlugin::close);
    kubelet.close();
  }

  DraPlugin start(String podUid) throws Exception {
    bed.podUid = podUid;
    DraPlugin p = bed.startedPlugin();
    plugins.add(p);
    return p;
  }

  String claimOn(String name, String device) {
    // the API server gives the claim its UID
    return bed.create(
            allocated(
                "demo",
                name,
                java.util.UUID.randomUUID().toString(),
                List.of(result("npu", DRIVER, NODE, device))))
        .getMetadata()
        .getUid();
  }

  /** The checkpoint as a new instance would read it from the file. */
  Map<String, PreparedClaim> onDisk() throws Exception {
    return new CheckpointStore(
            bed.plugins.resolve(DRIVER).resolve(CheckpointStore.FILE_NAME), Clock.systemUTC())
        .load(bed.bootId)
        .preparedClaims();
  }

  Set<String> cdiSpecs() throws Exception {
    try (Stream<Path> files = Files.list(bed.cdi)) {
      return files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  @Test
  void aRollingUpdateRefusesAndUnpreparesNoClaimDuringTheSwitch() throws Exception {
    DraPlugin old = start(OLD_POD);
    Path oldEndpoint = kubelet.register(old.sockets().registrationSocket(), DRIVER);
    DraTestBed.await("slices of the old pod", () -> bed.slices().size() == 1);

    // running pods' claims, prepared by the old pod: npu-6 and npu-7
    String kept6 = claimOn("kept-6", "npu-6");
    String kept7 = claimOn("kept-7", "npu-7");
    for (String[] k : List.of(new String[] {kept6, "kept-6"}, new String[] {kept7, "kept-7"})) {
      assertThat(kubelet.prepare(claim("demo", k[0], k[1])).getClaimsOrThrow(k[0]).getError())
          .isEmpty();
    }

    // the stream: pods coming and going on npu-0..5, one claim after the other per worker
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger rounds = new AtomicInteger();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    ExecutorService workers = Executors.newFixedThreadPool(3);
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < 3; w++) {
      int worker = w;
      running.add(
          workers.submit(
              () -> {
                for (int i = 0; !stop.get(); i++) {
                  String device = "npu-" + (worker * 2 + i % 2);
                  String name = "w" + worker + "-" + i;
                  String uid = claimOn(name, device);
                  try {
                    NodePrepareResourceResponse r =
                        kubelet.prepare(claim("demo", uid, name)).getClaimsOrThrow(uid);
                    if (!r.getError().isEmpty()
                        || r.getDevicesCount() != 1
                        || !r.getDevices(0).getDeviceName().equals(device)) {
                      failures.add("prepare " + name + ": " + r);
                      continue;
                    }
                    String un =
                        kubelet
                            .unprepare(claim("demo", uid, name))
                            .getClaimsOrThrow(uid)
                            .getError();
                    if (!un.isEmpty()) {
                      failures.add("unprepare " + name + ": " + un);
                    }
                  } catch (RuntimeException e) {
                    failures.add(name + ": " + e);
                  }
                  rounds.incrementAndGet();
                }
              }));
    }
    awaitRounds(rounds, 6);

    // the new pod starts next to the old one and registers
    DraPlugin fresh = start(NEW_POD);
    Path newEndpoint = kubelet.register(fresh.sockets().registrationSocket(), DRIVER);
    assertThat(newEndpoint).isNotEqualTo(oldEndpoint);
    assertThat(fresh.sockets().dataDir()).isEqualTo(old.sockets().dataDir());
    DraTestBed.await("the kubelet calls the new pod", () -> kubelet.pick().equals(newEndpoint));
    awaitRounds(rounds, rounds.get() + 6);

    // SIGTERM to the old pod, mid-stream
    old.close();
    plugins.remove(old);
    awaitRounds(rounds, rounds.get() + 6);
    stop.set(true);
    for (Future<?> f : running) {
      f.get();
    }
    workers.shutdown();

    assertThat(failures).isEmpty();
    List<Path> called = kubelet.called();
    assertThat(called).contains(oldEndpoint, newEndpoint);
    assertThat(called.subList(called.lastIndexOf(oldEndpoint) + 1, called.size()))
        .isNotEmpty()
        .containsOnly(newEndpoint);

    // the old pod removed its own sockets only; the new pod's and the slices are in place
    assertThat(old.sockets().registrationSocket()).doesNotExist();
    assertThat(old.sockets().draSocket()).doesNotExist();
    assertThat(fresh.sockets().registrationSocket()).exists();
    assertThat(fresh.sockets().draSocket()).exists();
    assertThat(bed.slices())
        .singleElement()
        .satisfies(s -> assertThat(s.getSpec().getDevices()).hasSize(8));

    // nothing was unprepared by the switch: the running pods' claims are prepared, consistently
    // in the file, in the new pod's state and in the CDI directory
    assertThat(onDisk()).containsOnlyKeys(kept6, kept7);
    assertThat(onDisk().values())
        .allSatisfy(c -> assertThat(c.state()).isEqualTo(ClaimState.PrepareCompleted));
    assertThat(fresh.state().snapshot().preparedClaims()).isEqualTo(onDisk());
    assertThat(cdiSpecs())
        .containsExactlyInAnyOrder(
            "npu.huawei.com-npu_" + kept6 + ".json", "npu.huawei.com-npu_" + kept7 + ".json");

    // the new pod answers for them (the kubelet may prepare again) and unprepares them
    assertThat(
            kubelet
                .prepare(claim("demo", kept6, "kept-6"))
                .getClaimsOrThrow(kept6)
                .getDevices(0)
                .getDeviceName())
        .isEqualTo("npu-6");
    for (String[] k : List.of(new String[] {kept6, "kept-6"}, new String[] {kept7, "kept-7"})) {
      assertThat(kubelet.unprepare(claim("demo", k[0], k[1])).getClaimsOrThrow(k[0]).getError())
          .isEmpty();
    }
    assertThat(onDisk()).isEmpty();
    assertThat(cdiSpecs()).isEmpty();
  }

  @Test
  void twoInstancesPreparingAtOnceLoseNoCheckpointEntry() throws Exception {
    DraPlugin a = start(OLD_POD);
    DraPlugin b = start(NEW_POD);
    List<String> uids = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      uids.add(claimOn("both-" + i, "npu-" + i));
    }
    // every claim to one of the two instances, all at the same moment
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<String>> answers = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Path endpoint = (i % 2 == 0 ? a : b).sockets().draSocket();
      String uid = uids.get(i);
      String name = "both-" + i;
      answers.add(
          pool.submit(
              () -> {
                go.await();
                return kubelet
                    .prepareV1(endpoint, claim("demo", uid, name))
                    .getClaimsOrThrow(uid)
                    .getError();
              }));
    }
    go.countDown();
    for (Future<String> f : answers) {
      assertThat(f.get()).isEmpty();
    }
    pool.shutdown();
    assertThat(onDisk()).containsOnlyKeys(uids);
    assertThat(a.state().snapshot().preparedClaims()).containsOnlyKeys(uids);
    assertThat(b.state().snapshot().preparedClaims()).containsOnlyKeys(uids);

    // a chip one instance handed out is not handed out again by the other
    String twice = claimOn("twice", "npu-0");
    assertThat(
            kubelet
                .prepareV1(b.sockets().draSocket(), claim("demo", twice, "twice"))
                .getClaimsOrThrow(twice)
                .getError())
        .contains("npu-0");

    // each unprepared by the instance that did not prepare it
    for (int i = 0; i < 8; i++) {
      Path endpoint = (i % 2 == 0 ? b : a).sockets().draSocket();
      assertThat(
              kubelet
                  .unprepareV1(endpoint, claim("demo", uids.get(i), "both-" + i))
                  .getClaimsOrThrow(uids.get(i))
                  .getError())
          .isEmpty();
    }
    assertThat(onDisk()).isEmpty();
    assertThat(a.state().snapshot().preparedClaims()).isEmpty();
    assertThat(cdiSpecs()).isEmpty();
  }

  @Test
  void whenTheNewPodGoesAwayTheKubeletCallsTheOldOneAgain() throws Exception {
    DraPlugin old = start(OLD_POD);
    Path oldEndpoint = kubelet.register(old.sockets().registrationSocket(), DRIVER);
    DraPlugin fresh = start(NEW_POD);
    Path newEndpoint = kubelet.register(fresh.sockets().registrationSocket(), DRIVER);
    DraTestBed.await("the kubelet calls the new pod", () -> kubelet.pick().equals(newEndpoint));
    String uid = claimOn("rollback", "npu-2");
    assertThat(kubelet.prepare(claim("demo", uid, "rollback")).getClaimsOrThrow(uid).getError())
        .isEmpty();

    fresh.close(); // a failed new version, rolled back
    plugins.remove(fresh);
    assertThat(kubelet.pick()).isEqualTo(oldEndpoint);
    assertThat(kubelet.unprepare(claim("demo", uid, "rollback")).getClaimsOrThrow(uid).getError())
        .isEmpty();
    assertThat(onDisk()).isEmpty();
    // a second registration of an endpoint already registered is refused, as the kubelet does
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> kubelet.register(old.sockets().registrationSocket(), DRIVER))
        .hasMessageContaining("already registered");
  }

  private static void awaitRounds(AtomicInteger rounds, int atLeast) throws InterruptedException {
    DraTestBed.await(atLeast + " prepare/unprepare rounds", () -> rounds.get() >= atLeast);
  }
}
