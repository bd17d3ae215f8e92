/**
 * The adapter's Jackson 3 mappers with the rules every JSON it writes or reads shares (declaration
 * order of properties, what unknown fields and nulls mean), set explicitly once because Jackson 3
 * changed the defaults.
 */
package io.vnpu.kube.json;
