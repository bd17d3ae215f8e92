package io.vnpu.kube.cli.demo;

import java.util.Objects;

/**
 * One pass/fail check of the demo.
 *
 * @param name what is checked
 * @param expected the expectation in words, e.g. {@code 25 % ± 5 pp}
 * @param observed what happened, e.g. {@code 24.6 %}
 * @param passed whether the observation meets the expectation
 */
public record DemoCheck(String name, String expected, String observed, boolean passed) {
  public DemoCheck {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(observed, "observed");
  }
}
