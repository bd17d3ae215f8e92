package io.vnpu.kube.mindcluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A stand-in for the host's {@code /dev}: plain files named like the Ascend device nodes. */
final class DevRoot {
  private DevRoot() {}

  /** Creates {@code <root>/dev/<name>} for each name. */
  static Path with(Path root, String... names) throws IOException {
    Files.createDirectories(root.resolve("dev"));
    for (String n : names) {
      Path p = root.resolve("dev").resolve(n);
      Files.createDirectories(p.getParent());
      if (!Files.exists(p)) Files.createFile(p);
    }
    return root;
  }

  /** The control nodes of a 910/310P host. */
  static Path controlNodes(Path root) throws IOException {
    return with(root, "davinci_manager", "hisi_hdc", "devmm_svm");
  }
}
