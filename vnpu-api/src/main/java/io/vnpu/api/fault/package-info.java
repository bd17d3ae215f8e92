/**
 * The fault engine, independent of any driver binding: MindCluster's {@code faultCode.json} levels
 * and customization, the tracker that escalates repeated faults, manual separation stores, and the
 * {@code HealthMonitor} that polls a {@code FaultProbe} and tells listeners which chips are
 * healthy.
 */
package io.vnpu.api.fault;
