package io.vnpu.kube.dra.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.dra.state.PrepareOutcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link DraServiceV1beta1} sends {@link DraServiceV1}'s answers as v1beta1 messages by their wire
 * bytes: that holds only while the two wire tables agree field by field, v1 adding nothing but
 * {@code Device.share_id}.
 */
class DraWireVersionsTest {

  @Test
  void theV1beta1WireTableIsV1sWithoutShareId() {
    List<String> v1 = fields(io.vnpu.kube.dra.proto.v1.DraV1.getDescriptor().getMessageTypes());
    List<String> v1beta1 =
        fields(io.vnpu.kube.dra.proto.v1beta1.DraV1Beta1.getDescriptor().getMessageTypes());
    List<String> v1WithoutShareId = new ArrayList<>(v1);
    assertThat(v1WithoutShareId.removeIf(f -> f.startsWith("Device.share_id ")))
        .as("v1 Device.share_id")
        .isTrue();
    assertThat(v1beta1).containsExactlyInAnyOrderElementsOf(v1WithoutShareId);
  }

  @Test
  void aV1beta1AnswerHasTheV1ContentWithoutShareIds() {
    Map<String, PrepareOutcome> outcomes = new LinkedHashMap<>();
    outcomes.put(
        "uid-a",
        PrepareOutcome.prepared(
            List.of(
                new PreparedDevice(
                    List.of("npu"),
                    "node-1",
                    "npu-3",
                    "share-1",
                    3,
                    false,
                    List.of("npu.huawei.com/npu=uid-a-npu-3-share-1")))));
    outcomes.put("uid-b", PrepareOutcome.failed("no such device"));

    var beta =
        DraServiceV1beta1.asV1beta1(
            DraServiceV1.prepared(outcomes, false),
            io.vnpu.kube.dra.proto.v1beta1.NodePrepareResourcesResponse.parser());

    assertThat(beta.getUnknownFields().asMap()).isEmpty();
    var a = beta.getClaimsOrThrow("uid-a");
    assertThat(a.getError()).isEmpty();
    assertThat(a.getDevicesList()).hasSize(1);
    var d = a.getDevices(0);
    assertThat(d.getUnknownFields().asMap()).as("no share_id on the v1beta1 wire").isEmpty();
    assertThat(d.getRequestNamesList()).containsExactly("npu");
    assertThat(d.getPoolName()).isEqualTo("node-1");
    assertThat(d.getDeviceName()).isEqualTo("npu-3");
    assertThat(d.getCdiDeviceIdsList()).containsExactly("npu.huawei.com/npu=uid-a-npu-3-share-1");
    assertThat(beta.getClaimsOrThrow("uid-b").getError()).isEqualTo("no such device");

    var v1 = DraServiceV1.prepared(outcomes, true);
    assertThat(v1.getClaimsOrThrow("uid-a").getDevices(0).getShareId()).isEqualTo("share-1");
  }

  /** {@code Message.field number type label} of every field, nested messages included. */
  private static List<String> fields(List<Descriptor> messages) {
    List<String> out = new ArrayList<>();
    for (Descriptor m : messages) {
      for (FieldDescriptor f : m.getFields()) {
        out.add(
            m.getName()
                + "."
                + f.getName()
                + " "
                + f.getNumber()
                + " "
                + f.getType()
                + " "
                + (f.isRepeated() ? "repeated" : "single")
                + (f.getType() == FieldDescriptor.Type.MESSAGE
                    ? " " + f.getMessageType().getName()
                    : ""));
      }
      out.addAll(fields(m.getNestedTypes()));
    }
    return out;
  }
}
