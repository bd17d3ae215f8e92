/**
 * The bind of one pod ({@link io.vnpu.kube.hami.bind.BindState}) and the Allocate flow that drives
 * it ({@link io.vnpu.kube.hami.bind.HamiAllocator}).
 */
package io.vnpu.kube.hami.bind;
