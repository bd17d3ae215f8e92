/**
 * The byte offsets of the quota region and the compute registry, mirrored from {@code
 * native/include/vnpu_region.h} and checked by the conformance tests; nothing outside {@code vnpu-
 * quota} may use them.
 */
package io.vnpu.quota.layout;
