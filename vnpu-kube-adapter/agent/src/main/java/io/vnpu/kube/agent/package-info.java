/**
 * The node agent: one {@code NodeAgent} runtime that serves every resource manager of a backend
 * through its own device plugin, with request metrics, {@code /metrics} and the probes, and the
 * stop order; an {@code AgentSetup} per mode opens what that mode needs, and {@code NodeHealth} is
 * the one place chip health over DCMI is built.
 */
package io.vnpu.kube.agent;
