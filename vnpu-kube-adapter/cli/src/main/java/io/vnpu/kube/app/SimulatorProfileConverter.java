package io.vnpu.kube.app;

import io.vnpu.dcmi.DcmiNodeSelector;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Checks a bundled simulator profile ({@code --simulate[=PROFILE]}, {@code --sim-profile NAME})
 * while the command line is parsed, so an unknown one is the command's one-line usage error (exit
 * 2) before any driver or node is looked at, whichever command names it.
 *
 * @see DcmiNodeSelector#SIMULATOR_PROFILES
 */
public final class SimulatorProfileConverter implements ITypeConverter<String> {
  /**
   * @return the profile's canonical name ({@code "910A x8"} is {@code 910Ax8})
   * @throws TypeConversionException {@code 'NAME': unknown simulator profile; built-in: ...}
   */
  @Override
  public String convert(String value) {
    return DcmiNodeSelector.canonicalProfile(value)
        .orElseThrow(
            () ->
                new TypeConversionException(
                    "'"
                        + value
                        + "': unknown simulator profile; built-in: "
                        + String.join(", ", DcmiNodeSelector.SIMULATOR_PROFILES)));
  }
}
