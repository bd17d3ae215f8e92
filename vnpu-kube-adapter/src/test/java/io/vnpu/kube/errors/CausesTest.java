package io.vnpu.kube.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

class CausesTest {

  @Test
  void apiServerFailureNamesWhyItFailed() {
    KubernetesClientException e = new KubernetesClientException("Operation: [get]  for kind: [ConfigMap]  "
        + "with name: [cfg]  in namespace: [kube-system]  failed.",
        new IOException("Failed to connect to /127.0.0.1:6443", new ConnectException("Connection refused")));
    assertEquals("Operation: [get] for kind: [ConfigMap] with name: [cfg] in namespace: [kube-system] failed.: "
        + "Failed to connect to /127.0.0.1:6443: Connection refused", Causes.describe(e));
  }

  @Test
  void wrapperCopyingItsCauseIsSkippedSoNoClassNameShows() {
    RuntimeException e = new RuntimeException(new UnknownHostException("kubernetes.default.svc"));
    assertEquals("kubernetes.default.svc", Causes.describe(e));
  }

  @Test
  void repeatedMessageIsNotRepeatedAndMissingMessageIsNamed() {
    IllegalStateException e = new IllegalStateException("list pods: timeout",
        new IOException("timeout", new NullPointerException()));
    assertEquals("list pods: timeout: NullPointerException", Causes.describe(e));
  }

  @Test
  void nullAndCycles() {
    assertEquals("unknown error", Causes.describe(null));
    IOException a = new IOException("a");
    IOException b = new IOException("b", a);
    a.initCause(b);
    assertEquals("a: b", Causes.describe(a));
  }
}
