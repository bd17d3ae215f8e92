package io.vnpu.kube.cli;

import picocli.CommandLine;

/** Reads the version from the jar manifest (Implementation-Version), "dev" when run from classes. */
final class VersionProvider implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = VnpuCli.class.getPackage().getImplementationVersion();
    return new String[] {"vnpu " + (v == null ? "dev" : v)};
  }
}
