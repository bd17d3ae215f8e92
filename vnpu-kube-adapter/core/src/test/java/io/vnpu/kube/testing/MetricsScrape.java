package io.vnpu.kube.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scrapes a {@code /metrics} endpoint over HTTP as Prometheus does (text format) and returns its
 * per-slice series in a short form a test can assert on: {@code
 * name{namespace=,pod=,container=[,device_index=]} value}.
 */
public final class MetricsScrape {
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private MetricsScrape() {}

  /**
   * The {@code vnpu_slice_*} samples of {@code http://127.0.0.1:<port>/metrics}.
   *
   * @throws IOException when the endpoint does not answer 200
   */
  public static List<String> sliceSeries(int port) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200)
      throw new IOException("/metrics answered " + r.statusCode() + ": " + r.body());
    List<String> out = new ArrayList<>();
    for (String line : r.body().split("\n")) {
      if (!line.startsWith("vnpu_slice_") || line.contains("_created")) continue;
      int brace = line.indexOf('{');
      int end = line.lastIndexOf('}');
      if (brace < 0 || end < brace) continue;
      Map<String, String> labels = new TreeMap<>();
      Matcher m = LABEL.matcher(line.substring(brace + 1, end));
      while (m.find()) labels.put(m.group(1), m.group(2));
      String dev = labels.get("device_index");
      out.add(
          line.substring(0, brace)
              + "{namespace="
              + labels.get("namespace")
              + ",pod="
              + labels.get("pod")
              + ",container="
              + labels.get("container")
              + (dev == null ? "" : ",device_index=" + dev)
              + "} "
              + line.substring(line.lastIndexOf(' ') + 1));
    }
    return out;
  }
}
