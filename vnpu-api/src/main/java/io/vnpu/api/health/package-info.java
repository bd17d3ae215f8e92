/**
 * The vocabulary of chip health every backend reads: fault codes, levels and origins, a chip's
 * reading and health, the {@code HealthSource} listeners subscribe to, and the ports a driver
 * binding implements ({@code FaultProbe}, {@code ChipResetter}, {@code SwitchFaultProbe}).
 */
package io.vnpu.api.health;
