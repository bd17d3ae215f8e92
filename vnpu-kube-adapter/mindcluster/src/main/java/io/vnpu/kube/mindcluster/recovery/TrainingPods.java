package io.vnpu.kube.mindcluster.recovery;

import io.fabric8.kubernetes.api.model.Pod;
import io.vnpu.api.fault.recovery.TrainingJob;
import io.vnpu.api.fault.recovery.TrainingJobs;
import io.vnpu.kube.mindcluster.volcano.VolcanoKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The training jobs of this node, from its pods: a pod belongs to job {@code <name>} by the label
 * {@value #VOLCANO_JOB} (Volcano jobs) or {@value #OPERATOR_JOB} (Ascend Operator jobs), holds the
 * chips its {@code huawei.com/AscendReal} annotation names ({@code Ascend910-<phy ID>}, the real
 * chips the device plugin gave it) and has rank index {@value #RANK_INDEX} (0 without): the rank of
 * its i-th chip in the job is {@code rankIndex × chips + i}. Pods that finished or are being
 * deleted, and pods without chips yet, hold nothing. Job names are checked: a name that cannot name
 * a ConfigMap is skipped with one warning.
 */
public final class TrainingPods implements TrainingJobs {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingPods.class);
  public static final String VOLCANO_JOB = "volcano.sh/job-name";
  public static final String OPERATOR_JOB = "training.kubeflow.org/job-name";
  public static final String RANK_INDEX = "hccl/rankIndex";

  /**
   * What may follow {@code reset-config-} in a ConfigMap name (DNS-1123 subdomain, 253 characters).
   */
  private static final Pattern JOB_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,226}[a-z0-9])?");

  private final Supplier<List<Pod>> pods;
  private final String nodeName;
  private final Map<String, Integer> logicOfChip;
  private final Set<String> warned = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * @param pods this node's pods (the API server, field selector {@code spec.nodeName}); pods of
   *     other nodes among them are ignored
   * @param nodeName this node
   * @param logicOfChip chip name ({@code Ascend910-<phy>}) → logic ID
   */
  public TrainingPods(Supplier<List<Pod>> pods, String nodeName, Map<String, Integer> logicOfChip) {
    this.pods = Objects.requireNonNull(pods, "pods");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.logicOfChip = Map.copyOf(logicOfChip);
  }

  @Override
  public List<TrainingJob> onNode() {
    Map<String, Map<Integer, Integer>> ranks = new TreeMap<>();
    Map<String, Set<String>> members = new TreeMap<>();
    Map<String, String[]> ids = new TreeMap<>();
    for (Pod p : pods.get()) {
      if (p.getMetadata() == null || p.getMetadata().getDeletionTimestamp() != null) continue;
      if (p.getSpec() == null || !nodeName.equals(p.getSpec().getNodeName())) continue;
      String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
      if ("Succeeded".equals(phase) || "Failed".equals(phase)) continue;
      Map<String, String> labels =
          p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
      String job = labels.getOrDefault(VOLCANO_JOB, labels.get(OPERATOR_JOB));
      if (job == null) continue;
      String ns = p.getMetadata().getNamespace();
      String pod = ns + "/" + p.getMetadata().getName();
      if (!JOB_NAME.matcher(job).matches()) {
        if (warned.add(pod))
          LOG.warn("pod {}: job name {} cannot name a ConfigMap; not recovered", pod, quote(job));
        continue;
      }
      Map<String, String> ann =
          p.getMetadata().getAnnotations() == null ? Map.of() : p.getMetadata().getAnnotations();
      String real = ann.get(VolcanoKeys.ASCEND_REAL);
      if (real == null || real.isBlank()) continue;
      List<Integer> chips = new ArrayList<>();
      for (String name : real.split(",")) {
        Integer logic = logicOfChip.get(name.strip().replaceFirst("_\\d+$", ""));
        if (logic != null) chips.add(logic);
      }
      if (chips.isEmpty()) continue;
      int rankIndex = 0;
      String ri = ann.get(RANK_INDEX);
      if (ri != null) {
        try {
          rankIndex = Math.max(0, Integer.parseInt(ri.strip()));
        } catch (NumberFormatException e) {
          if (warned.add(pod + "#rank"))
            LOG.warn("pod {}: {} = {} is not a number; rank index 0", pod, RANK_INDEX, quote(ri));
        }
      }
      String key = ns + "/" + job;
      ids.put(key, new String[] {ns, job});
      Map<Integer, Integer> r = ranks.computeIfAbsent(key, k -> new TreeMap<>());
      for (int i = 0; i < chips.size(); i++) r.put(chips.get(i), rankIndex * chips.size() + i);
      members.computeIfAbsent(key, k -> new TreeSet<>()).add(pod);
    }
    List<TrainingJob> out = new ArrayList<>();
    for (var e : ranks.entrySet()) {
      String[] id = ids.get(e.getKey());
      out.add(new TrainingJob(id[0], id[1], e.getValue(), members.get(e.getKey())));
    }
    return out;
  }

  private static String quote(String s) {
    String cut = s.length() > 64 ? s.substring(0, 64) + "…" : s;
    return "'" + cut.replaceAll("\\p{Cntrl}", "?") + "'";
  }
}
