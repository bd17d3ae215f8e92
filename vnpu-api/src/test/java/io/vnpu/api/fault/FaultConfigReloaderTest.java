package io.vnpu.api.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.fault.FaultConfigReloader.Outcome;
import io.vnpu.api.fault.FaultConfigReloader.Snapshot;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FaultConfigReloaderTest {
  private static final String CM = "ConfigMap kube-system/mindx-dl-fault-config";
  private static final FaultCode ECC = FaultCode.parse("80E01801");
  private final List<FaultConfig> applied = new ArrayList<>();
  private final FaultConfigReloader reloader =
      new FaultConfigReloader(FaultConfigs.shippedDefault(), applied::add);

  private static Snapshot cm(String faultCode, String custom) {
    return new Snapshot(
        CM,
        Optional.ofNullable(faultCode)
            .map(t -> new FaultConfigDocument(CM + "[faultCode.json]", t, 7)),
        Optional.ofNullable(custom)
            .map(t -> new FaultConfigDocument(CM + "[faultCustomization.json]", t, 20)));
  }

  @Test
  void anOverrideReplacesTheTableAndKeepsTheDefaultRulesForTheMissingFile() {
    assertThat(reloader.reload(cm("{\"SeparateNPUCodes\": [\"80E01801\"]}", null)))
        .isEqualTo(Outcome.APPLIED);
    FaultConfig now = reloader.inForce();
    assertThat(now.origin()).isEqualTo(CM);
    assertThat(now.table().level(ECC)).contains(FaultLevel.SEPARATE_NPU);
    assertThat(now.table().level(FaultCode.CARD_DROP)).isEmpty();
    assertThat(now.customization().duration()).hasSize(1);
    assertThat(applied).containsExactly(now);
    assertThat(reloader.reload(cm("{\"SeparateNPUCodes\": [\"80E01801\"]}", null)))
        .isEqualTo(Outcome.UNCHANGED);
  }

  @Test
  void aBrokenOverrideKeepsTheLastGoodOneAndNamesTheLine() {
    reloader.reload(cm("{\"SeparateNPUCodes\": [\"80E01801\"]}", null));
    FaultConfig good = reloader.inForce();
    String broken =
        "{\n  \"FaultFrequency\": [\n    {\"EventId\": [\"80E01801\"], \"TimeWindow\": 10, \"Times\": 2,\n"
            + "     \"FaultHandling\": \"Separate\"}\n  ]\n}";
    assertThat(reloader.reload(cm("{\"SeparateNPUCodes\": [\"80E01801\"]}", broken)))
        .isEqualTo(Outcome.REJECTED);
    assertThat(reloader.inForce()).isSameAs(good);
    assertThat(applied).containsExactly(good);
    assertThat(reloader.lastError())
        .contains(
            CM
                + "[faultCustomization.json]:23: FaultFrequency[0].TimeWindow = 10: must be an integer in 60..864000\n"
                + CM
                + "[faultCustomization.json]:24: FaultFrequency[0].FaultHandling = \"Separate\": not a fault level (e.g. PreSeparateNPU, ManuallySeparateNPU)");

    assertThat(
            reloader.reload(
                cm("{\"SeparateNPUCodes\": [\"80E01801\"]}", "{\"FaultDuration\": []}")))
        .isEqualTo(Outcome.APPLIED);
    assertThat(reloader.inForce().customization().duration()).isEmpty();
    assertThat(reloader.lastError()).isEmpty();
  }

  @Test
  void aDeletedConfigMapFallsBackToTheShippedDefault() {
    reloader.reload(cm("{\"SeparateNPUCodes\": [\"80E01801\"]}", null));
    assertThat(reloader.reload(Snapshot.ABSENT)).isEqualTo(Outcome.APPLIED);
    assertThat(reloader.inForce().table().level(ECC)).contains(FaultLevel.RESTART_BUSINESS);
  }
}
