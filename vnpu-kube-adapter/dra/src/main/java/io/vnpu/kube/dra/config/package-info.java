/**
 * The claim's opaque {@code NpuConfig} ({@code npu.vnpu.io/v1alpha1}): decoding with errors naming
 * the claim and field, and which config applies to which request.
 */
package io.vnpu.kube.dra.config;
