/**
 * The per-NPU compute registry: members (one per soft slice), the agent's publication of achieved
 * shares under a seqlock, and the usage window the publisher computes them from.
 */
package io.vnpu.quota.registry;
