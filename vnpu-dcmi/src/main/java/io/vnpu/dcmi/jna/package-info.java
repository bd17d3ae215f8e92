/**
 * The raw JNA interfaces and structures of {@code libdcmi.so} and {@code liblingqu-dcmi.so}, laid
 * out as the C headers declare them; only this module's binding uses them.
 */
package io.vnpu.dcmi.jna;
