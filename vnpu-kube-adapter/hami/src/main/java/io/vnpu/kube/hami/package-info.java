/**
 * The HAMi Ascend protocol side of the device plugin: a {@link
 * io.vnpu.kube.resource.ResourceManager} ({@link io.vnpu.kube.hami.HamiResourceManager}) that
 * speaks the HAMi scheduler's annotation protocol, the health-and-register loop, and their wiring
 * ({@link io.vnpu.kube.hami.HamiComponents}).
 *
 * <p>Sub-packages: {@code codec} (pure annotation codecs), {@code config} (the plugin's view of the
 * HAMi configs), {@code devices} (NPU snapshot and fake kubelet IDs), {@code kube} (fabric8
 * adapters: pod finder, node registrar, bind writes), {@code bind} (the bind state machine), {@code
 * alloc} (Allocate responses for whole card, hard and soft split), {@code cleanup} (idle hard-vNPU
 * cleanup). Differences from the upstream plugin are the fixes of protocol spec section 9, each
 * named where it is made.
 */
package io.vnpu.kube.hami;
