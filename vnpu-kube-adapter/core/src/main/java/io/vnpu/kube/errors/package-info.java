/**
 * Small helpers for error messages that name the place: the cause chain of an exception, and {@code
 * Shown}, the one way a tenant-written value (an annotation, a claim field) is quoted and cut
 * before it goes into a message.
 */
package io.vnpu.kube.errors;
