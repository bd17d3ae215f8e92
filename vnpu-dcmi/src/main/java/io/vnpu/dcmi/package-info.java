/**
 * The JNA binding to Huawei's DCMI ({@code libdcmi.so}): {@code DcmiDeviceManager} implements the
 * driver port, {@code Dcmi} wraps each DCMI call with its function name and error code, and {@code
 * DcmiNodeSelector} chooses the real driver or, only when asked, the bundled simulator.
 */
package io.vnpu.dcmi;
