package io.vnpu.kube.cli.top;

import io.vnpu.kube.json.JsonMappers;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code vnpu top --json} document: one object with {@code takenAt} (ISO-8601), {@code
 * stateDir}, {@code simulated} and {@code slices[]}; sizes are bytes ({@code *Bytes}), shares
 * percent ({@code *SharePct}, {@code achievedSharePct} null when not measured).
 */
public final class TopJson {

  private final JsonMapper mapper = JsonMappers.indented();

  /** The JSON text of {@code snap}, without a trailing newline. */
  public String write(HostSnapshot snap) {
    ObjectNode root = mapper.createObjectNode();
    root.put("takenAt", snap.takenAt().toString());
    root.put("stateDir", snap.stateDir());
    root.put("simulated", snap.simulated());
    ArrayNode slices = root.putArray("slices");
    for (SliceStatus s : snap.slices()) {
      ObjectNode o = slices.addObject();
      o.put("name", s.name());
      o.put("logicId", s.logicId());
      o.put("memoryUsedBytes", s.memoryUsedBytes());
      o.put("memoryLimitBytes", s.memoryLimitBytes());
      o.put("memoryPeakBytes", s.memoryPeakBytes());
      o.put("oomRejections", s.oomRejections());
      o.put("weight", s.weight());
      o.put("capPct", s.capPct());
      o.put("priority", s.priority().name().toLowerCase(java.util.Locale.ROOT));
      o.put("targetSharePct", round(s.targetSharePct()));
      if (s.achievedSharePct() == null) o.putNull("achievedSharePct");
      else o.put("achievedSharePct", round(s.achievedSharePct()));
      o.put("ownerPid", s.ownerPid());
      o.put("stale", s.stale());
      ArrayNode procs = o.putArray("processes");
      for (ProcessStatus p : s.processes()) {
        procs
            .addObject()
            .put("pid", p.pid())
            .put("memoryUsedBytes", p.memoryUsedBytes())
            .put("command", p.command());
      }
    }
    try {
      return mapper.writeValueAsString(root);
    } catch (JacksonException e) {
      throw new IllegalStateException("a JSON tree of plain values cannot fail to serialise", e);
    }
  }

  private static double round(double pct) {
    return Math.round(pct * 100) / 100.0;
  }
}
