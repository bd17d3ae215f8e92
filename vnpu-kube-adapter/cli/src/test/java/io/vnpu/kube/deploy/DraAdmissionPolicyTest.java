package io.vnpu.kube.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchCondition;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vnpu.kube.testing.ChartObjects;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart's ValidatingAdmissionPolicies of DRA mode, their CEL evaluated as the API server does
 * (matchConditions, then variables in order, then validations; any false or error denies): each
 * node's plugin writes the ResourceSlices of its own node only, and the status of claims allocated
 * on its node only, changing nothing but its driver's {@code status.devices} entries.
 */
class DraAdmissionPolicyTest {
  static final String USER = "system:serviceaccount:kube-system:vnpu-dra-kubeletplugin";
  static final String DRIVER = "npu.huawei.com";
  static final String NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name";

  static final CelCompiler CEL =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("request", SimpleType.DYN)
          .addVar("object", SimpleType.DYN)
          .addVar("oldObject", SimpleType.DYN)
          .addVar("variables", SimpleType.DYN)
          .build();
  static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

  static List<HasMetadata> objects;
  static ValidatingAdmissionPolicy slices;
  static ValidatingAdmissionPolicy claimStatus;

  @BeforeAll
  static void render() {
    objects = ChartObjects.render(Map.of("mode", "dra"));
    List<ValidatingAdmissionPolicy> policies =
        objects.stream()
            .filter(ValidatingAdmissionPolicy.class::isInstance)
            .map(ValidatingAdmissionPolicy.class::cast)
            .toList();
    assertThat(policies).hasSize(2);
    slices =
        policies.stream()
            .filter(p -> p.getMetadata().getName().endsWith("-resourceslices"))
            .findFirst()
            .orElseThrow();
    claimStatus =
        policies.stream()
            .filter(p -> p.getMetadata().getName().endsWith("-claim-status"))
            .findFirst()
            .orElseThrow();
  }

  /** What the API server decides: not matched, allowed, or denied with the failed messages. */
  record Verdict(boolean matched, List<String> denials) {
    boolean allowed() {
      return matched && denials.isEmpty();
    }
  }

  static Object eval(String expression, Map<String, Object> activation) throws Exception {
    return RUNTIME.createProgram(CEL.compile(expression).getAst()).eval(activation);
  }

  static Verdict admit(
      ValidatingAdmissionPolicy p,
      String operation,
      String user,
      String node,
      Object object,
      Object oldObject)
      throws Exception {
    Map<String, Object> extra = new HashMap<>();
    if (node != null) {
      extra.put(NODE_NAME_EXTRA, List.of(node));
    }
    Map<String, Object> activation = new HashMap<>();
    activation.put(
        "request",
        Map.of("operation", operation, "userInfo", Map.of("username", user, "extra", extra)));
    activation.put(
        "object", object == null ? dev.cel.common.values.NullValue.NULL_VALUE : cel(object));
    activation.put(
        "oldObject",
        oldObject == null ? dev.cel.common.values.NullValue.NULL_VALUE : cel(oldObject));
    Map<String, Object> variables = new LinkedHashMap<>();
    activation.put("variables", variables);
    for (MatchCondition m : p.getSpec().getMatchConditions()) {
      if (!Boolean.TRUE.equals(eval(m.getExpression(), activation))) {
        return new Verdict(false, List.of());
      }
    }
    for (Variable v : p.getSpec().getVariables()) {
      variables.put(v.getName(), eval(v.getExpression(), activation));
    }
    List<String> denials = new ArrayList<>();
    for (Validation v : p.getSpec().getValidations()) {
      Object r;
      try {
        r = eval(v.getExpression(), activation);
      } catch (Exception e) {
        denials.add("error: " + e.getMessage());
        continue;
      }
      if (!Boolean.TRUE.equals(r)) {
        String message = v.getMessage();
        if (v.getMessageExpression() != null) {
          message = String.valueOf(eval(v.getMessageExpression(), activation));
        }
        denials.add(message);
      }
    }
    return new Verdict(true, denials);
  }

  /** An object as the API server hands it to CEL: JSON maps and lists, integers as int64. */
  static Object cel(Object object) {
    return ints(Serialization.unmarshal(Serialization.asJson(object), Map.class));
  }

  @SuppressWarnings("unchecked")
  private static Object ints(Object o) {
    if (o instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      ((Map<String, Object>) m).forEach((k, v) -> out.put(k, ints(v)));
      return out;
    }
    if (o instanceof List<?> l) {
      return l.stream().map(DraAdmissionPolicyTest::ints).toList();
    }
    if (o instanceof Integer i) {
      return i.longValue();
    }
    return o;
  }

  static ResourceSlice slice(String node, String driver) {
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName(node + "-slice")
        .endMetadata()
        .withNewSpec()
        .withDriver(driver)
        .withNodeName(node)
        .withNewPool()
        .withName(node)
        .withGeneration(1L)
        .withResourceSliceCount(1L)
        .endPool()
        .addNewDevice()
        .withName("npu-0")
        .endDevice()
        .endSpec()
        .build();
  }

  @Test
  void bothPoliciesAreBoundToDeny() {
    for (ValidatingAdmissionPolicy p : List.of(slices, claimStatus)) {
      assertThat(objects)
          .filteredOn(ValidatingAdmissionPolicyBinding.class::isInstance)
          .map(ValidatingAdmissionPolicyBinding.class::cast)
          .filteredOn(b -> b.getSpec().getPolicyName().equals(p.getMetadata().getName()))
          .singleElement()
          .satisfies(b -> assertThat(b.getSpec().getValidationActions()).containsExactly("Deny"));
      assertThat(p.getSpec().getFailurePolicy()).isEqualTo("Fail");
    }
    assertThat(slices.getSpec().getMatchConstraints().getResourceRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getResources()).containsExactly("resourceslices");
              assertThat(r.getOperations()).containsExactly("CREATE", "UPDATE", "DELETE");
            });
    assertThat(claimStatus.getSpec().getMatchConstraints().getResourceRules())
        .singleElement()
        .satisfies(r -> assertThat(r.getResources()).containsExactly("resourceclaims/status"));
  }

  @Test
  void aPluginWritesTheResourceSlicesOfItsOwnNodeOnly() throws Exception {
    ResourceSlice own = slice("node-1", DRIVER);
    ResourceSlice other = slice("node-2", DRIVER);
    assertThat(admit(slices, "CREATE", USER, "node-1", own, null).allowed()).isTrue();
    assertThat(admit(slices, "UPDATE", USER, "node-1", own, own).allowed()).isTrue();
    assertThat(admit(slices, "DELETE", USER, "node-1", null, own).allowed()).isTrue();

    assertThat(admit(slices, "CREATE", USER, "node-1", other, null).denials())
        .containsExactly(
            "the plugin on node node-1 may write ResourceSlices of its own node only, not node-2");
    assertThat(admit(slices, "UPDATE", USER, "node-1", other, other).allowed()).isFalse();
    assertThat(admit(slices, "DELETE", USER, "node-1", null, other).denials())
        .containsExactly(
            "the plugin on node node-1 may write ResourceSlices of its own node only, not node-2");
    // taking another node's slice over is a write of that node's slice
    assertThat(admit(slices, "UPDATE", USER, "node-1", own, other).allowed()).isFalse();
    assertThat(admit(slices, "UPDATE", USER, "node-1", other, own).allowed()).isFalse();
    // another driver's slice, even on its own node; a token without a node
    assertThat(
            admit(slices, "CREATE", USER, "node-1", slice("node-1", "gpu.example.com"), null)
                .denials())
        .containsExactly(
            "this plugin writes ResourceSlices of driver npu.huawei.com only, not gpu.example.com");
    assertThat(admit(slices, "CREATE", USER, null, own, null).allowed()).isFalse();
    // other users are not this policy's business
    assertThat(
            admit(
                    slices,
                    "CREATE",
                    "system:serviceaccount:kube-system:other",
                    "node-1",
                    other,
                    null)
                .matched())
        .isFalse();
  }

  static ResourceClaim claim(String node) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withNamespace("demo")
        .withName("c")
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .withNewStatus()
        .withNewAllocation()
        .withNewDevices()
        .addNewResult()
        .withRequest("npu")
        .withDriver(DRIVER)
        .withPool(node)
        .withDevice("npu-0")
        .endResult()
        .endDevices()
        .withNodeSelector(
            new io.fabric8.kubernetes.api.model.NodeSelectorBuilder()
                .addNewNodeSelectorTerm()
                .addNewMatchField()
                .withKey("metadata.name")
                .withOperator("In")
                .withValues(node)
                .endMatchField()
                .endNodeSelectorTerm()
                .build())
        .endAllocation()
        .addNewReservedFor()
        .withResource("pods")
        .withName("p")
        .withUid("pu")
        .endReservedFor()
        .addToDevices(
            new AllocatedDeviceStatusBuilder()
                .withDriver("gpu.example.com")
                .withPool(node)
                .withDevice("gpu-0")
                .build())
        .endStatus()
        .build();
  }

  static ResourceClaim withOurDevice(ResourceClaim c) {
    return new ResourceClaimBuilder(c)
        .editStatus()
        .addToDevices(
            new AllocatedDeviceStatusBuilder()
                .withDriver(DRIVER)
                .withPool("node-1")
                .withDevice("npu-0")
                .build())
        .endStatus()
        .build();
  }

  @Test
  void aPluginWritesItsDriversDeviceStatusOfClaimsAllocatedOnItsNodeOnly() throws Exception {
    ResourceClaim before = claim("node-1");
    assertThat(
            admit(claimStatus, "UPDATE", USER, "node-1", withOurDevice(before), before).allowed())
        .isTrue();

    ResourceClaim elsewhere = claim("node-2");
    assertThat(
            admit(claimStatus, "UPDATE", USER, "node-1", withOurDevice(elsewhere), elsewhere)
                .denials())
        .containsExactly(
            "the plugin on node node-1 may write the status of claims"
                + " allocated on its node only");
    ResourceClaim unreserved =
        new ResourceClaimBuilder(withOurDevice(before))
            .editStatus()
            .withReservedFor(List.of())
            .endStatus()
            .build();
    assertThat(admit(claimStatus, "UPDATE", USER, "node-1", unreserved, before).denials())
        .containsExactly("the plugin may not change a claim's allocation or reservedFor");
    ResourceClaim deallocated =
        new ResourceClaimBuilder(before).editStatus().withAllocation(null).endStatus().build();
    assertThat(admit(claimStatus, "UPDATE", USER, "node-1", deallocated, before).allowed())
        .isFalse();
    ResourceClaim foreign =
        new ResourceClaimBuilder(before)
            .editStatus()
            .withDevices(
                new AllocatedDeviceStatusBuilder()
                    .withDriver("gpu.example.com")
                    .withPool("node-1")
                    .withDevice("gpu-1")
                    .build())
            .endStatus()
            .build();
    assertThat(admit(claimStatus, "UPDATE", USER, "node-1", foreign, before).denials())
        .containsExactly(
            "the plugin may change status.devices entries of driver npu.huawei.com" + " only");
  }
}
