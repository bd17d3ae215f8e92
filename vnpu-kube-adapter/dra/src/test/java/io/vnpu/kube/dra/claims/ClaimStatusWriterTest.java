package io.vnpu.kube.dra.claims;

import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraClaims.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code status.devices} of a prepared claim when the API server changed the claim behind the
 * plugin's back between the prepare's read and the status write (CRUD mock API server).
 */
@EnableKubernetesMockClient(crud = true)
class ClaimStatusWriterTest {
  private static final String DRIVER = "npu.huawei.com";
  private static final String NODE = "node-1";

  KubernetesClient client;

  private final List<PreparedDevice> devices =
      List.of(new PreparedDevice(List.of("npu"), NODE, "npu-3", null, 3, false, List.of()));

  private ResourceClaim create(ResourceClaim c) {
    return ResourceClaims.of(client).inNamespace("demo").resource(c).create();
  }

  private ResourceClaim read() {
    return ResourceClaims.named(client, "demo", "c").get();
  }

  /** The claim as the prepare read it: allocated to npu-3. */
  private ResourceClaim readForPrepare() {
    create(
        allocated(
            "demo",
            "c",
            "11111111-0000-0000-0000-000000000001",
            List.of(result("npu", DRIVER, NODE, "npu-3"))));
    return read();
  }

  @Test
  void theStatusOfThePreparedClaimIsWritten() {
    ResourceClaim prepared = readForPrepare();
    new ClaimStatusWriter(client, DRIVER, NODE).prepared(prepared, devices, n -> Optional.empty());
    assertThat(read().getStatus().getDevices())
        .singleElement()
        .satisfies(d -> assertThat(d.getDevice()).isEqualTo("npu-3"));
  }

  /**
   * The claim was deleted and created again under its name (another UID) before the status write:
   * the new claim, not yet allocated, has no status at all. The write threw a NullPointerException
   * out of the prepare, so the kubelet got UNKNOWN for claims that were prepared.
   */
  @Test
  void aClaimReplacedByOneWithoutStatusIsLeftAsItIs() {
    ResourceClaim prepared = readForPrepare();
    ResourceClaims.named(client, "demo", "c").delete();
    create(
        new ResourceClaimBuilder()
            .withNewMetadata()
            .withNamespace("demo")
            .withName("c")
            .withUid("22222222-0000-0000-0000-000000000002")
            .endMetadata()
            .withNewSpec()
            .withNewDevices()
            .endDevices()
            .endSpec()
            .build());

    new ClaimStatusWriter(client, DRIVER, NODE).prepared(prepared, devices, n -> Optional.empty());

    ResourceClaim now = read();
    assertThat(now.getMetadata().getUid()).isNotEqualTo(prepared.getMetadata().getUid());
    assertThat(now.getStatus() == null || now.getStatus().getDevices() == null).isTrue();
  }

  /**
   * The replacement is allocated (the same device, another claim): the status of the claim that was
   * prepared was written onto it.
   */
  @Test
  void aReplacedClaimNeverGetsTheStatusOfTheOneThatWasPrepared() {
    ResourceClaim prepared = readForPrepare();
    ResourceClaims.named(client, "demo", "c").delete();
    create(
        allocated(
            "demo",
            "c",
            "33333333-0000-0000-0000-000000000003",
            List.of(result("npu", DRIVER, NODE, "npu-3"))));

    new ClaimStatusWriter(client, DRIVER, NODE).prepared(prepared, devices, n -> Optional.empty());

    ResourceClaim now = read();
    assertThat(now.getMetadata().getUid()).isNotEqualTo(prepared.getMetadata().getUid());
    assertThat(now.getStatus().getDevices()).isNullOrEmpty();
  }
}
