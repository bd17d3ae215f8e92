package io.vnpu.kube.testing;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The RBAC a component needs, derived from the requests the fabric8 mock API server saw while the
 * component ran (not from what its code is believed to call), and the RBAC a chart grants, both as
 * {@code <group>/<resource>[/<subresource>]/<verb>} rules ({@code ""} is the core group), so a test
 * can require the two to be equal: every call allowed, nothing granted that no call needs.
 *
 * <p>A request maps to the authorization check the API server makes for it: {@code GET} of a named
 * object is {@code get}, of a collection {@code list} ({@code watch} with {@code watch=true}),
 * {@code POST} {@code create}, {@code PUT} {@code update}, {@code PATCH} {@code patch}, {@code
 * DELETE} {@code delete} ({@code deletecollection} without a name).
 */
public final class RbacFromCalls {
  private RbacFromCalls() {}

  /**
   * One authorization check.
   *
   * @param group API group, {@code ""} for the core group
   * @param resource resource, with {@code /<subresource>} when the path names one
   * @param verb RBAC verb
   * @param namespace the request's namespace, {@code ""} when cluster-scoped or across namespaces
   * @param name the object's name, {@code ""} for a collection
   */
  public record Access(String group, String resource, String verb, String namespace, String name) {
    public Access {
      Objects.requireNonNull(group, "group");
      Objects.requireNonNull(resource, "resource");
      Objects.requireNonNull(verb, "verb");
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(name, "name");
    }

    /** {@code <group>/<resource>/<verb>}. */
    public String rule() {
      return group + "/" + resource + "/" + verb;
    }
  }

  /**
   * A client of the same server that identifies itself by {@code userAgent}, so that the calls of
   * the component under test can be told from the test's own ({@link #drain(KubernetesMockServer,
   * String)}).
   */
  public static KubernetesClient clientAs(KubernetesClient client, String userAgent) {
    Config c = new ConfigBuilder(client.getConfiguration()).build();
    c.setUserAgent(userAgent);
    return new KubernetesClientBuilder().withConfig(c).build();
  }

  /**
   * Every request with User-Agent {@code userAgent} the server recorded since the last drain, in
   * order, as authorization checks; the others are dropped.
   */
  public static List<Access> drain(KubernetesMockServer server, String userAgent)
      throws InterruptedException {
    List<Access> out = new ArrayList<>();
    for (RecordedRequest r; (r = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null; ) {
      if (userAgent.equals(r.getHeader("User-Agent"))) {
        out.add(of(r.getMethod(), r.getPath()));
      }
    }
    return out;
  }

  /**
   * The check for one request.
   *
   * @throws IllegalArgumentException when the path is not a Kubernetes resource path
   */
  public static Access of(String method, String path) {
    int q = path.indexOf('?');
    String query = q < 0 ? "" : path.substring(q + 1);
    String[] p = (q < 0 ? path : path.substring(0, q)).replaceAll("^/+|/+$", "").split("/");
    int i;
    String group;
    if (p.length >= 2 && p[0].equals("api")) {
      group = "";
      i = 2;
    } else if (p.length >= 3 && p[0].equals("apis")) {
      group = p[1];
      i = 3;
    } else {
      throw new IllegalArgumentException("not a resource path: " + path);
    }
    String namespace = "";
    if (p.length - i >= 3 && p[i].equals("namespaces")) {
      namespace = p[i + 1];
      i += 2;
    }
    if (i >= p.length) {
      throw new IllegalArgumentException("no resource in path: " + path);
    }
    String resource = p[i];
    String name = i + 1 < p.length ? p[i + 1] : "";
    if (i + 2 < p.length) {
      resource += "/" + p[i + 2];
    }
    boolean watch = List.of(query.split("&")).contains("watch=true");
    String verb =
        switch (method.toUpperCase(java.util.Locale.ROOT)) {
          case "GET" -> !name.isEmpty() ? "get" : watch ? "watch" : "list";
          case "POST" -> "create";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> name.isEmpty() ? "deletecollection" : "delete";
          default -> throw new IllegalArgumentException("method " + method + " of " + path);
        };
    return new Access(group, resource, verb, namespace, name);
  }

  /** The rules of {@code calls}, sorted. */
  public static Set<String> needed(Collection<Access> calls) {
    Set<String> out = new TreeSet<>();
    calls.forEach(c -> out.add(c.rule()));
    return out;
  }

  /**
   * The rules {@code rules} grant, every group × resource × verb, sorted ({@code resourceNames}
   * narrow a rule but do not change its verbs; wildcards stay {@code *}).
   */
  public static Set<String> granted(Collection<PolicyRule> rules) {
    Set<String> out = new TreeSet<>();
    for (PolicyRule r : rules) {
      for (String g : r.getApiGroups()) {
        for (String res : r.getResources()) {
          for (String v : r.getVerbs()) {
            out.add(g + "/" + res + "/" + v);
          }
        }
      }
    }
    return out;
  }
}
