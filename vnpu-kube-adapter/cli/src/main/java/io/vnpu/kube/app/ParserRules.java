package io.vnpu.kube.app;

import picocli.CommandLine;

/**
 * The parser settings every vnpu main applies ({@code vnpu}, {@code DraMain}, {@code
 * NodeAgentMain}), so the same arguments parse alike whichever main an image runs.
 */
public final class ParserRules {

  private ParserRules() {}

  /**
   * Applies the rules to {@code cl} and the subcommands it has now, and returns it.
   *
   * <p>An option that takes a value must not take a misspelt option as it: {@code --kubeconfig
   * --node-nme n} reports the missing value of {@code --kubeconfig}, not a missing file named
   * {@code --node-nme}. Negative numbers are still values. (picocli does not apply this to an
   * optional value, {@code --simulate [PROFILE]}: {@link NoOptionAsValue} does.)
   */
  public static CommandLine apply(CommandLine cl) {
    cl.setUnmatchedOptionsAllowedAsOptionParameters(false);
    return cl;
  }
}
