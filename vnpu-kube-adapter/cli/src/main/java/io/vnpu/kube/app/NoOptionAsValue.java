package io.vnpu.kube.app;

import java.util.Map;
import java.util.Stack;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * For an option with an optional value ({@code --simulate [PROFILE]}): a next argument that looks
 * like an option is not its value. picocli gives an optional value any argument that is not a known
 * option, so {@code --simulate --kubelet-dir DIR} (a misspelt flag) used to fail with "unknown
 * simulator profile '--kubelet-dir'" or "unmatched argument 'DIR'"; with this the option takes its
 * fallback value and the parser reports the unknown option itself.
 */
public final class NoOptionAsValue implements IParameterPreprocessor {

  @Override
  public boolean preprocess(
      Stack<String> args, CommandSpec command, ArgSpec argSpec, Map<String, Object> info) {
    if (args.isEmpty() || !looksLikeOption(args.peek()) || !(argSpec instanceof OptionSpec o)) {
      return false;
    }
    argSpec.setValue(o.fallbackValue());
    return true;
  }

  private static boolean looksLikeOption(String arg) {
    return arg.length() > 1 && arg.startsWith("-") && !arg.matches("-\\d.*");
  }
}
