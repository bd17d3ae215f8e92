package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.NODE;
import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.nodeAnnotations;
import static io.vnpu.kube.hami.KubeFixtures.pod;
import static io.vnpu.kube.hami.KubeFixtures.podAnnotations;
import static io.vnpu.kube.hami.KubeFixtures.uid;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.kube.hami.bind.StaleBindReaper;
import io.vnpu.kube.hami.kube.PodBindingClient;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pod sweep: directories of deleted, Succeeded and Failed pods are removed (links as links),
 * those of live pods kept; a bind whose pod ended or vanished gets {@code failed} and its node lock
 * is released; a live owner keeps its lock.
 */
@EnableKubernetesMockClient(crud = true)
class NodePodSweepMockServerTest {
  KubernetesClient client;

  @TempDir Path tmp;

  private NodePodSweep sweep(Path root) {
    return new NodePodSweep(
        client,
        NODE,
        new io.vnpu.kube.softslice.SoftSlices(
            new io.vnpu.kube.softslice.SoftSliceLayout(
                root,
                tmp.resolve("registry"),
                "/hami-vnpu-shmem",
                "/hami-shared-region",
                io.vnpu.kube.limiter.LimiterFiles.hami(tmp.resolve("limiter"))),
            (region, config) -> 1L,
            () -> {}),
        new StaleBindReaper(client, new PodBindingClient(client, NODE), NODE),
        Duration.ofSeconds(60));
  }

  private void phase(String name, String phase) {
    Pod p = client.pods().inNamespace("default").withName(name).get();
    client
        .pods()
        .inNamespace("default")
        .resource(new PodBuilder(p).editStatus().withPhase(phase).endStatus().build())
        .updateStatus();
  }

  private Path dir(Path root, String uid, String container) throws Exception {
    Path d = Files.createDirectories(root.resolve(uid + "_" + container));
    Files.write(d.resolve("vnpu_local_shmem"), new byte[4096]);
    return d;
  }

  @Test
  void removesDirectoriesOfDeletedAndFinishedPodsOnly() throws Exception {
    node(client, Map.of());
    Path root = Files.createDirectories(tmp.resolve("hook/containers"));
    pod(client, "running", 1L, Map.of("hami.io/bind-phase", "success"), List.of(), List.of("main"));
    pod(client, "pending", 2L, Map.of(), List.of(), List.of("main"));
    pod(client, "done", 3L, Map.of("hami.io/bind-phase", "success"), List.of(), List.of("main"));
    pod(client, "failed", 4L, Map.of("hami.io/bind-phase", "success"), List.of(), List.of("main"));
    phase("running", "Running");
    phase("done", "Succeeded");
    phase("failed", "Failed");
    Path running = dir(root, uid(client, "running"), "main");
    Path pending = dir(root, uid(client, "pending"), "main");
    Path done = dir(root, uid(client, "done"), "main");
    Path failed = dir(root, uid(client, "failed"), "main");
    Path gone = dir(root, "6f1c2b7e-0000-4000-8000-000000000001", "main");
    Path notOurs = Files.createDirectories(root.resolve("lost+found"));
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("keep"), "keep");
    Path link =
        Files.createSymbolicLink(
            root.resolve("6f1c2b7e-0000-4000-8000-000000000002_main"), outside);

    NodePodSweep.Outcome o = sweep(root).runOnce();

    assertThat(o.removedDirs()).containsExactlyInAnyOrder(done, failed, gone, link);
    assertThat(running).isDirectory();
    assertThat(pending).isDirectory();
    assertThat(notOurs).isDirectory();
    assertThat(Files.exists(link, LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.readString(outside.resolve("keep"))).isEqualTo("keep");
    assertThat(o.bindActions()).isEmpty();
  }

  @Test
  void missingRootIsNoWork() throws Exception {
    node(client, Map.of());
    assertThat(sweep(tmp.resolve("absent")).runOnce().removedDirs()).isEmpty();
  }

  // a multi-container pod the kubelet rejected after its first Allocate
  @Test
  void terminalLockOwnerGetsFailedAndTheLockIsReleased() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,rejected"));
    pod(
        client,
        "rejected",
        1L,
        Map.of("hami.io/Ascend910-devices-to-allocate", ";uuid2,Ascend910,1024,10:;"),
        List.of(),
        List.of("a", "b"));
    phase("rejected", "Failed");
    NodePodSweep.Outcome o = sweep(tmp.resolve("absent")).runOnce();
    assertThat(o.bindActions())
        .containsExactly(
            "bind-phase failed: default/rejected",
            "released node lock of default/rejected (pod ended)");
    assertThat(podAnnotations(client, "rejected")).containsEntry("hami.io/bind-phase", "failed");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  @Test
  void lockOfAGonePodIsReleasedAndALiveOwnerKeepsIt() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,vanished"));
    assertThat(sweep(tmp.resolve("absent")).runOnce().bindActions())
        .containsExactly("released node lock of default/vanished (pod gone)");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");

    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,binding"));
    pod(client, "binding", 1L, Map.of(), List.of(), List.of("main"));
    // a finished pod elsewhere in the list still allocating gets failed, without touching the lock
    pod(client, "old", 2L, Map.of(), List.of(), List.of("main"));
    phase("old", "Succeeded");
    assertThat(sweep(tmp.resolve("absent")).runOnce().bindActions())
        .containsExactly("bind-phase failed: default/old");
    assertThat(nodeAnnotations(client))
        .containsEntry("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,binding");
    assertThat(podAnnotations(client, "binding")).containsEntry("hami.io/bind-phase", "allocating");
  }

  // the sweep's first round is at start-up, the next one a period later
  @Test
  void runsAtStartThenEveryPeriod() throws Exception {
    RecordingScheduler scheduler = new RecordingScheduler();
    PeriodicTask task =
        new PeriodicTask(
            "pod sweep", scheduler, sweep(tmp.resolve("absent"))::round, Duration.ofSeconds(60));
    task.start(Duration.ZERO);
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ZERO);
    scheduler.runNext();
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ofSeconds(60));
  }
}
