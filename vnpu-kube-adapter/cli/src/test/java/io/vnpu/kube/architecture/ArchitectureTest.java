package io.vnpu.kube.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The walls of docs/architecture.md, checked on the production sources of every library module: no
 * package cycle in the adapter; nothing outside vnpu-quota reads the region's byte layout ({@code
 * io.vnpu.quota.layout}) or maps it ({@code io.vnpu.quota.mapped}); nothing but the one selection
 * class ({@code io.vnpu.dcmi.DcmiNodeSelector}) touches the DCMI simulator ({@code
 * io.vnpu.dcmi.sim}); the lower modules never reach up into the adapter.
 *
 * <p>References are every {@code io.vnpu.<package>.<Type>} in code (imports and fully qualified
 * names), comments removed. The benchmarks module is not checked: it measures the layout itself.
 */
class ArchitectureTest {
  /** The repository root: this test runs in vnpu-kube-adapter/cli. */
  private static final Path REPO = Path.of("").toAbsolutePath().getParent().getParent();

  /** The adapter's child modules that hold production code. */
  static final List<String> ADAPTER_CHILDREN =
      List.of("core", "kubelet", "deviceplugin", "hami", "mindcluster", "dra", "agent", "cli");

  private static final Pattern REFERENCE =
      Pattern.compile("\\b(io\\.vnpu(?:\\.[a-z0-9_]+)+)\\.[A-Z]");
  private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

  /** A production source file: its module, package and the packages it references. */
  record Source(String module, Path file, String pkg, Set<String> references) {}

  private static List<Source> sources(String module) {
    Path root = REPO.resolve(module).resolve("src/main/java");
    assertThat(root).as("sources of " + module).isDirectory();
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(f -> f.toString().endsWith(".java"))
          .sorted()
          .map(f -> read(module, f))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Source read(String module, Path file) {
    try {
      String code = COMMENTS.matcher(Files.readString(file)).replaceAll("");
      Matcher p = PACKAGE.matcher(code);
      String pkg = p.find() ? p.group(1) : "";
      Set<String> refs = new TreeSet<>();
      Matcher m = REFERENCE.matcher(code);
      while (m.find()) if (!m.group(1).equals(pkg)) refs.add(m.group(1));
      return new Source(module, file, pkg, refs);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Source> libraries() {
    List<Source> all = new ArrayList<>();
    for (String m : List.of("vnpu-api", "vnpu-dcmi", "vnpu-quota")) all.addAll(sources(m));
    all.addAll(adapter());
    return all;
  }

  /**
   * Every production source of the adapter's children, each with its module
   * ("vnpu-kube-adapter/core").
   */
  private static List<Source> adapter() {
    List<Source> all = new ArrayList<>();
    for (String child : ADAPTER_CHILDREN) all.addAll(sources("vnpu-kube-adapter/" + child));
    return all;
  }

  private static List<String> offenders(
      List<Source> sources,
      java.util.function.Predicate<Source> exempt,
      java.util.function.Predicate<String> forbidden) {
    List<String> out = new ArrayList<>();
    for (Source s : sources) {
      if (exempt.test(s)) continue;
      for (String r : s.references())
        if (forbidden.test(r)) out.add(REPO.relativize(s.file()) + " -> " + r);
    }
    return out;
  }

  /** Production sources (comments removed) of the libraries whose code contains {@code text}. */
  private static List<String> containing(List<Source> sources, String text) {
    List<String> out = new ArrayList<>();
    for (Source s : sources) {
      try {
        if (COMMENTS.matcher(Files.readString(s.file())).replaceAll("").contains(text)) {
          out.add(REPO.relativize(s.file()).toString().replace('\\', '/'));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  // issue 24: the limiter's contract is named in its one class each (LimiterEnv: env, checked
  // against native/limiter/config.h; LimiterFiles: file names and container paths)
  @Test
  void theLimiterContractLiteralsAppearInTheirOneClassOnly() {
    List<Source> all = libraries();
    for (String env :
        List.of(
            "\"NPU_MEM_QUOTA\"",
            "\"NPU_LOCAL_SHM_PATH\"",
            "\"NPU_PRIORITY\"",
            "\"VNPU_DEVICE_COUNT\"",
            "\"VNPU_COMPUTE_CAP_PCT\"")) {
      assertThat(containing(all, env))
          .as(env)
          .containsExactly("vnpu-quota/src/main/java/io/vnpu/quota/env/LimiterEnv.java");
    }
    for (String file :
        List.of("\"vnpu_local_shmem\"", "\"ld.so.preload\"", "\"/etc/ld.so.preload\"")) {
      assertThat(containing(all, file))
          .as(file)
          .allMatch(f -> f.endsWith("io/vnpu/kube/limiter/LimiterFiles.java"));
    }
  }

  // issue 24: one soft-slice mechanism: only it computes a slice's region configuration, and only
  // its two seams write regions and registry entries
  @Test
  void onlyTheSoftSliceMechanismCreatesRegionsAndRegistryEntries() {
    List<Source> adapter = adapter();
    assertThat(containing(adapter, "RegionConfig.forSlice("))
        .allMatch(
            f ->
                f.contains("/io/vnpu/kube/softslice/")
                    || f.endsWith("io/vnpu/kube/resource/ComputeRegistrations.java"));
    assertThat(containing(adapter, "new RegistryMember("))
        .allMatch(f -> f.endsWith("io/vnpu/kube/resource/ComputeRegistrations.java"));
    assertThat(containing(adapter, "new ComputeRegistrations("))
        .allMatch(f -> f.contains("/io/vnpu/kube/softslice/"));
    assertThat(containing(adapter, "QuotaRegion created = "))
        .allMatch(f -> f.endsWith("io/vnpu/kube/resource/QuotaRegionFactory.java"));
  }

  @Test
  void nothingOutsideVnpuQuotaReadsTheRegionLayoutOrItsMapping() {
    assertThat(
            offenders(
                libraries(),
                s -> s.module().equals("vnpu-quota"),
                r -> r.startsWith("io.vnpu.quota.layout") || r.startsWith("io.vnpu.quota.mapped")))
        .isEmpty();
  }

  @Test
  void onlyTheSelectionClassTouchesTheSimulator() {
    assertThat(
            offenders(
                libraries(),
                s ->
                    s.pkg().equals("io.vnpu.dcmi.sim")
                        || s.file().endsWith("io/vnpu/dcmi/DcmiNodeSelector.java"),
                r -> r.startsWith("io.vnpu.dcmi.sim")))
        .isEmpty();
  }

  @Test
  void lowerModulesNeverReachUp() {
    List<Source> all = libraries();
    assertThat(
            offenders(
                all,
                s -> !s.module().equals("vnpu-api"),
                r ->
                    r.startsWith("io.vnpu.dcmi")
                        || r.startsWith("io.vnpu.quota")
                        || r.startsWith("io.vnpu.kube")))
        .isEmpty();
    assertThat(
            offenders(
                all,
                s -> !s.module().equals("vnpu-dcmi") && !s.module().equals("vnpu-quota"),
                r -> r.startsWith("io.vnpu.kube")))
        .isEmpty();
    // vnpu-dcmi and vnpu-quota are siblings: neither knows the other
    assertThat(
            offenders(
                all, s -> !s.module().equals("vnpu-dcmi"), r -> r.startsWith("io.vnpu.quota")))
        .isEmpty();
    assertThat(
            offenders(
                all, s -> !s.module().equals("vnpu-quota"), r -> r.startsWith("io.vnpu.dcmi")))
        .isEmpty();
  }

  @Test
  void theAgentDependsOnNoBackendAndTheDevicePluginOnNoBackendEither() {
    List<Source> adapter = adapter();
    Set<String> backends =
        Set.of("io.vnpu.kube.hami", "io.vnpu.kube.mindcluster", "io.vnpu.kube.dra");
    java.util.function.Predicate<String> isBackend =
        r -> backends.stream().anyMatch(b -> r.equals(b) || r.startsWith(b + "."));
    assertThat(offenders(adapter, s -> !s.pkg().startsWith("io.vnpu.kube.agent"), isBackend))
        .isEmpty();
    assertThat(offenders(adapter, s -> !s.pkg().startsWith("io.vnpu.kube.deviceplugin"), isBackend))
        .isEmpty();
    assertThat(offenders(adapter, s -> !s.pkg().startsWith("io.vnpu.kube.resource"), isBackend))
        .isEmpty();
  }

  @Test
  void noPackageCycleInTheAdapter() {
    Map<String, Set<String>> edges = new TreeMap<>();
    for (Source s : adapter()) {
      Set<String> out = edges.computeIfAbsent(s.pkg(), k -> new TreeSet<>());
      for (String r : s.references()) if (r.startsWith("io.vnpu.kube")) out.add(r);
    }
    assertThat(cycles(edges)).isEmpty();
  }

  @Test
  void noPackageCycleInAnyChild() {
    for (String child : ADAPTER_CHILDREN) {
      Map<String, Set<String>> edges = new TreeMap<>();
      List<Source> sources = sources("vnpu-kube-adapter/" + child);
      Set<String> own = new TreeSet<>();
      for (Source s : sources) own.add(s.pkg());
      for (Source s : sources) {
        Set<String> out = edges.computeIfAbsent(s.pkg(), k -> new TreeSet<>());
        for (String r : s.references()) if (own.contains(r)) out.add(r);
      }
      assertThat(cycles(edges)).as("package cycles in vnpu-kube-adapter/%s", child).isEmpty();
    }
  }

  /**
   * The limiter's contract (env names, preload file, region file name), each spelled in one class.
   */
  static final List<String> LIMITER_LITERALS =
      List.of(
          "\"NPU_MEM_QUOTA\"",
          "\"NPU_LOCAL_SHM_PATH\"",
          "\"NPU_PRIORITY\"",
          "\"/etc/ld.so.preload\"",
          "\"vnpu_local_shmem\"");

  /** Where the contract is spelled: the env names (vnpu-quota) and the limiter's files (core). */
  static final Set<String> LIMITER_CONTRACT_FILES =
      Set.of(
          "vnpu-quota/src/main/java/io/vnpu/quota/env/LimiterEnv.java",
          "vnpu-kube-adapter/core/src/main/java/io/vnpu/kube/limiter/LimiterFiles.java");

  @Test
  void theLimiterContractIsSpelledOnlyInLimiterEnvAndLimiterFiles() throws IOException {
    List<String> out = new ArrayList<>();
    for (Source s : libraries()) {
      String file = REPO.relativize(s.file()).toString().replace('\\', '/');
      if (LIMITER_CONTRACT_FILES.contains(file)) continue;
      String code = COMMENTS.matcher(Files.readString(s.file())).replaceAll("");
      for (String literal : LIMITER_LITERALS)
        if (code.contains(literal)) out.add(file + ": " + literal);
    }
    assertThat(out)
        .as("use io.vnpu.quota.env.LimiterEnv and io.vnpu.kube.limiter.LimiterFiles")
        .isEmpty();
    for (String f : LIMITER_CONTRACT_FILES)
      assertThat(REPO.resolve(f)).as("the contract's class").isRegularFile();
  }

  /** Strongly connected components with more than one package (Tarjan), each as "a -> b" edges. */
  static List<List<String>> cycles(Map<String, Set<String>> edges) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new java.util.HashSet<>();
    List<List<String>> out = new ArrayList<>();
    int[] counter = {0};
    for (String v : edges.keySet()) {
      if (!index.containsKey(v)) connect(v, edges, index, low, stack, onStack, out, counter);
    }
    return out;
  }

  private static void connect(
      String v,
      Map<String, Set<String>> edges,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<List<String>> out,
      int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]++);
    stack.push(v);
    onStack.add(v);
    for (String w : edges.getOrDefault(v, Set.of())) {
      if (!index.containsKey(w)) {
        connect(w, edges, index, low, stack, onStack, out, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      if (component.size() > 1) {
        List<String> described = new ArrayList<>();
        for (String a : component) {
          for (String b : edges.getOrDefault(a, Set.of()))
            if (component.contains(b)) described.add(a + " -> " + b);
        }
        out.add(described);
      }
    }
  }

  @Test
  void theCycleFinderFindsACycle() {
    Map<String, Set<String>> edges =
        Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
    assertThat(cycles(new TreeMap<>(edges))).containsExactly(List.of("a -> b", "b -> c", "c -> a"));
  }
}
