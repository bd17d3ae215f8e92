package io.vnpu.kube.faults;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.FaultUpgrade;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The device-info ConfigMap key {@code UpgradeFaultReason} (vnpu DCMI spec section 3.6): a JSON
 * object from chip name to the escalations in force, each
 * {@code {"fault_code":"81078603","fault_level":"PreSeparateNPU","upgrade_type":"FaultDuration","upgrade_time":<unix ms>}}.
 * Chips without an escalation are left out.
 */
public final class UpgradeFaultReasonCodec {
  private static final ObjectMapper JSON = new ObjectMapper();

  private UpgradeFaultReasonCodec() {
  }

  /**
   * @param health    the health source's snapshot by logic ID
   * @param chipNames device name by logic ID, e.g. {@code Ascend910-0}
   */
  public static String encode(Map<Integer, ChipHealth> health, Map<Integer, String> chipNames) {
    ObjectNode root = JSON.createObjectNode();
    Map<String, ChipHealth> byName = new TreeMap<>();
    health.forEach((logic, h) -> {
      if (!h.upgrades().isEmpty()) byName.put(chipNames.getOrDefault(logic, "logic-" + logic), h);
    });
    byName.forEach((name, h) -> {
      ArrayNode list = root.putArray(name);
      for (FaultUpgrade u : h.upgrades()) {
        list.addObject().put("fault_code", u.code().hex()).put("fault_level", u.level().term())
            .put("upgrade_type", u.type().name()).put("upgrade_time", u.time().toEpochMilli());
      }
    });
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
