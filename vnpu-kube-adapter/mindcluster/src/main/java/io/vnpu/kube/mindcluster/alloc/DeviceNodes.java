package io.vnpu.kube.mindcluster.alloc;

import io.vnpu.api.slice.DeviceNode;
import io.vnpu.kube.mindcluster.devices.CardType;
import io.vnpu.kube.resource.AllocationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * The device nodes a container needs when no Ascend Docker Runtime adds them (spec sections 3.9,
 * 4): the control nodes first ({@code /dev/davinci_manager} — from {@code davinci_manager_docker}
 * on 310B —, {@code /dev/hisi_hdc}, {@code /dev/devmm_svm} except on 950, {@code /dev/dvpp_cmdlist}
 * when present), then one node per chip (host {@code /dev/davinciN}) or per vNPU (host {@code
 * /dev/vdavinciN} → container {@code /dev/davinciN}), then every file of {@code /dev/uburma} and
 * {@code /dev/ummu} when present. Every required node is checked to exist under the root (the
 * host's {@code /} on a node, or a simulated host's directory) and the specs name it there, so the
 * kubelet and the runtime find a device node at every host path (on a node the host paths are the
 * plain {@code /dev/...} paths).
 */
public final class DeviceNodes {
  /** Permissions of every node, as upstream. */
  public static final String PERMISSIONS = "rw";

  private final Path root;

  /**
   * @param root directory the host's {@code /dev} is found under ({@code /} on a node)
   */
  public DeviceNodes(Path root) {
    this.root = Objects.requireNonNull(root, "root");
  }

  /**
   * Nodes for whole chips.
   *
   * @throws AllocationException naming the first required node that does not exist
   */
  public List<DeviceNode> forChips(CardType type, List<Integer> phyIds) throws AllocationException {
    List<DeviceNode> out = control(type);
    for (int phy : phyIds) {
      out.add(required("/dev/davinci" + phy, "/dev/davinci" + phy));
    }
    out.addAll(unifiedBus());
    return out;
  }

  /**
   * Nodes for one vNPU: host {@code /dev/vdavinci<id>} as container {@code /dev/davinci<id>}.
   *
   * @throws AllocationException naming the first required node that does not exist
   */
  public List<DeviceNode> forVnpu(CardType type, int vnpuId) throws AllocationException {
    List<DeviceNode> out = control(type);
    out.add(required("/dev/davinci" + vnpuId, "/dev/vdavinci" + vnpuId));
    out.addAll(unifiedBus());
    return out;
  }

  private List<DeviceNode> control(CardType type) throws AllocationException {
    List<DeviceNode> out = new ArrayList<>();
    out.add(
        required(
            "/dev/davinci_manager",
            type == CardType.ASCEND310B ? "/dev/davinci_manager_docker" : "/dev/davinci_manager"));
    out.add(required("/dev/hisi_hdc", "/dev/hisi_hdc"));
    if (type != CardType.ASCEND950) {
      out.add(required("/dev/devmm_svm", "/dev/devmm_svm"));
    }
    if (exists("/dev/dvpp_cmdlist")) {
      out.add(
          new DeviceNode("/dev/dvpp_cmdlist", onHost("/dev/dvpp_cmdlist").toString(), PERMISSIONS));
    }
    return out;
  }

  private List<DeviceNode> unifiedBus() throws AllocationException {
    List<DeviceNode> out = new ArrayList<>();
    for (String dir : List.of("/dev/uburma", "/dev/ummu")) {
      Path d = onHost(dir);
      if (!Files.isDirectory(d)) continue;
      try (Stream<Path> files = Files.list(d)) {
        for (Path f : files.sorted().toList()) {
          String p = dir + "/" + f.getFileName();
          out.add(new DeviceNode(p, onHost(p).toString(), PERMISSIONS));
        }
      } catch (IOException e) {
        throw new AllocationException("list device nodes in " + d + ": " + e.getMessage(), e);
      }
    }
    return out;
  }

  private DeviceNode required(String containerPath, String hostPath) throws AllocationException {
    if (!exists(hostPath)) {
      throw new AllocationException(
          "device node "
              + onHost(hostPath)
              + " does not exist; "
              + "is the Ascend driver loaded on this node?");
    }
    return new DeviceNode(containerPath, onHost(hostPath).toString(), PERMISSIONS);
  }

  private boolean exists(String hostPath) {
    return Files.exists(onHost(hostPath));
  }

  private Path onHost(String hostPath) {
    return root.resolve(hostPath.substring(1));
  }
}
