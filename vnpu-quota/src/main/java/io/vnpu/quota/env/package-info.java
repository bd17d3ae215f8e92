/**
 * The limiter's environment contract ({@code native/limiter/config.h}): the variable names a
 * container or host workload gets and their units, in one class checked against the C header.
 */
package io.vnpu.quota.env;
