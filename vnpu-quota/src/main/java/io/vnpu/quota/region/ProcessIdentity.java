package io.vnpu.quota.region;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** PID and start time of the current process, as the C limiter records them in its slot. */
record ProcessIdentity(int pid, long startTime) {

  static ProcessIdentity current() {
    return new ProcessIdentity(
        (int) ProcessHandle.current().pid(), readStartTime(Path.of("/proc/self/stat")));
  }

  /** Field 22 of /proc/PID/stat (clock ticks since boot), 0 when unreadable. */
  static long readStartTime(Path stat) {
    try {
      String s = Files.readString(stat, StandardCharsets.US_ASCII);
      String[] rest = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(rest[22 - 3]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
