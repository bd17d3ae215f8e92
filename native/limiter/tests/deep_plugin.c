/* A plugin that calls the runtime directly (test tooling for test_deepbind.sh): opened with
 * RTLD_DEEPBIND after the limiter initialised, its rtMalloc must still be admitted and charged. */
#include <stddef.h>

#include "runtime/rt.h"

__attribute__((visibility("default"))) int deep_plugin_alloc(unsigned long long bytes, void **p)
{
    int rc = (int)rtSetDevice(0);
    return rc ? rc : (int)rtMalloc(p, bytes, RT_MEMORY_HBM, 0);
}

__attribute__((visibility("default"))) int deep_plugin_free(void *p) { return (int)rtFree(p); }
