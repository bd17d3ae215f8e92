package io.vnpu.kube.observe;

import java.util.List;

/**
 * The soft slices that exist now, asked at every scrape. A slice whose pod is gone must not be
 * listed (its series then disappear). The HAMi backend lists its container directories whose pod
 * still runs on this node; the DRA plugin lists its prepared claims.
 */
@FunctionalInterface
public interface SliceSource {
  List<SliceRef> slices();
}
