/**
 * What went wrong in a JSON file this module or the adapter reads (slice records, checkpoints, CDI
 * specs), said in JSON's terms: the field path, the value and the reason, never a Java or Jackson
 * name.
 */
package io.vnpu.quota.json;
