/**
 * JMH benchmarks of the device-plugin server's Allocate round trip over a real unix socket, with a
 * kubelet registration stand-in so the server reaches REGISTERED as it does on a node.
 */
package io.vnpu.benchmarks.deviceplugin;
