/**
 * Reading ResourceClaims from the API server for a prepare (by namespace and name, UID and
 * allocation checked), noticing claims deleted behind the plugin, and writing claim device status.
 */
package io.vnpu.kube.dra.claims;
