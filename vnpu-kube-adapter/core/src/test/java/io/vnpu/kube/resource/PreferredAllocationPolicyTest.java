package io.vnpu.kube.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Vectors on a 910B3 node: 8 NPUs with phy IDs 0-7, 4 replicas each, IDs {@code U<phy>-<i>} (HAMi's
 * {@code <UUID>-<i>} with the UUID shortened to {@code U<phy>}).
 */
class PreferredAllocationPolicyTest {

  private static final PreferredAllocationPolicy POLICY_910 =
      new PreferredAllocationPolicy(
          PreferredAllocationPolicyTest::npu,
          id -> PreferredAllocationPolicy.hccsGroupOfFour(Integer.parseInt(npu(id).substring(1))));

  private static String npu(String id) {
    return id.substring(0, id.indexOf('-'));
  }

  /** Every replica of every phy ID, in kubelet order, minus the IDs the predicate rejects. */
  private static List<String> node(int npus, int replicas, Predicate<String> keep) {
    List<String> ids = new ArrayList<>();
    for (int p = 0; p < npus; p++) {
      for (int i = 0; i < replicas; i++) {
        String id = "U" + p + "-" + i;
        if (keep.test(id)) {
          ids.add(id);
        }
      }
    }
    return ids;
  }

  private static List<String> freeNode() {
    return node(8, 4, id -> true);
  }

  @Test
  void singleDeviceOnAnIdleNodeIsTheFirstNpu() {
    assertThat(POLICY_910.choose(freeNode(), List.of(), 1)).containsExactly("U0-0");
  }

  @Test
  void devicesOfOneContainerGoToDistinctNpusOfOneHccsGroup() {
    assertThat(POLICY_910.choose(freeNode(), List.of(), 2)).containsExactly("U0-0", "U1-0");
    assertThat(POLICY_910.choose(freeNode(), List.of(), 4))
        .containsExactly("U0-0", "U1-0", "U2-0", "U3-0");
  }

  @Test
  void moreNpusThanAGroupHoldsFillWholeGroupsFirst() {
    assertThat(POLICY_910.choose(freeNode(), List.of(), 5))
        .containsExactly("U0-0", "U1-0", "U2-0", "U3-0", "U4-0");
    assertThat(POLICY_910.choose(freeNode(), List.of(), 8))
        .containsExactly("U0-0", "U1-0", "U2-0", "U3-0", "U4-0", "U5-0", "U6-0", "U7-0");
  }

  @Test
  void aRequestThatDoesNotFitTheEmptierGroupGoesToTheGroupThatHoldsIt() {
    // NPUs 0 and 1 are fully taken: group 0 has 2 unused NPUs, group 1 has 4.
    List<String> avail = node(8, 4, id -> !id.startsWith("U0-") && !id.startsWith("U1-"));
    assertThat(POLICY_910.choose(avail, List.of(), 3)).containsExactly("U4-0", "U5-0", "U6-0");
  }

  @Test
  void bestFitKeepsTheWholeGroupForBiggerJobs() {
    List<String> avail = node(8, 4, id -> !id.startsWith("U0-") && !id.startsWith("U1-"));
    assertThat(POLICY_910.choose(avail, List.of(), 2)).containsExactly("U2-0", "U3-0");
  }

  @Test
  void mustIncludeComesFirstAndPullsTheRestIntoItsGroup() {
    assertThat(POLICY_910.choose(freeNode(), List.of("U5-2"), 3))
        .containsExactly("U5-2", "U4-0", "U6-0");
  }

  @Test
  void mustIncludeInBothGroupsFillsTheFirstGroupFirst() {
    assertThat(POLICY_910.choose(freeNode(), List.of("U0-0", "U4-0"), 3))
        .containsExactly("U0-0", "U4-0", "U1-0");
  }

  @Test
  void secondReplicasOnlyWhenEveryNpuHasOneAndOnTheLeastLoadedNpu() {
    // U0 has 4 free replicas, U1 only 2.
    List<String> avail = List.of("U0-0", "U0-1", "U0-2", "U0-3", "U1-2", "U1-3");
    assertThat(POLICY_910.choose(avail, List.of(), 3)).containsExactly("U0-0", "U1-2", "U0-1");
    assertThat(POLICY_910.choose(avail, List.of(), 6))
        .containsExactly("U0-0", "U1-2", "U0-1", "U1-3", "U0-2", "U0-3");
  }

  @Test
  void theLeastLoadedNpuWinsAmongEqualOnes() {
    List<String> avail = List.of("U0-3", "U1-0", "U1-1", "U1-2", "U1-3");
    assertThat(POLICY_910.choose(avail, List.of(), 1)).containsExactly("U1-0");
  }

  @Test
  void tiesFollowTheKubeletsOrder() {
    List<String> reversed = new ArrayList<>(freeNode());
    Collections.reverse(reversed);
    assertThat(POLICY_910.choose(reversed, List.of(), 2)).containsExactly("U7-3", "U6-3");
  }

  @Test
  void spreadOnlyIgnoresGroups() {
    // 310P: 4 NPUs with 7 replicas each, NPU 0 half used.
    PreferredAllocationPolicy p =
        PreferredAllocationPolicy.spreadOnly(PreferredAllocationPolicyTest::npu);
    List<String> avail = node(4, 7, id -> !Set.of("U0-0", "U0-1", "U0-2", "U0-3").contains(id));
    assertThat(p.choose(avail, List.of(), 4)).containsExactly("U1-0", "U2-0", "U3-0", "U0-4");
    assertThat(p.choose(avail, List.of("U0-6"), 2)).containsExactly("U0-6", "U1-0");
  }

  @Test
  void sizeEqualToMustIncludeReturnsMustInclude() {
    assertThat(POLICY_910.choose(freeNode(), List.of("U3-1", "U1-1"), 2))
        .containsExactly("U3-1", "U1-1");
    assertThat(POLICY_910.choose(freeNode(), List.of(), 0)).isEmpty();
  }

  @Test
  void hccsGroupOfFourSplitsPhyIdsZeroToThreeAndFourToSeven() {
    assertThat(IntStream.range(0, 8).map(PreferredAllocationPolicy::hccsGroupOfFour).toArray())
        .containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
    assertThatThrownBy(() -> PreferredAllocationPolicy.hccsGroupOfFour(-1))
        .hasMessage("phy ID must be >= 0, got -1");
  }

  @Test
  void rejectsImpossibleRequestsNamingTheValues() {
    List<String> avail = List.of("U0-0", "U1-0");
    assertThatThrownBy(() -> POLICY_910.choose(avail, List.of(), 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("allocation size 3 is not between 0 and the 2 available device IDs");
    assertThatThrownBy(() -> POLICY_910.choose(avail, List.of(), -1))
        .hasMessage("allocation size -1 is not between 0 and the 2 available device IDs");
    assertThatThrownBy(() -> POLICY_910.choose(avail, List.of("U0-0", "U1-0"), 1))
        .hasMessage("allocation size 1 is below the 2 must-include device IDs [U0-0, U1-0]");
    assertThatThrownBy(() -> POLICY_910.choose(avail, List.of("U7-0"), 1))
        .hasMessage("must-include device ID U7-0 is not among the available IDs");
    PreferredAllocationPolicy unknown =
        new PreferredAllocationPolicy(id -> Map.of("U0-0", "U0").get(id), id -> 0);
    assertThatThrownBy(() -> unknown.choose(avail, List.of(), 1))
        .hasMessage("no physical device known for device ID U1-0");
  }

  @Test
  void randomRequestsAlwaysMeetTheContract() {
    Random rnd = new Random(20261129);
    for (int round = 0; round < 2000; round++) {
      List<String> avail = node(8, 4, id -> rnd.nextInt(3) > 0);
      if (avail.isEmpty()) {
        continue;
      }
      Collections.shuffle(avail, rnd);
      int size = 1 + rnd.nextInt(avail.size());
      List<String> must =
          avail.stream()
              .filter(id -> rnd.nextInt(10) == 0)
              .limit(size)
              .collect(Collectors.toList());

      List<String> got = POLICY_910.choose(avail, must, size);

      assertThat(got).hasSize(size).doesNotHaveDuplicates();
      assertThat(got.subList(0, must.size())).isEqualTo(must);
      assertThat(avail).containsAll(got);
      // Spread: no NPU gets a second pick while another available NPU has none in the answer.
      Set<String> npusInAnswer =
          got.stream().map(PreferredAllocationPolicyTest::npu).collect(Collectors.toSet());
      Set<String> npusAvailable =
          new HashSet<>(avail.stream().map(PreferredAllocationPolicyTest::npu).toList());
      List<String> picked = got.subList(must.size(), got.size());
      if (npusInAnswer.size() < npusAvailable.size()) {
        // Some NPU is unused, so every picked ID is on an NPU not yet in the answer before it.
        Set<String> seen =
            must.stream()
                .map(PreferredAllocationPolicyTest::npu)
                .collect(Collectors.toCollection(HashSet::new));
        for (String id : picked) {
          assertThat(seen.add(npu(id)))
              .as(
                  "round %d: %s picked a second replica of %s while an"
                      + " NPU was unused (available %s, must %s)",
                  round, got, npu(id), avail, must)
              .isTrue();
        }
      }
      // HCCS: without must-include, a request one group can hold on distinct NPUs stays in one
      // group.
      Map<Integer, Long> unusedPerGroup =
          npusAvailable.stream()
              .collect(
                  Collectors.groupingBy(
                      n ->
                          PreferredAllocationPolicy.hccsGroupOfFour(
                              Integer.parseInt(n.substring(1))),
                      Collectors.counting()));
      if (must.isEmpty() && unusedPerGroup.values().stream().anyMatch(c -> c >= size)) {
        assertThat(
                got.stream()
                    .map(
                        id ->
                            PreferredAllocationPolicy.hccsGroupOfFour(
                                Integer.parseInt(npu(id).substring(1))))
                    .distinct()
                    .count())
            .as("round %d: %s spans both HCCS groups (available %s)", round, got, avail)
            .isEqualTo(1);
      }
    }
  }
}
