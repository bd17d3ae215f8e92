/*
 * GCRA with debt: the admission state of one container on one device, free of I/O and clocks so that
 * unit tests drive it with a fake clock (docs/compute-registry.md, "Charging").
 *
 * The state is one 64-bit word in the container's own quota region, shared by all its processes and
 * updated by compare-and-swap only: the theoretical arrival time T (CLOCK_MONOTONIC ns, multiple of
 * 1024) and, in the low 10 bits, the share at which T - now was charged (VNPU_GCRA_CODE_*). T - now is
 * the container's debt in wall time at that share. When the share changes, the debt is rescaled
 * (debt * old / new): the device time owed is what carries over, so a container whose neighbour left
 * is not held back by debt charged at the neighbour-era share, and one whose share fell pays for the
 * work it queued while it had more.
 *
 * A launch of estimated device time c at share f conforms when the container's debt is at most the
 * burst; it then adds c / f (in full: long executions are charged everything they cost). Whole-device
 * share (f = 1, alone and uncapped) uses the same rule: the debt is then the container's queued device
 * work, so it never queues more than the burst ahead of the device, and a neighbour that wakes up
 * waits at most the burst plus the kernel already running.
 *
 * Bounds (fail-open policy): the debt never exceeds burst + VNPU_GCRA_MAX_DEBT_NS (what is charged
 * beyond is forgiven); a word further ahead than that cannot come from launches (corrupt region,
 * clock trouble) and is read as "no debt"; the caller bounds every single wait (compute.c).
 */
#ifndef VNPU_COMPUTE_GCRA_H
#define VNPU_COMPUTE_GCRA_H

#include <stdint.h>

#define VNPU_GCRA_FULL 1000000u               /* share in parts per million: the whole device */
#define VNPU_GCRA_MAX_DEBT_NS 120000000000LL   /* 120 s of debt at most, beyond the burst */
#define VNPU_GCRA_CODE_BITS 10
#define VNPU_GCRA_CODE_MASK ((1 << VNPU_GCRA_CODE_BITS) - 1)

/* Charge (wall ns of debt) for device time cost_ns at share share_ppm (0 is read as 1 ppm; >= FULL
 * as the whole device), at most VNPU_GCRA_MAX_DEBT_NS. */
int64_t vnpu_gcra_charge(uint64_t cost_ns, uint32_t share_ppm);

/* Debt (wall ns at share share_ppm, > 0) the word carries at now; 0 when none; a corrupt word reads 0. */
int64_t vnpu_gcra_debt(int64_t word, int64_t now, uint32_t share_ppm, int64_t burst_ns);

/*
 * One admission step: conforms when the debt at share_ppm is at most burst_ns; then adds
 * vnpu_gcra_charge(cost_ns, share_ppm) (debt capped at burst + VNPU_GCRA_MAX_DEBT_NS) with one CAS and
 * returns 0. Otherwise changes nothing and returns how long to wait (ns, > 0) until it would conform.
 * credit_ns (>= 0): how far the state may lag behind now (time the container could not use: it is
 * charged from now - credit_ns instead of now); 0 = idle time is never banked.
 */
int64_t vnpu_gcra_admit(int64_t *word, int64_t now, uint64_t cost_ns, uint32_t share_ppm, int64_t burst_ns,
                        int64_t credit_ns);

/* vnpu_gcra_admit with its charge given (charge_ns = vnpu_gcra_charge(cost_ns, share_ppm)), for a
 * caller that admits the same cost at the same share over and over and keeps the quotient. */
int64_t vnpu_gcra_admit_charged(int64_t *word, int64_t now, int64_t charge_ns, uint32_t share_ppm, int64_t burst_ns,
                                int64_t credit_ns);

/* The wait (ns, 0 = conforms now) for extra_ns of summed charge against a slack from
 * vnpu_gcra_slack: a sum conforms while it is at most the slack. */
static inline int64_t vnpu_gcra_wait_beyond(int64_t extra_ns, int64_t slack_ns)
{
    return extra_ns > slack_ns ? extra_ns - slack_ns : 0;
}

/* How long (ns, 0 = conforms now) a launch would wait with extra_ns more wall-time charge on the word
 * than it holds (charges a caller has summed and not added yet); changes nothing.
 * vnpu_gcra_wait_beyond(extra_ns, vnpu_gcra_slack(...)). */
int64_t vnpu_gcra_wait(const int64_t *word, int64_t now, int64_t extra_ns, uint32_t share_ppm, int64_t burst_ns,
                       int64_t credit_ns);

/* The most wall-time charge (ns; negative when even none conforms) a caller may hold summed and not
 * added to the word while a launch at now still conforms: burst_ns minus the word's debt at
 * share_ppm (from now - credit_ns at the most). A caller that keeps it may decide later launches at
 * the same now without reading the word (compute.c's fast path); changes nothing. */
int64_t vnpu_gcra_slack(const int64_t *word, int64_t now, uint32_t share_ppm, int64_t burst_ns, int64_t credit_ns);

/*
 * Adds device time delta_ns (> 0: debt, e.g. the part of a launch's measured cost it was not charged,
 * or a launch that ran without conforming; < 0: a refund, never below no debt) at share share_ppm.
 */
void vnpu_gcra_adjust(int64_t *word, int64_t now, int64_t delta_ns, uint32_t share_ppm, int64_t burst_ns);

/* Drops the debt beyond keep_ns (wall ns at share_ppm). */
void vnpu_gcra_forgive(int64_t *word, int64_t now, uint32_t share_ppm, int64_t burst_ns, int64_t keep_ns);

#endif
