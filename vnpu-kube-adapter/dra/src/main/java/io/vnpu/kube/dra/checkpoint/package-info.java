/**
 * The DRA plugin's checkpoint of prepared claims: records, a codec with a SHA-256 over the stored
 * bytes that tolerates unknown fields, and a store that writes atomically and quarantines a corrupt
 * file.
 */
package io.vnpu.kube.dra.checkpoint;
