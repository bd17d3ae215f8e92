/**
 * The device model shared by every module: an {@code Npu} with its logic, phy and card IDs, HBM and
 * AI Cores, hard {@code Vnpu}s and their templates, and {@code MemorySize}, the one memory- size
 * type (bytes inside, Kubernetes quantity and MiB at the edges).
 */
package io.vnpu.api.model;
