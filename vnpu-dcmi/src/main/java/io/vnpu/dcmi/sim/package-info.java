/**
 * Locates the simulated {@code libdcmi.so} of the native build; reached only through {@code
 * DcmiNodeSelector}, so no production path can fall back to the simulator by accident.
 */
package io.vnpu.dcmi.sim;
