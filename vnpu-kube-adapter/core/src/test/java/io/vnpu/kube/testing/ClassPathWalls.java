package io.vnpu.kube.testing;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What an embedding test checks about the class path it runs on: the one an operator gets who takes
 * a single vnpu artifact. A part counts as present when either its probe class loads or a
 * class-path entry (a jar, or a reactor module's {@code target/classes}) matches its pattern, so a
 * part that is packed under another name, or one whose probe class moved, still counts.
 */
public final class ClassPathWalls {

  /**
   * One part an embedder must not be handed.
   *
   * @param name what the part is, for the failure message
   * @param probe a class only that part has (binary name)
   * @param entry a regular expression found in a class-path entry of that part ({@code /}
   *     separators)
   */
  public record Part(String name, String probe, String entry) {
    boolean loads() {
      try {
        Class.forName(probe, false, ClassPathWalls.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException | LinkageError absent) {
        return false;
      }
    }

    Optional<String> entryIn(List<String> classPath) {
      Pattern p = Pattern.compile(entry);
      return classPath.stream().filter(e -> p.matcher(e).find()).findFirst();
    }
  }

  public static final Part PICOCLI =
      new Part("picocli", "picocli.CommandLine", "/picocli-[0-9][^/]*\\.jar$");
  public static final Part PROMETHEUS =
      new Part(
          "the Prometheus client",
          "io.prometheus.metrics.core.metrics.Counter",
          "/prometheus-metrics-[a-z-]+-[0-9][^/]*\\.jar$");
  public static final Part FABRIC8 =
      new Part(
          "fabric8 kubernetes-client",
          "io.fabric8.kubernetes.client.KubernetesClient",
          "/kubernetes-client(-api)?-[0-9][^/]*\\.jar$");
  public static final Part DCMI =
      new Part(
          "the DCMI binding (vnpu-dcmi)",
          "io.vnpu.dcmi.DcmiDeviceManager",
          "/vnpu-dcmi-[0-9][^/]*\\.jar$|/vnpu-dcmi/target/classes$");
  public static final Part DEVICEPLUGIN =
      module(
          "the device-plugin server",
          "deviceplugin",
          "io.vnpu.kube.deviceplugin.DevicePluginServer");
  public static final Part HAMI =
      module("the HAMi backend", "hami", "io.vnpu.kube.hami.HamiResourceManager");
  public static final Part MINDCLUSTER =
      module(
          "the MindCluster backend",
          "mindcluster",
          "io.vnpu.kube.mindcluster.MindClusterResourceManager");
  public static final Part DRA = module("the DRA backend", "dra", "io.vnpu.kube.dra.DraPlugin");
  public static final Part AGENT =
      module("the node agent", "agent", "io.vnpu.kube.agent.NodeAgent");
  public static final Part CLI =
      new Part(
          "the CLI (mains, flags, composition roots)",
          "io.vnpu.kube.cli.VnpuCli",
          "/vnpu-cli-[0-9][^/]*\\.jar$|/vnpu-kube-adapter/cli/target/[^/]*classes$");

  private ClassPathWalls() {}

  private static Part module(String name, String child, String probe) {
    return new Part(
        name,
        probe,
        "/vnpu-kube-"
            + child
            + "-[0-9][^/]*\\.jar$|/vnpu-kube-adapter/"
            + child
            + "/target/[^/]*classes$");
  }

  /**
   * The test's real class path. Surefire and failsafe start tests from a manifest-only jar; then
   * {@code surefire.test.class.path} holds the entries, with {@code /} separators here.
   */
  public static List<String> classPath() {
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> out = new ArrayList<>();
    for (String e : cp.split(File.pathSeparator)) {
      if (!e.isEmpty()) {
        out.add(e.replace(File.separatorChar, '/'));
      }
    }
    return out;
  }

  /**
   * The parts of {@code banned} that are on this class path, one line each naming the class that
   * loaded or the entry that matched; empty when none is.
   */
  public static List<String> present(Part... banned) {
    List<String> cp = classPath();
    List<String> found = new ArrayList<>();
    for (Part p : banned) {
      Optional<String> entry = p.entryIn(cp);
      if (p.loads() || entry.isPresent()) {
        found.add(
            p.name()
                + ": "
                + (p.loads() ? "class " + p.probe() + " loads" : "")
                + entry.map(e -> (p.loads() ? ", " : "") + "class-path entry " + e).orElse(""));
      }
    }
    return found;
  }
}
