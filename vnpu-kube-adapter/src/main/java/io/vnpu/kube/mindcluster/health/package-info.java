/**
 * The seam for chip health: {@link io.vnpu.kube.mindcluster.health.ChipHealthSource} is the one
 * place a chip's health and fault list come from.
 */
package io.vnpu.kube.mindcluster.health;
