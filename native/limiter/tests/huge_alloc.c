/*
 * Driver of test_huge_alloc.sh: allocates argv[1] bytes on device 0 through whatever rtMalloc the
 * dynamic linker finds first (the limiter's, preloaded), then prints the call's code and what
 * rtMemGetInfo reports free, then frees it and prints free again.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

typedef int32_t (*set_fn)(int32_t);
typedef int32_t (*malloc_fn)(void **, uint64_t, uint32_t, uint16_t);
typedef int32_t (*free_fn)(void *);
typedef int32_t (*info_fn)(size_t *, size_t *);

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: huge_alloc BYTES\n");
        return 2;
    }
    uint64_t bytes = strtoull(argv[1], NULL, 0);
    set_fn set = (set_fn)dlsym(RTLD_DEFAULT, "rtSetDevice");
    malloc_fn alloc = (malloc_fn)dlsym(RTLD_DEFAULT, "rtMalloc");
    free_fn release = (free_fn)dlsym(RTLD_DEFAULT, "rtFree");
    info_fn info = (info_fn)dlsym(RTLD_DEFAULT, "rtMemGetInfo");
    if (!set || !alloc || !release || !info) {
        fprintf(stderr, "huge_alloc: no runtime preloaded\n");
        return 2;
    }
    size_t fr = 0, total = 0;
    void *p = NULL;
    if (set(0) != 0) return 3;
    int32_t rc = alloc(&p, bytes, 0, 0);
    info(&fr, &total);
    printf("alloc rc=%d free=%zu total=%zu\n", (int)rc, fr, total);
    if (rc == 0) release(p);
    info(&fr, &total);
    printf("after free free=%zu\n", fr);
    return 0;
}
