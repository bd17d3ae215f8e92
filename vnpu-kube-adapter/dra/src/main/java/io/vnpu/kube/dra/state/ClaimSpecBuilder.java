package io.vnpu.kube.dra.state;

import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.DeviceNode;
import io.vnpu.api.slice.Mount;
import io.vnpu.kube.dra.cdi.AscendHostLayout;
import io.vnpu.kube.dra.cdi.CdiContainerEdits;
import io.vnpu.kube.dra.cdi.CdiDevice;
import io.vnpu.kube.dra.cdi.CdiEdits;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.cdi.CdiSpec;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.softslice.SoftSliceLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The CDI spec of one prepared claim, from its plan and the host: what the container runtime must
 * add to a container that uses the claim, first as the shared slice model's {@link ContainerEdits},
 * then written as CDI by {@link CdiEdits}.
 *
 * <ul>
 *   <li>Spec level (any device of the claim injected): the management nodes of {@link
 *       AscendHostLayout#MANAGEMENT_NODES}, the driver mounts present on the host, and {@code
 *       NPU_DRA_CLAIM_UID}.
 *   <li>Per device ({@code <claim UID>-npu-<phy>}): {@code /dev/davinci<phy>}, and {@code
 *       ASCEND_VISIBLE_DEVICES} = the phy IDs of every device of the same request, sorted,
 *       comma-separated (all devices of a request set the same value, so the CDI env edits agree; a
 *       container using two requests of one claim sees the value of the last one injected).
 * </ul>
 *
 * Soft shares add the one soft-slice mechanism's edits ({@link SoftSliceLayout}), per device:
 * {@code NPU_LOCAL_SHM_PATH} (the region in the container), {@code NPU_MEM_QUOTA} (MiB of the
 * request's first soft device, for workloads that read it; the limiter takes every device's own
 * limit from the region) and the request's region directory mounted read-write; and at spec level
 * the limiter's directory, {@code /etc/ld.so.preload} and the compute registry directory,
 * read-only.
 *
 * <p>The name of a CDI device is the part after {@code =} of the plan's first CDI ID.
 */
public final class ClaimSpecBuilder {

  private final CdiKind kind;
  private final AscendHostLayout host;
  private final CdiEdits cdi;
  private final SoftSliceLayout soft;

  public ClaimSpecBuilder(CdiKind kind, AscendHostLayout host) {
    this(kind, host, null);
  }

  /**
   * @param soft the soft-share layout; null when soft slicing is off
   */
  public ClaimSpecBuilder(CdiKind kind, AscendHostLayout host, SoftSliceLayout soft) {
    this.kind = Objects.requireNonNull(kind, "kind");
    this.host = Objects.requireNonNull(host, "host");
    this.cdi = new CdiEdits(host.devices());
    this.soft = soft;
  }

  /**
   * The spec, or empty devices list when the claim has no devices of ours (then no file is
   * written).
   *
   * @throws io.vnpu.kube.dra.cdi.MissingDeviceNodeException naming the host path of a device node
   *     that does not exist
   * @throws IOException when a device node cannot be examined
   */
  public java.util.Optional<CdiSpec> build(PreparedClaim claim) throws IOException {
    if (claim.devices().isEmpty()) {
      return java.util.Optional.empty();
    }
    List<CdiDevice> devices = new ArrayList<>();
    for (PreparedDevice d : claim.devices()) {
      if (d.vnpu() != null && d.vnpu().vnpuId() != null) {
        devices.add(vnpuDevice(d));
        continue;
      }
      TreeSet<Integer> visible = new TreeSet<>();
      d.requestNames().forEach(r -> visible.addAll(ClaimPlanner.deviceOrder(claim.devices(), r)));
      if (visible.isEmpty()) {
        visible.add(d.physicalId());
      }
      Map<String, String> env = new java.util.LinkedHashMap<>();
      env.put(
          "ASCEND_VISIBLE_DEVICES",
          visible.stream().map(String::valueOf).collect(Collectors.joining(",")));
      List<Mount> mounts = List.of();
      if (d.soft() != null) {
        if (soft == null) {
          throw new IOException(
              "device "
                  + d.deviceName()
                  + " has a soft share but soft slicing"
                  + " is not set up on this plugin");
        }
        // the one soft-slice mechanism's per-slice edits: LimiterEnv and the request's region
        // directory; the limiter, preload and registry mounts are the spec's (below)
        env.putAll(soft.env(firstSoft(claim, d).soft().memoryBytes()));
        mounts = List.of(soft.regionMount(java.nio.file.Path.of(d.soft().regionDir())));
      }
      ContainerEdits edits = new ContainerEdits(env, mounts, List.of(host.npuNode(d.physicalId())));
      devices.add(new CdiDevice(cdiName(d), cdi.of(edits)));
    }
    List<DeviceNode> common = new ArrayList<>();
    for (String n : AscendHostLayout.MANAGEMENT_NODES) {
      common.add(host.node(n));
    }
    List<Mount> specMounts = new ArrayList<>(host.driverMounts());
    if (soft != null && claim.devices().stream().anyMatch(d -> d.soft() != null)) {
      specMounts.addAll(soft.sharedMounts());
    }
    CdiContainerEdits specEdits =
        cdi.of(new ContainerEdits(Map.of("NPU_DRA_CLAIM_UID", claim.uid()), specMounts, common));
    return java.util.Optional.of(new CdiSpec("0.3.0", kind.kind(), devices, specEdits));
  }

  /**
   * A hard vNPU: host node {@code /dev/vdavinci<vnpuId>} injected as {@code /dev/davinci<vnpuId>}
   * (as Ascend's own CDI code does), {@code ASCEND_VISIBLE_DEVICES=<vnpuId>}, and {@code
   * ASCEND_VNPU_TEMPLATE=<template>} for the workload's information. Not {@code ASCEND_VNPU_SPECS}:
   * that asks the Ascend runtime to create a second vNPU.
   */
  private CdiDevice vnpuDevice(PreparedDevice d) throws IOException {
    int id = d.vnpu().vnpuId();
    DeviceNode vdavinci = host.node("/dev/vdavinci" + id);
    Map<String, String> env = new java.util.LinkedHashMap<>();
    env.put("ASCEND_VISIBLE_DEVICES", String.valueOf(id));
    env.put("ASCEND_VNPU_TEMPLATE", d.vnpu().template());
    return new CdiDevice(
        cdiName(d),
        cdi.of(
            new ContainerEdits(
                env,
                List.of(),
                List.of(
                    new DeviceNode(
                        "/dev/davinci" + id, vdavinci.hostPath(), vdavinci.permissions())))));
  }

  /** The soft device of {@code d}'s request with the lowest region entry. */
  private static PreparedDevice firstSoft(PreparedClaim claim, PreparedDevice d) {
    return claim.devices().stream()
        .filter(o -> o.soft() != null && o.soft().regionDir().equals(d.soft().regionDir()))
        .min(java.util.Comparator.comparingInt(o -> o.soft().deviceIndex()))
        .orElse(d);
  }

  private String cdiName(PreparedDevice d) {
    String id = d.cdiDeviceIds().get(0);
    String prefix = kind.kind() + "=";
    if (!id.startsWith(prefix)) {
      throw new IllegalArgumentException("CDI ID " + id + " is not of kind " + kind.kind());
    }
    return id.substring(prefix.length());
  }
}
