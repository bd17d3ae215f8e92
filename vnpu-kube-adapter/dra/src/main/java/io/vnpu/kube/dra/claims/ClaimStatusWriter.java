package io.vnpu.kube.dra.claims;

import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.errors.Causes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@code status.devices} of a prepared claim (KEP-4817 device status): one entry per
 * prepared (device, shareID) of this driver, with {@code data} describing what the container got.
 * Best effort, never failing a prepare: without the RBAC verbs ({@code resourceclaims/status} patch
 * and, from Kubernetes 1.36, {@code resourceclaims/driver} {@code associated-node:patch}) the API
 * server answers 403, which is logged once; other failures are logged per claim.
 *
 * <p>{@code data} (JSON object): {@code uuid} (die UUID, DCMI {@code dcmi_get_device_die_v2}),
 * {@code physicalId}; for a hard vNPU {@code vnpuId} and {@code template}; for a soft share {@code
 * memory} (bytes), {@code cores} (percent charged), {@code computeWeight}, {@code computeCap}
 * (percent, 0 = none) and {@code priority}. Entries of other drivers and pools are kept; ours are
 * replaced; nothing is written when they already say the same, nor when the claim the API server
 * has under that name by now is another one (other UID, or no status).
 */
public final class ClaimStatusWriter {

  private static final Logger log = LoggerFactory.getLogger(ClaimStatusWriter.class);

  private final KubernetesClient client;
  private final String driverName;
  private final String poolName;
  private final AtomicBoolean forbiddenTold = new AtomicBoolean();

  public ClaimStatusWriter(KubernetesClient client, String driverName, String poolName) {
    this.client = Objects.requireNonNull(client, "client");
    this.driverName = Objects.requireNonNull(driverName, "driverName");
    this.poolName = Objects.requireNonNull(poolName, "poolName");
  }

  /**
   * Records {@code devices} in the status of {@code claim} (as read for the prepare).
   *
   * @param npus the NPU of a device name (its die UUID), {@code npu-<phy>} or {@code
   *     npu-<phy>-soft}
   */
  public void prepared(
      ResourceClaim claim,
      List<PreparedDevice> devices,
      java.util.function.Function<String, java.util.Optional<Npu>> npus) {
    List<AllocatedDeviceStatus> ours = entries(devices, npus);
    List<AllocatedDeviceStatus> current =
        claim.getStatus() == null || claim.getStatus().getDevices() == null
            ? List.of()
            : claim.getStatus().getDevices();
    if (merged(current, ours).equals(current)) {
      return;
    }
    String ns = claim.getMetadata().getNamespace();
    String name = claim.getMetadata().getName();
    String uid = claim.getMetadata().getUid();
    try {
      ResourceClaims.named(client, ns, name)
          .editStatus(
              c -> {
                if (!Objects.equals(uid, c.getMetadata().getUid()) || c.getStatus() == null) {
                  throw new Replaced(c.getMetadata().getUid());
                }
                ResourceClaimStatus s = c.getStatus();
                List<AllocatedDeviceStatus> now =
                    s.getDevices() == null ? List.of() : s.getDevices();
                s.setDevices(merged(now, ours));
                return c;
              });
    } catch (Replaced e) {
      // the status is the claim's the API server has now: never another claim's devices
      log.info(
          "ResourceClaim {}/{}: replaced (uid {} -> {}) or no longer allocated before its"
              + " status.devices were written; not written",
          ns,
          name,
          uid,
          e.uid);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403) {
        if (forbiddenTold.compareAndSet(false, true)) {
          log.info(
              "ResourceClaim {}/{}: not allowed to write status.devices ({}); device status"
                  + " is not written until the RBAC grants resourceclaims/status patch and"
                  + " resourceclaims/driver associated-node:patch",
              ns,
              name,
              e.getStatus() == null ? "403" : e.getStatus().getMessage());
        }
        return;
      }
      log.warn(
          "ResourceClaim {}/{}: writing status.devices failed: {}", ns, name, Causes.describe(e));
    }
  }

  /**
   * The claim read for the status write is not the one prepared (deleted and created again under
   * its name) or has no status (not allocated).
   */
  private static final class Replaced extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String uid;

    Replaced(String uid) {
      super(null, null, false, false);
      this.uid = uid;
    }
  }

  /** {@code current} with this driver's entries of this pool replaced by {@code ours}. */
  private List<AllocatedDeviceStatus> merged(
      List<AllocatedDeviceStatus> current, List<AllocatedDeviceStatus> ours) {
    List<AllocatedDeviceStatus> out = new ArrayList<>();
    for (AllocatedDeviceStatus d : current) {
      boolean mine =
          driverName.equals(d.getDriver())
              && poolName.equals(d.getPool())
              && ours.stream()
                  .anyMatch(
                      o ->
                          o.getDevice().equals(d.getDevice())
                              && Objects.equals(o.getShareID(), d.getShareID()));
      if (!mine) {
        out.add(d);
      }
    }
    out.addAll(ours);
    return out;
  }

  private List<AllocatedDeviceStatus> entries(
      List<PreparedDevice> devices,
      java.util.function.Function<String, java.util.Optional<Npu>> npus) {
    List<AllocatedDeviceStatus> out = new ArrayList<>();
    for (PreparedDevice d : devices) {
      Map<String, Object> data = new LinkedHashMap<>();
      npus.apply(d.deviceName()).ifPresent(npu -> data.put("uuid", npu.uuid()));
      data.put("physicalId", d.physicalId());
      if (d.vnpu() != null) {
        if (d.vnpu().vnpuId() != null) {
          data.put("vnpuId", d.vnpu().vnpuId());
        }
        data.put("template", d.vnpu().template());
      }
      if (d.soft() != null) {
        data.put("memory", d.soft().memoryBytes());
        data.put("cores", d.soft().cores());
        data.put("computeWeight", d.soft().weight());
        data.put("computeCap", d.soft().capPct());
        data.put("priority", d.soft().priority().name().toLowerCase(java.util.Locale.ROOT));
      }
      out.add(
          new AllocatedDeviceStatusBuilder()
              .withDriver(driverName)
              .withPool(d.poolName())
              .withDevice(d.deviceName())
              .withShareID(d.shareId())
              .withData(data)
              .build());
    }
    return out;
  }
}
