/**
 * How each chip is offered (whole, hard vNPU by {@code memCapacity}, soft share, or counters across
 * them), the {@code --chip-modes} pins, and the capacity names soft shares publish.
 */
package io.vnpu.kube.dra.modes;
