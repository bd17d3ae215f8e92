package io.vnpu.dcmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dcmi_get_device_ip} and {@code dcmi_get_product_type} through the JNA binding on the
 * simulated driver, and the way {@link DcmiDeviceManager} reads a chip's RoCE address (IPv4 first,
 * then IPv6 unless link-local) and its card's product type.
 */
class DcmiDeviceIpTest {
  @TempDir Path root;

  @Test
  void roceAddressIsTheIpv4OfPortZeroOnTrainingChips() throws Exception {
    SimNode node = new SimNode("910Ax8", root);
    try (DcmiDeviceManager manager = node.open()) {
      manager.discover();
      // 910Ax8: logic 0 is phy 4 (card 0); the profile numbers addresses 192.168.100.(101 + phy)
      assertThat(manager.roceIp(0)).hasValue("192.168.100.105");
      assertThat(manager.roceIp(4)).hasValue("192.168.100.101");
      assertThat(manager.dcmi().deviceIp(0, 0, Dcmi.ROCE_PORT, 0, false))
          .isEqualTo(InetAddress.getByName("192.168.100.105"));
      // the VNIC port is not there: the binding reports the driver's code
      assertThatThrownBy(() -> manager.dcmi().deviceIp(0, 0, 0, 0, false))
          .isInstanceOfSatisfying(DcmiException.class, e -> assertThat(e.code()).isEqualTo(-8255));
    }
  }

  @Test
  void ipv6IsTheFallbackAndALinkLocalOneCountsAsNone() {
    SimNode node = new SimNode("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      manager.discover();
      node.ctl("ip", "2", "fd00:0:0:0:0:0:0:1a");
      assertThat(manager.roceIp(2)).hasValue("fd00::1a");
      node.ctl("ip", "2", "2001:db8:0:0:1:0:0:1");
      assertThat(manager.roceIp(2)).hasValue("2001:db8::1:0:0:1");
      node.ctl("ip", "2", "fe80::3");
      assertThat(manager.roceIp(2)).isEmpty();
      node.ctl("ip", "2", "none");
      assertThat(manager.roceIp(2)).isEmpty();
      node.ctl("ip", "2", "10.1.2.3");
      assertThat(manager.roceIp(2)).hasValue("10.1.2.3");
      assertThat(manager.roceIp(3)).hasValue("192.168.100.104");
    }
  }

  @Test
  void inferenceChipsHaveNoRoceAddressAndReportTheirProduct() {
    SimNode node = new SimNode("310PMixedx4", root);
    try (DcmiDeviceManager manager = node.open()) {
      manager.discover();
      assertThat(List.of(0, 1, 2, 3)).allSatisfy(l -> assertThat(manager.roceIp(l)).isEmpty());
      assertThat(List.of(0, 1, 2, 3).stream().map(manager::productType).toList())
          .containsExactly(
              Optional.of("Atlas 300V Pro"),
              Optional.of("Atlas 300V"),
              Optional.of("Atlas 300I Pro"),
              Optional.of("Atlas 300V Pro"));
    }
  }

  @Test
  void serverProductsHaveNoProductType() {
    SimNode node = new SimNode("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      manager.discover();
      assertThat(manager.productType(0)).isEmpty();
      assertThat(manager.driverVersion()).hasValue("24.1.rc2");
      assertThat(manager.boardId(0)).hasValue(0x64);
    }
    SimNode a2 = new SimNode("300IA2x4", root.resolve("a2"));
    try (DcmiDeviceManager manager = a2.open()) {
      manager.discover();
      assertThat(manager.boardId(3)).hasValue(0x28);
    }
    SimNode duo = new SimNode("300IDuox2", root.resolve("duo"));
    try (DcmiDeviceManager manager = duo.open()) {
      manager.discover();
      assertThat(manager.productType(3)).hasValue("Atlas 300I Duo");
    }
  }

  @Test
  void ipv6TextIsRfc5952() throws Exception {
    assertThat(IpText.of(InetAddress.getByName("2001:db8:0:0:0:0:2:1"))).isEqualTo("2001:db8::2:1");
    assertThat(IpText.of(InetAddress.getByName("2001:db8:0:1:1:1:1:1")))
        .isEqualTo("2001:db8:0:1:1:1:1:1");
    assertThat(IpText.of(InetAddress.getByName("2001:0:0:1:0:0:0:1"))).isEqualTo("2001:0:0:1::1");
    assertThat(IpText.of(InetAddress.getByName("2001:db8:0:0:1:0:0:1")))
        .isEqualTo("2001:db8::1:0:0:1");
    assertThat(IpText.of(InetAddress.getByName("::1"))).isEqualTo("::1");
    assertThat(IpText.of(InetAddress.getByName("fd00::"))).isEqualTo("fd00::");
    assertThat(IpText.of(InetAddress.getByName("10.0.0.7"))).isEqualTo("10.0.0.7");
  }
}
