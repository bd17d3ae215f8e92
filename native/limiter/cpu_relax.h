/*
 * The pause of a spin-wait loop: tells the core a waiter spins (x86 PAUSE, arm64 YIELD), so a
 * sibling hyperthread or the lock holder runs; nothing elsewhere.
 */
#ifndef VNPU_LIMITER_CPU_RELAX_H
#define VNPU_LIMITER_CPU_RELAX_H

static inline void vnpu_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
