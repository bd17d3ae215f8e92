package io.vnpu.kube.dra.vnpu;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * The hard vNPU of one prepared (device, shareID), as recorded in the checkpoint.
 *
 * @param logicId DCMI logic ID of the physical NPU it lives on; {@link #UNRESOLVED} in a record
 *     rebuilt from a CDI spec before DCMI was open (resolved from the device name when the records
 *     are checked through DCMI)
 * @param template template name chosen by {@code ChipConfig.trim}, e.g. {@code vir10_3c_16g}
 * @param memoryMib the template's memory in MiB (what the chip is charged); 0 while unresolved
 * @param vnpuId the vNPU ID DCMI returned ({@code /dev/vdavinci<vnpuId>}); null while not created
 *     yet
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record VnpuRecord(int logicId, String template, long memoryMib, Integer vnpuId) {
  public VnpuRecord {
    Objects.requireNonNull(template, "template");
  }

  /** {@link #logicId} of a record whose chip is not known yet. */
  public static final int UNRESOLVED = -1;

  /** Whether the record names its chip and memory (see {@link #UNRESOLVED}). */
  @JsonIgnore
  public boolean resolved() {
    return logicId != UNRESOLVED;
  }

  /** The same vNPU on the chip with {@code logicId}, charged {@code mib} MiB. */
  public VnpuRecord on(int logicId, long mib) {
    return new VnpuRecord(logicId, template, mib, vnpuId);
  }

  /** The same record after DCMI created the vNPU. */
  public VnpuRecord created(int id) {
    return new VnpuRecord(logicId, template, memoryMib, id);
  }
}
