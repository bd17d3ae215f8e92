/**
 * Value types of the quota protocol: a region's configuration per device (memory quota, AI-core
 * cap, weight, priority, policy flags), slot states and the usage snapshots read back from a
 * region.
 */
package io.vnpu.quota.model;
