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
 * HAMi mode's policy on the allocation annotations, its CEL evaluated as the API server does: what
 * the HAMi scheduler charged a pod (devices-to-allocate, devices-allocated, the huawei.com vNPU
 * list, the bind phase) is written only by the scheduler and the agent, never by the tenant editing
 * or creating its own pod.
 */
class HamiAllocationPolicyTest {
  static final String TO_ALLOCATE = "hami.io/Ascend910B3-devices-to-allocate";
  static final String ALLOCATED = "hami.io/Ascend910B3-devices-allocated";
  static final String VNPUS = "huawei.com/Ascend910B3";
  static final String PHASE = "hami.io/bind-phase";
  static final String TENANT = "system:serviceaccount:team-a:default";
  static final String SCHEDULER = "system:serviceaccount:kube-system:hami-scheduler";
  static final String AGENT = "system:serviceaccount:kube-system:vnpu-device-plugin";

  static List<HasMetadata> objects;
  static ValidatingAdmissionPolicy policy;

  @BeforeAll
  static void render() {
    objects = ChartObjects.render(Map.of("mode", "hami"));
    policy =
        objects.stream()
            .filter(ValidatingAdmissionPolicy.class::isInstance)
            .map(ValidatingAdmissionPolicy.class::cast)
            .filter(p -> p.getMetadata().getName().endsWith("-hami-allocation"))
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

  /** As the scheduler leaves a pod it bound: 8192 MiB and 10 % of one chip. */
  static Map<String, String> bound() {
    Map<String, String> a = new LinkedHashMap<>();
    a.put(TO_ALLOCATE, "uuid-0,Ascend910B3,8192,10:;");
    a.put(ALLOCATED, "uuid-0,Ascend910B3,8192,10:;");
    a.put(VNPUS, "[{\"UUID\":\"uuid-0\",\"temp\":\"\"}]");
    a.put(PHASE, "allocating");
    a.put("team-a/own", "x");
    return a;
  }

  static Map<String, String> with(String key, String value) {
    Map<String, String> a = bound();
    if (value == null) a.remove(key);
    else a.put(key, value);
    return a;
  }

  @Test
  void boundToDenyOnPodCreatesAndUpdates() {
    assertThat(objects)
        .filteredOn(ValidatingAdmissionPolicyBinding.class::isInstance)
        .map(ValidatingAdmissionPolicyBinding.class::cast)
        .filteredOn(b -> b.getSpec().getPolicyName().equals(policy.getMetadata().getName()))
        .singleElement()
        .satisfies(b -> assertThat(b.getSpec().getValidationActions()).containsExactly("Deny"));
    assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Fail");
    assertThat(policy.getSpec().getMatchConstraints().getResourceRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getResources()).containsExactly("pods");
              assertThat(r.getOperations()).containsExactly("CREATE", "UPDATE");
            });
    assertThat(ChartObjects.render(Map.of("mode", "mindcluster")))
        .noneMatch(o -> o.getMetadata().getName().endsWith("-hami-allocation"));
  }

  @Test
  void aTenantCannotRaiseRepointRemoveOrForgeItsAllocation() throws Exception {
    Pod before = pod(bound());
    assertThat(
            admit(
                    policy,
                    "UPDATE",
                    TENANT,
                    null,
                    pod(with(TO_ALLOCATE, "uuid-0,Ascend910B3,65536,100:;")),
                    before)
                .denials())
        .containsExactly(
            "pod team-a/infer: annotation "
                + TO_ALLOCATE
                + " = \"uuid-0,Ascend910B3,65536,100:;\": only the HAMi scheduler and the device plugin write what a"
                + " pod was charged ("
                + TENANT
                + " may not)");
    assertThat(
            admit(
                    policy,
                    "UPDATE",
                    TENANT,
                    null,
                    pod(with(ALLOCATED, "uuid-1,Ascend910B3,8192,10:;")),
                    before)
                .allowed())
        .isFalse();
    assertThat(
            admit(
                    policy,
                    "UPDATE",
                    TENANT,
                    null,
                    pod(with(VNPUS, "[{\"UUID\":\"uuid-1\"}]")),
                    before)
                .allowed())
        .isFalse();
    assertThat(admit(policy, "UPDATE", TENANT, null, pod(with(PHASE, "success")), before).allowed())
        .isFalse();
    assertThat(
            admit(policy, "UPDATE", TENANT, null, pod(with(TO_ALLOCATE, null)), before).denials())
        .singleElement()
        .asString()
        .contains(TO_ALLOCATE + " = (removed)");
    // a pod created already "bound", with allocation annotations the tenant wrote
    assertThat(admit(policy, "CREATE", TENANT, null, pod(bound()), null).allowed()).isFalse();
  }

  @Test
  void theSchedulerAndTheAgentStillWriteAndTenantsKeepTheirOwnAnnotations() throws Exception {
    Pod before = pod(bound());
    assertThat(
            admit(
                    policy,
                    "UPDATE",
                    SCHEDULER,
                    null,
                    pod(with(TO_ALLOCATE, "uuid-1,Ascend910B3,4096,5:;")),
                    before)
                .allowed())
        .isTrue();
    // the agent erases what it handed out and sets the bind phase
    Map<String, String> handled = with(TO_ALLOCATE, ";");
    handled.put(PHASE, "success");
    assertThat(admit(policy, "UPDATE", AGENT, null, pod(handled), before).allowed()).isTrue();
    // the tenant's own annotations, and a plain pod created by anyone
    assertThat(
            admit(policy, "UPDATE", TENANT, null, pod(with("team-a/own", "y")), before).allowed())
        .isTrue();
    assertThat(
            admit(policy, "CREATE", TENANT, null, pod(Map.of("team-a/own", "x")), null).allowed())
        .isTrue();
    Pod bare =
        new PodBuilder()
            .withNewMetadata()
            .withName("bare")
            .withNamespace("team-a")
            .endMetadata()
            .build();
    assertThat(admit(policy, "CREATE", TENANT, null, bare, null).allowed()).isTrue();
  }
}
