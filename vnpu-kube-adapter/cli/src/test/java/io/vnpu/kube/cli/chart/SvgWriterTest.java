package io.vnpu.kube.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class SvgWriterTest {

  private static Document parse(String svg) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    return f.newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
  }

  private static LineChart chart() {
    return new LineChart(
        "AI-core share <demo> & more",
        "time (s)",
        "share (%)",
        10,
        0,
        100,
        List.of(
            new Series(
                "demo-a (weight 1)",
                "#1f77b4",
                List.of(
                    new Series.Point(0, 50), new Series.Point(5, 25), new Series.Point(10, 25))),
            new Series(
                "demo-b (weight 3)",
                "#d62728",
                List.of(
                    new Series.Point(0, 50), new Series.Point(5, 75), new Series.Point(10, 120)))),
        List.of(
            new ReferenceLine(25, "target 25%", "#1f77b4"),
            new ReferenceLine(75, "target 75%", "#d62728")));
  }

  @Test
  void writesAWellFormedSvgWithOnePolylinePerSeries() throws Exception {
    Document doc = parse(new SvgWriter().write(chart()));
    Element root = doc.getDocumentElement();
    assertThat(root.getLocalName()).isEqualTo("svg");
    assertThat(root.getNamespaceURI()).isEqualTo("http://www.w3.org/2000/svg");
    assertThat(root.getAttribute("width")).isEqualTo("720");
    NodeList lines = doc.getElementsByTagName("polyline");
    assertThat(lines.getLength()).isEqualTo(2);
    assertThat(((Element) lines.item(0)).getAttribute("stroke")).isEqualTo("#1f77b4");
    assertThat(doc.getElementsByTagName("title").item(0).getTextContent())
        .isEqualTo("AI-core share <demo> & more");
  }

  @Test
  void mapsDataToThePlotAreaAndClampsOutliers() throws Exception {
    Document doc = parse(new SvgWriter().write(chart()));
    Element a = (Element) doc.getElementsByTagName("polyline").item(0);
    Element b = (Element) doc.getElementsByTagName("polyline").item(1);
    // plot: x 60..570 (510 px for 0..10 s), y 40..350 (310 px for 100..0 %)
    assertThat(a.getAttribute("points")).isEqualTo("60.0,195.0 315.0,272.5 570.0,272.5");
    assertThat(b.getAttribute("points")).isEqualTo("60.0,195.0 315.0,117.5 570.0,40.0");
  }

  @Test
  void drawsDashedReferenceLinesAtTheirValue() throws Exception {
    Document doc = parse(new SvgWriter().write(chart()));
    NodeList all = doc.getElementsByTagName("line");
    int refs = 0;
    for (int i = 0; i < all.getLength(); i++) {
      Element e = (Element) all.item(i);
      if (e.getAttribute("class").equals("reference")) {
        refs++;
        assertThat(e.getAttribute("stroke-dasharray")).isEqualTo("6 4");
        assertThat(e.getAttribute("y1")).isIn("272.5", "117.5");
      }
    }
    assertThat(refs).isEqualTo(2);
  }
}
