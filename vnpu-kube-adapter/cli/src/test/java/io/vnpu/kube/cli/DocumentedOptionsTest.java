package io.vnpu.kube.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every option the README and docs/ give a {@code vnpu} command exists on that command: a user who
 * copies a documented command line never meets "unknown option". Commands are read from fenced code
 * blocks (with {@code \} continuations) and inline code spans; a command's options end at {@code
 * --} (the workload's own) and at a shell separator.
 */
class DocumentedOptionsTest {
  /** The repository root: this test runs in vnpu-kube-adapter/cli. */
  private static final Path REPO = Path.of("").toAbsolutePath().getParent().getParent();

  private static final Pattern SPAN = Pattern.compile("`([^`]+)`");
  private static final Pattern SHELL_END = Pattern.compile("\\s(?:\\||&&|;|#|&|>)(?:\\s|$).*");

  /** A documented use of a command: where, which command, its words after the command name. */
  record Use(String where, String command, List<String> words) {}

  @Test
  void everyDocumentedOptionExists() throws IOException {
    CommandLine vnpu = VnpuCli.commandLine();
    List<Use> uses = new ArrayList<>();
    List<Path> pages = new ArrayList<>(List.of(REPO.resolve("README.md")));
    try (Stream<Path> docs = Files.list(REPO.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    for (Path page : pages) uses.addAll(uses(page, vnpu));
    assertThat(uses).as("documented vnpu commands found").hasSizeGreaterThan(40);

    List<String> unknown = new ArrayList<>();
    for (Use u : uses) {
      CommandLine cl = vnpu.getSubcommands().get(u.command());
      List<String> words = u.words();
      if (!words.isEmpty() && cl.getSubcommands().containsKey(words.get(0))) {
        cl = cl.getSubcommands().get(words.get(0));
        words = words.subList(1, words.size());
      }
      for (String w : words) {
        if (w.equals("--")) break;
        if (!w.matches("--?[A-Za-z][\\w-]*(=.*)?")) continue;
        String name = w.contains("=") ? w.substring(0, w.indexOf('=')) : w;
        if (name.startsWith("--no-")) name = "--" + name.substring(5);
        if (cl.getCommandSpec().findOption(name) == null) {
          unknown.add(u.where() + ": " + cl.getCommandSpec().qualifiedName() + " " + name);
        }
      }
    }
    assertThat(unknown).as("options the docs give that the command does not have").isEmpty();
  }

  /** The uses of {@code vnpu <command>} in one page's code. */
  private static List<Use> uses(Path page, CommandLine vnpu) throws IOException {
    List<String> lines = Files.readAllLines(page);
    Pattern command =
        Pattern.compile(
            "(?:^|[\\s/(])vnpu ("
                + String.join("|", vnpu.getSubcommands().keySet())
                + ")(?=\\s|$)(.*)");
    List<Use> out = new ArrayList<>();
    boolean fenced = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      String where = REPO.relativize(page) + ":" + (i + 1);
      List<String> code = new ArrayList<>();
      if (fenced) {
        StringBuilder joined = new StringBuilder(line);
        while (joined.toString().endsWith("\\") && i + 1 < lines.size()) {
          joined.setLength(joined.length() - 1);
          joined.append(' ').append(lines.get(++i).strip());
        }
        code.add(joined.toString());
      } else {
        Matcher spans = SPAN.matcher(line);
        while (spans.find()) code.add(spans.group(1));
      }
      for (String c : code) {
        Matcher m = command.matcher(c);
        if (!m.find()) continue;
        String rest = SHELL_END.matcher(m.group(2)).replaceFirst("");
        List<String> words = rest.isBlank() ? List.of() : List.of(rest.strip().split("\\s+"));
        out.add(new Use(where, m.group(1), words));
      }
    }
    return out;
  }
}
