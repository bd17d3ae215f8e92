/**
 * Pure codecs of the HAMi annotations (protocol spec sections 2 and 3): the node register JSON
 * (byte-exact with Go {@code encoding/json}), handshake values, the node lock, devices-to-allocate
 * and RuntimeInfo. No I/O.
 */
package io.vnpu.kube.hami.codec;
