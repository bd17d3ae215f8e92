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
    KubernetesClientException e =
        new KubernetesClientException(
            "Operation: [get]  for kind: [ConfigMap]  "
                + "with name: [cfg]  in namespace: [kube-system]  failed.",
            new IOException(
                "Failed to connect to /127.0.0.1:6443",
                new ConnectException("Connection refused")));
    assertEquals(
        "Operation: [get] for kind: [ConfigMap] with name: [cfg] in namespace: [kube-system] failed.: "
            + "Failed to connect to /127.0.0.1:6443: Connection refused",
        Causes.describe(e));
  }

  @Test
  void wrapperCopyingItsCauseIsSkippedSoNoClassNameShows() {
    RuntimeException e = new RuntimeException(new UnknownHostException("kubernetes.default.svc"));
    assertEquals("kubernetes.default.svc", Causes.describe(e));
  }

  @Test
  void repeatedMessageIsNotRepeatedAndMissingMessageIsNamed() {
    IllegalStateException e =
        new IllegalStateException(
            "list pods: timeout", new IOException("timeout", new NullPointerException()));
    assertEquals("list pods: timeout: NullPointerException", Causes.describe(e));
  }

  @Test
  void messageLessNetworkFailuresAreWords() {
    // what fabric8 throws when the API server's host does not resolve (no kubeconfig, no cluster
    // DNS)
    ConnectException connect = new ConnectException();
    connect.initCause(new java.nio.channels.UnresolvedAddressException());
    KubernetesClientException e =
        new KubernetesClientException(
            "Operation: [list] for kind: [Pod] failed.", new IOException(connect));
    assertEquals(
        "Operation: [list] for kind: [Pod] failed.: host name does not resolve",
        Causes.describe(e));
    assertEquals(
        "x: connection refused",
        Causes.describe(new IllegalStateException("x", new ConnectException())));
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
