package io.vnpu.kube.app;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a picocli {@code @Option} field as an upstream Go flag, spelt as Go's {@code flag} package
 * parses it ({@link GoFlagSpelling}, applied by the class's {@code @Command(modelTransformer =
 * GoFlagSpelling.class)}): declare it with its double-dash name only. picocli applies the rule to a
 * {@code CommandLine} it constructs for the command (or a command using the class as a mixin), not
 * to a subcommand added by class: add such a command as {@code new CommandLine(Command.class)}. A
 * command has one model transformer, its own or its mixins': a command using these mixins must not
 * set another.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface GoFlag {}
