package io.vnpu.kube.cli.node;

import io.vnpu.api.model.Npu;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which NPU a user named on the command line ({@code --device}): a DCMI logic ID ({@code 0}), a phy
 * ID ({@code phy:3}) or the die UUID {@code vnpu devices} prints ({@code
 * XXXXXXXX-XXXXXXXX-XXXXXXXX-XXXXXXXX-XXXXXXXX}, from {@code dcmi_get_die_id}). Logic IDs shift
 * when a chip drops out; the UUID never does.
 */
public sealed interface DeviceRef {

  /** What the user typed, for messages. */
  String text();

  /** Whether {@code npu} is the one named. */
  boolean matches(Npu npu);

  /** What kind of ID this is and the IDs of that kind on {@code npus}, for an error message. */
  String available(List<Npu> npus);

  /** A logic ID, 0 or more. */
  record Logic(int logicId) implements DeviceRef {
    public String text() {
      return Integer.toString(logicId);
    }

    public boolean matches(Npu npu) {
      return npu.logicId() == logicId;
    }

    public String available(List<Npu> npus) {
      return "no NPU with logic ID "
          + logicId
          + " (this node has logic IDs "
          + npus.stream().map(n -> Integer.toString(n.logicId())).toList()
          + ")";
    }
  }

  /** A phy ID, written {@code phy:N}. */
  record Phy(int phyId) implements DeviceRef {
    public String text() {
      return "phy:" + phyId;
    }

    public boolean matches(Npu npu) {
      return npu.phyId() == phyId;
    }

    public String available(List<Npu> npus) {
      return "no NPU with phy ID "
          + phyId
          + " (this node has phy IDs "
          + npus.stream().map(n -> Integer.toString(n.phyId())).toList()
          + ")";
    }
  }

  /** A die UUID, compared without regard to case. */
  record Uuid(String uuid) implements DeviceRef {
    public String text() {
      return uuid;
    }

    public boolean matches(Npu npu) {
      return npu.uuid() != null && npu.uuid().equalsIgnoreCase(uuid);
    }

    public String available(List<Npu> npus) {
      return "no NPU with UUID " + uuid + " (see 'vnpu devices' for the UUIDs)";
    }
  }

  /** Hex words and dashes: the die UUID's alphabet. */
  Pattern UUID = Pattern.compile("[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{8})+");

  /** A non-negative decimal integer. */
  Pattern NUMBER = Pattern.compile("[0-9]{1,9}");

  /**
   * Parses {@code --device}'s value.
   *
   * @throws IllegalArgumentException naming the value and the accepted forms
   */
  static DeviceRef parse(String value) {
    String v = value.strip();
    if (NUMBER.matcher(v).matches()) return new Logic(Integer.parseInt(v));
    String lower = v.toLowerCase(Locale.ROOT);
    if (lower.startsWith("phy:") && NUMBER.matcher(v.substring(4)).matches()) {
      return new Phy(Integer.parseInt(v.substring(4)));
    }
    if (UUID.matcher(v).matches()) return new Uuid(v);
    throw new IllegalArgumentException(
        "'"
            + value
            + "': expected a logic ID (0 or more), phy:N or a die UUID as 'vnpu devices' prints it");
  }

  /**
   * The NPU named among {@code npus} (the node's, from {@code DeviceManager.discover()}).
   *
   * @throws IllegalArgumentException naming the value and what the node has, when none matches
   */
  default Npu resolve(List<Npu> npus) {
    return npus.stream()
        .filter(this::matches)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(available(npus)));
  }
}
