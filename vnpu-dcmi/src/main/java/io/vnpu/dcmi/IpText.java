package io.vnpu.dcmi;

import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * The text form of a chip address as MindCluster writes it into rank tables and node annotations
 * (Go's {@code net.IP.String}): dotted quad for IPv4, RFC 5952 for IPv6 (lower-case hex, no leading
 * zeros, the longest run of two or more zero groups, the first on a tie, as {@code ::}).
 */
final class IpText {
  private IpText() {}

  static String of(InetAddress address) {
    if (address instanceof Inet4Address) {
      return address.getHostAddress();
    }
    byte[] b = address.getAddress();
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xFF) << 8) | (b[2 * i + 1] & 0xFF);
    }
    int bestStart = -1;
    int bestLen = 1; // a single zero group is not shortened (RFC 5952 section 4.2.2)
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) j++;
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') sb.append(':');
      sb.append(Integer.toHexString(groups[i]));
    }
    return sb.toString();
  }
}
