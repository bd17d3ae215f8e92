/* Minimal assertion helpers for the limiter's native tests: a failed check prints and exits 1. */
#ifndef VNPU_TEST_CHECK_H
#define VNPU_TEST_CHECK_H
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                                                  \
    do {                                                                                          \
        if (!(c)) {                                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                 \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                        \
    do {                                                                                          \
        uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);                                        \
        if (va_ != vb_) {                                                                         \
            fprintf(stderr, "%s:%d: %s = %" PRIu64 ", expected %s = %" PRIu64 "\n", __FILE__,     \
                    __LINE__, #a, va_, #b, vb_);                                                  \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
#endif
