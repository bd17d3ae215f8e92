package io.vnpu.dcmi.jna;

import com.sun.jna.Library;
import com.sun.jna.ptr.IntByReference;

/**
 * JNA mapping of the LingQu (HCCS switch) fault API of {@code liblingqu-dcmi.so}, A3 servers
 * ({@code native/include/lingqu_dcmi.h}). Return codes are DCMI's.
 */
public interface LingQuLibrary extends Library {
  int lq_dcmi_init();

  /** Fills at most {@code listLen} events into the array starting at {@code first}. */
  int lq_dcmi_get_fault_info(
      int listLen, IntByReference eventListLen, DcmiStructs.LqDcmiEvent first);
}
