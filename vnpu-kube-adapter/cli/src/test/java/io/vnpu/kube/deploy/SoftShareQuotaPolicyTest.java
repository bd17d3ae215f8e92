package io.vnpu.kube.deploy;

import static io.vnpu.kube.deploy.DraAdmissionPolicyTest.admit;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.vnpu.kube.testing.ChartObjects;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MindCluster mode's policy on soft-share pods, its CEL evaluated as the API server does: the
 * {@code huawei.com/scheduler.softShareDev.*} quotas Volcano placed a pod by (and the plugin grants
 * at Allocate) cannot be raised, switched or removed by the tenant editing its own pod afterwards.
 */
class SoftShareQuotaPolicyTest {
  static final String CORE = "huawei.com/scheduler.softShareDev.aicoreQuota";
  static final String HBM = "huawei.com/scheduler.softShareDev.hbmQuota";
  static final String POLICY = "huawei.com/scheduler.softShareDev.policy";
  static final String TENANT = "system:serviceaccount:team-a:default";

  static List<HasMetadata> objects;
  static ValidatingAdmissionPolicy quota;

  @BeforeAll
  static void render() {
    objects = ChartObjects.render(Map.of("mode", "mindcluster"));
    quota =
        objects.stream()
            .filter(ValidatingAdmissionPolicy.class::isInstance)
            .map(ValidatingAdmissionPolicy.class::cast)
            .filter(p -> p.getMetadata().getName().endsWith("-soft-share-quota"))
            .findFirst()
            .orElseThrow();
  }

  static Pod pod(Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("infer")
        .withNamespace("team-a")
        .withAnnotations(new LinkedHashMap<>(annotations))
        .endMetadata()
        .build();
  }

  static Map<String, String> placed() {
    Map<String, String> a = new LinkedHashMap<>();
    a.put(CORE, "10");
    a.put(HBM, "4096");
    a.put(POLICY, "fixed-share");
    a.put("predicate-time", "1700000000000000000");
    return a;
  }

  static Map<String, String> with(String key, String value) {
    Map<String, String> a = placed();
    if (value == null) a.remove(key);
    else a.put(key, value);
    return a;
  }

  @Test
  void boundToDenyOnPodUpdatesOnly() {
    assertThat(objects)
        .filteredOn(ValidatingAdmissionPolicyBinding.class::isInstance)
        .map(ValidatingAdmissionPolicyBinding.class::cast)
        .filteredOn(b -> b.getSpec().getPolicyName().equals(quota.getMetadata().getName()))
        .singleElement()
        .satisfies(b -> assertThat(b.getSpec().getValidationActions()).containsExactly("Deny"));
    assertThat(quota.getSpec().getFailurePolicy()).isEqualTo("Fail");
    // pods only, not pods/status (the kubelet's writes); CREATE sets the quotas Volcano then
    // charges
    assertThat(quota.getSpec().getMatchConstraints().getResourceRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getResources()).containsExactly("pods");
              assertThat(r.getOperations()).containsExactly("UPDATE");
            });
  }

  @Test
  void aTenantCannotRaiseSwitchOrRemoveItsQuotasAfterPlacement() throws Exception {
    Pod before = pod(placed());
    assertThat(admit(quota, "UPDATE", TENANT, null, pod(with(CORE, "100")), before).denials())
        .containsExactly(
            "pod team-a/infer: annotation "
                + CORE
                + " = \"100\": the soft-share quotas are fixed when the pod is"
                + " created (Volcano charged them); recreate the pod to change them");
    assertThat(admit(quota, "UPDATE", TENANT, null, pod(with(HBM, "65536")), before).allowed())
        .isFalse();
    assertThat(admit(quota, "UPDATE", TENANT, null, pod(with(POLICY, "elastic")), before).allowed())
        .isFalse();
    // same number, other spelling: the plugin would parse it alike, but nothing needs it
    assertThat(admit(quota, "UPDATE", TENANT, null, pod(with(CORE, " 10")), before).allowed())
        .isFalse();
    // removing both would make the pod a whole-chip pod to the plugin, with no limiter at all
    Map<String, String> none = placed();
    none.remove(CORE);
    none.remove(HBM);
    none.remove(POLICY);
    assertThat(admit(quota, "UPDATE", TENANT, null, pod(none), before).denials())
        .singleElement()
        .asString()
        .contains(CORE + " = (removed)");
    // adding quotas to a pod placed without them
    assertThat(admit(quota, "UPDATE", TENANT, null, before, pod(none)).allowed()).isFalse();
  }

  @Test
  void volcanoAndThePluginStillWriteTheirAnnotations() throws Exception {
    Pod before = pod(placed());
    Map<String, String> claimed = placed();
    claimed.put("predicate-time", "18446744073709551615");
    claimed.put("huawei.com/AscendReal", "Ascend910-0");
    assertThat(
            admit(
                    quota,
                    "UPDATE",
                    "system:serviceaccount:kube-system:vnpu",
                    null,
                    pod(claimed),
                    before)
                .allowed())
        .isTrue();
    // a pod without soft-share quotas is not this policy's business
    Pod plain = pod(Map.of("predicate-time", "1"));
    assertThat(admit(quota, "UPDATE", TENANT, null, pod(Map.of("x", "y")), plain).matched())
        .isFalse();
    // a pod with no annotations at all
    Pod bare =
        new PodBuilder()
            .withNewMetadata()
            .withName("bare")
            .withNamespace("team-a")
            .endMetadata()
            .build();
    assertThat(admit(quota, "UPDATE", TENANT, null, bare, bare).matched()).isFalse();
  }
}
