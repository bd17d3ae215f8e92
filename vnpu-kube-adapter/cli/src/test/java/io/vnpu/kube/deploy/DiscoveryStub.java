package io.vnpu.kube.deploy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Just enough of a Kubernetes API server for {@code kubectl apply --dry-run=client}: legacy
 * discovery of the groups the deploy manifests use, and 404 NotFound for every object (so kubectl
 * reports "created (dry run)"). No cluster needed.
 */
final class DiscoveryStub implements AutoCloseable {

  private static final String RESOURCE =
      "{\"name\":\"%s\",\"singularName\":\"%s\",\"namespaced\":%s,"
          + "\"kind\":\"%s\",\"verbs\":[\"create\",\"delete\",\"get\",\"list\",\"patch\",\"update\",\"watch\"]}";

  private final HttpServer server;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final Map<String, String> documents =
      Map.of(
          "/api",
              "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":"
                  + "[{\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":\"127.0.0.1\"}]}",
          "/apis",
              "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":["
                  + group("apps")
                  + ","
                  + group("rbac.authorization.k8s.io")
                  + ","
                  + group("node.k8s.io")
                  + ","
                  + group("admissionregistration.k8s.io")
                  + "]}",
          "/api/v1",
              resources(
                  "v1",
                  resource("configmaps", "configmap", true, "ConfigMap"),
                  resource("serviceaccounts", "serviceaccount", true, "ServiceAccount"),
                  resource("services", "service", true, "Service"),
                  resource("namespaces", "namespace", false, "Namespace")),
          "/apis/apps/v1",
              resources("apps/v1", resource("daemonsets", "daemonset", true, "DaemonSet")),
          "/apis/rbac.authorization.k8s.io/v1",
              resources(
                  "rbac.authorization.k8s.io/v1",
                  resource("clusterroles", "clusterrole", false, "ClusterRole"),
                  resource(
                      "clusterrolebindings", "clusterrolebinding", false, "ClusterRoleBinding")),
          "/apis/node.k8s.io/v1",
              resources(
                  "node.k8s.io/v1",
                  resource("runtimeclasses", "runtimeclass", false, "RuntimeClass")),
          "/apis/admissionregistration.k8s.io/v1",
              resources(
                  "admissionregistration.k8s.io/v1",
                  resource(
                      "validatingadmissionpolicies",
                      "validatingadmissionpolicy",
                      false,
                      "ValidatingAdmissionPolicy"),
                  resource(
                      "validatingadmissionpolicybindings",
                      "validatingadmissionpolicybinding",
                      false,
                      "ValidatingAdmissionPolicyBinding")));

  DiscoveryStub() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Paths requested so far (without query). */
  List<String> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    requests.add(ex.getRequestMethod() + " " + path);
    String body = documents.get(path);
    int code = 200;
    if (body == null) {
      code = 404;
      body =
          "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
              + "\"message\":\""
              + path
              + " not found\",\"reason\":\"NotFound\",\"code\":404}";
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static String group(String name) {
    String gv = "{\"groupVersion\":\"" + name + "/v1\",\"version\":\"v1\"}";
    return "{\"name\":\"" + name + "\",\"versions\":[" + gv + "],\"preferredVersion\":" + gv + "}";
  }

  private static String resource(String plural, String singular, boolean namespaced, String kind) {
    return String.format(RESOURCE, plural, singular, namespaced, kind);
  }

  private static String resources(String groupVersion, String... resources) {
    return "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\""
        + groupVersion
        + "\",\"resources\":["
        + String.join(",", resources)
        + "]}";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
