package io.vnpu.kube.dra.cdi;

import io.vnpu.api.slice.DeviceNode;
import io.vnpu.api.slice.Mount;
import io.vnpu.quota.files.HostFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where the Ascend driver's files are on this host, and what every NPU container needs from them:
 * the management device nodes ({@code /dev/davinci_manager}, {@code /dev/devmm_svm}, {@code
 * /dev/hisi_hdc}; the facts of Ascend's docker runtime {@code base.list}) and read-only bind mounts
 * of the driver libraries and tools the CANN runtime loads. Missing management nodes are an error
 * at prepare time; a driver path that does not exist on the host is left out (driver packages
 * differ between Atlas models).
 *
 * @param devices device nodes, looked up under {@code /dev} or the simulator's directory
 * @param mountRoot host root the driver mount paths are resolved against ({@code /} on a real host)
 */
public record AscendHostLayout(DeviceNodeProbe devices, Path mountRoot) {

  /** Device nodes every container of an NPU claim gets. */
  public static final List<String> MANAGEMENT_NODES =
      List.of("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc");

  /** Driver paths bind-mounted read-only when present on the host. */
  public static final List<String> DRIVER_MOUNTS =
      List.of(
          "/usr/local/Ascend/driver/lib64",
          "/usr/local/Ascend/driver/include",
          "/usr/local/Ascend/driver/version.info",
          "/etc/ascend_install.info",
          "/usr/local/dcmi",
          "/usr/local/bin/npu-smi");

  public AscendHostLayout {
    Objects.requireNonNull(devices, "devices");
    mountRoot = Objects.requireNonNull(mountRoot, "mountRoot").toAbsolutePath();
  }

  /** A real host: {@code /dev} and {@code /}. */
  public static AscendHostLayout host() {
    return new AscendHostLayout(new DeviceNodeProbe(Path.of("/dev")), Path.of("/"));
  }

  /** The device node of the whole NPU with phy ID {@code phyId}: {@code /dev/davinci<phy>}. */
  public DeviceNode npuNode(int phyId) {
    return node("/dev/davinci" + phyId);
  }

  /** The device node for a container path under {@code /dev}, with its host path on this host. */
  public DeviceNode node(String containerPath) {
    return new DeviceNode(containerPath, devices.hostPath(containerPath).toString(), "rwm");
  }

  /** The read-only bind mounts for the driver paths that exist under {@link #mountRoot()}. */
  public List<Mount> driverMounts() {
    List<Mount> mounts = new ArrayList<>();
    for (String p : DRIVER_MOUNTS) {
      Path host = mountRoot.resolve(p.substring(1));
      // a dangling link is left out like a missing path: a bind mount of it fails the container
      if (HostFiles.presentFollowingLinks(host)) {
        mounts.add(new Mount(p, host.toString(), true));
      }
    }
    return mounts;
  }
}
