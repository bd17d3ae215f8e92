package io.vnpu.kube.cli;

import java.io.PrintWriter;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

/**
 * Prints a usage error as one line, {@code vnpu run: <what is wrong> (see 'vnpu run --help')},
 * instead of picocli's message followed by the whole help, and exits with the command's
 * invalid-input code (2).
 */
final class UsageErrorHandler implements IParameterExceptionHandler {

  // picocli's fallback for a converter that failed with something other than
  // TypeConversionException:
  // "cannot convert 'x' to Long (java.lang.IllegalArgumentException: reason)"; the reason is what
  // counts.
  private static final Pattern JAVA_CONVERSION =
      Pattern.compile(
          "cannot convert '(.*)' to \\S+ \\((?:[\\w.$]+Exception|[\\w.$]+Error): (.*)\\)$");

  @Override
  public int handleParseException(ParameterException ex, String[] args) {
    CommandLine cmd = ex.getCommandLine();
    PrintWriter err = cmd.getErr();
    String message = ex.getMessage();
    if (ex instanceof CommandLine.UnmatchedArgumentException u
        && !cmd.getSubcommands().isEmpty()
        && !u.getUnmatched().isEmpty()
        && !u.getUnmatched().get(0).startsWith("-")) {
      // a word where a command is expected: "unmatched argument at index 0" says nothing to a user
      message = "unknown command: '" + u.getUnmatched().get(0) + "'";
    }
    err.println(line(cmd.getCommandSpec().qualifiedName(), message));
    err.flush();
    return cmd.getCommandSpec().exitCodeOnInvalidInput();
  }

  /** The one line for {@code message} of command {@code command} (e.g. "vnpu run"). */
  static String line(String command, String message) {
    String m = message == null ? "invalid usage" : message.strip();
    m = JAVA_CONVERSION.matcher(m).replaceFirst("$2");
    // picocli's argument-group messages ("Error: --core=PCT, --weight=W are mutually exclusive
    // (specify only one)") carry a prefix the line's "vnpu run: " already says
    if (m.startsWith("Error: ")) m = m.substring("Error: ".length());
    m =
        m.replace("Invalid value for option", "invalid value for option")
            .replace("Missing required", "missing required")
            .replace("Unknown option", "unknown option")
            .replace("Unmatched argument", "unmatched argument");
    int nl = m.indexOf('\n');
    if (nl >= 0) m = m.substring(0, nl).strip();
    return command + ": " + m + " (see '" + command + " --help')";
  }
}
