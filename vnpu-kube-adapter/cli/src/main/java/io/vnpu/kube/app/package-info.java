/**
 * The composition roots of the shipped node agents: {@code NodeAgentMain} and {@code
 * DefaultBackends} for HAMi, {@code HamiBackend}, and the MindCluster agent ({@code
 * MindClusterLauncher}, {@code MindClusterSetup}, {@code MindClusterNodeBackend}), each wiring
 * flags to the library modules; nothing here is library code.
 */
package io.vnpu.kube.app;
