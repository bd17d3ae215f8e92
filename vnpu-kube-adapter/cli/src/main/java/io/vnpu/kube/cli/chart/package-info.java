/**
 * A small SVG line-chart writer for the demo report (series, reference lines), so the report needs
 * no charting library.
 */
package io.vnpu.kube.cli.chart;
