/**
 * The DRA driver's composition root: {@code vnpu dra}'s flags, the launcher that opens the driver
 * and its health and starts {@code DraPlugin}, and the standalone main.
 */
package io.vnpu.kube.dra.app;
