package io.vnpu.api.fault;

import java.util.Objects;

/**
 * The text of one fault configuration file as found, with where it came from.
 *
 * @param name what problems name it by, e.g. {@code
 *     configmap/kube-system/mindx-dl-fault-config[faultCode.json]} or a path
 * @param text the JSON text
 * @param lineOffset added to every reported line (line of the embedded text in a manifest minus 1;
 *     0 for a file)
 */
public record FaultConfigDocument(String name, String text, int lineOffset) {
  public FaultConfigDocument {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(text, "text");
    if (lineOffset < 0)
      throw new IllegalArgumentException("lineOffset must be >= 0: " + lineOffset);
  }
}
