/**
 * The driver port: {@code DeviceManager} lists NPUs, creates and destroys vNPUs and reads usage;
 * {@code vnpu-dcmi} implements it over {@code libdcmi.so}, tests with in-memory fakes.
 */
package io.vnpu.api.spi;
