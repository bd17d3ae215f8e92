/**
 * The {@code vnpu} command (picocli): thin commands over the libraries ({@code config check},
 * {@code devices}, {@code run}, {@code top}, {@code slices}, {@code demo}, {@code plugin}, {@code
 * dra}) and the one-line usage-error handler.
 */
package io.vnpu.kube.cli;
