/**
 * JMH benchmarks of the HAMi annotation codecs (register annotation, devices-to-allocate,
 * RuntimeInfo), the work every HAMi Allocate and register loop does.
 */
package io.vnpu.benchmarks.hami;
