package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cpulist parser never throws: a driver's absurd list is "unknown node", not a dead loop. */
class NumaNodesTest {
  @TempDir Path nodeDir;

  @Test
  void mapsACpuListToTheNodeHoldingEveryCpu() throws Exception {
    Files.createDirectories(nodeDir.resolve("node0"));
    Files.writeString(nodeDir.resolve("node0/cpulist"), "0-23\n");
    Files.createDirectories(nodeDir.resolve("node1"));
    Files.writeString(nodeDir.resolve("node1/cpulist"), "24-47,96-119\n");
    NumaNodes numa = new NumaNodes(nodeDir);
    assertThat(numa.nodeOf("0-3,8")).isEqualTo(0);
    assertThat(numa.nodeOf("24-31,100")).isEqualTo(1);
    assertThat(numa.nodeOf("20-27")).isEqualTo(-1);
  }

  // the driver's CPU list 0-2147483647 made set(0, MIN_VALUE) throw and killed the register loop
  @Test
  void hugeOrMalformedListsAreUnknownNeverAnException() throws Exception {
    Files.createDirectories(nodeDir.resolve("node0"));
    Files.writeString(nodeDir.resolve("node0/cpulist"), "0-2147483647\n");
    NumaNodes numa = new NumaNodes(nodeDir);
    for (String bad :
        new String[] {
          "0-2147483647",
          "2147483647",
          "0-8192",
          "99999999999",
          "1-0",
          "-1",
          "0--3",
          "0-3-5",
          "a",
          "0,,1",
          " - ",
          "0-",
          "1,2-",
          "+1",
          "0x10",
          "0-3".repeat(30_000)
        }) {
      assertThat(NumaNodes.parse(bad)).as(bad).isNull();
      assertThat(numa.nodeOf(bad)).as(bad).isEqualTo(-1);
    }
    BitSet top = NumaNodes.parse("8190-8191");
    assertThat(top.cardinality()).isEqualTo(2);
    assertThat(NumaNodes.parse(" 0 - 2 , 5 ").toString()).isEqualTo("{0, 1, 2, 5}");
    assertThat(NumaNodes.parse("").isEmpty()).isTrue();
  }
}
