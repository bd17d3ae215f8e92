package io.vnpu.kube.hami.codec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The RuntimeInfo entries of the container being allocated. The annotation has one entry per
 * allocated device across all containers, in container order (protocol spec section 3.3), so two
 * containers of one pod on the same NPU have two entries with that NPU's UUID; keyed by UUID alone
 * both would get the last one (16384 MiB / 25 % each where the scheduler charged 8192 / 10 and
 * 16384 / 25). The containers already served are empty in {@code devices-to-allocate}; so the
 * container's entry for UUID {@code U} is entry number {@code n - r} among the entries of {@code
 * U}, with {@code n} their count and {@code r} the pending containers (this one included) that use
 * {@code U}. Pure.
 */
public final class ContainerRuntimeInfo {
  private ContainerRuntimeInfo() {}

  /**
   * @param entries the annotation's entries ({@link RuntimeInfoCodec#decodeEntries})
   * @param pending {@code devices-to-allocate} before the container is popped
   * @param next the container being allocated ({@link PodDevices#next()})
   * @return the container's entry per device UUID; a UUID without entry is absent (the charge
   *     applies); fewer entries than containers (not what HAMi writes) give the first of them
   */
  public static Map<String, RuntimeInfo> select(
      List<RuntimeInfo> entries, PodDevices pending, PendingContainer next) {
    Map<String, RuntimeInfo> out = new LinkedHashMap<>();
    for (ContainerDevice d : next.devices()) {
      List<RuntimeInfo> ofUuid = new ArrayList<>();
      for (RuntimeInfo e : entries) {
        if (e.uuid().equals(d.uuid())) ofUuid.add(e);
      }
      if (ofUuid.isEmpty()) continue;
      int users = 0;
      for (int i = next.index(); i < pending.containers().size(); i++) {
        if (pending.containers().get(i).stream().anyMatch(o -> o.uuid().equals(d.uuid()))) users++;
      }
      int at = Math.max(0, Math.min(ofUuid.size() - 1, ofUuid.size() - users));
      out.put(d.uuid(), ofUuid.get(at));
    }
    return out;
  }
}
