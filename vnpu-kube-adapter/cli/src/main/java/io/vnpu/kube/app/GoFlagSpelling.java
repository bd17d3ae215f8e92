package io.vnpu.kube.app;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The one rule of how an upstream Go flag ({@link GoFlag}) is spelt on vnpu's command lines, as
 * Go's {@code flag} package parses it, so that upstream DaemonSet arguments work unchanged: {@code
 * --name} and {@code -name} alike, each with {@code =value} or the value as the next argument; a
 * boolean flag given alone means {@code true} (label {@code BOOL}), and {@code -name=false} turns
 * it off. Options without {@link GoFlag} are left as declared.
 */
public final class GoFlagSpelling implements IModelTransformer {

  @Override
  public CommandSpec transform(CommandSpec spec) {
    // every option removed and added again, so the declaration order (help) stays as it was
    List<OptionSpec> declared = new ArrayList<>(spec.options());
    declared.forEach(spec::remove);
    for (OptionSpec o : declared) spec.addOption(isGoFlag(o) ? goSpelling(o) : o);
    return spec;
  }

  private static boolean isGoFlag(OptionSpec o) {
    return o.userObject() instanceof AnnotatedElement e && e.isAnnotationPresent(GoFlag.class);
  }

  private static OptionSpec goSpelling(OptionSpec o) {
    List<String> declared = List.of(o.names());
    Set<String> names = new LinkedHashSet<>();
    for (String n : declared) {
      if (n.startsWith("--")) {
        names.add(n.substring(1));
        names.add(n);
      } else if (!declared.contains("-" + n)) {
        // the -name of an option spelt already is fine: the rule may meet it twice
        throw new IllegalStateException(
            "@GoFlag option " + n + ": declare its --name only (the -name is added)");
      }
    }
    OptionSpec.Builder b = o.toBuilder().names(names.toArray(String[]::new));
    if (o.type() == boolean.class || o.type() == Boolean.class)
      b.arity("0..1").fallbackValue("true").paramLabel("BOOL");
    return b.build();
  }
}
