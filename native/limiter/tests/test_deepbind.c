/*
 * Driven by test_deepbind.sh (libvnpu.so preloaded, quota 2 GiB): libascendcl.so opened by its bare
 * name (found along this program's RUNPATH) with MODE, then three 1 GiB aclrtMalloc; then a plugin
 * calling rtMalloc directly, opened the same way after the limiter initialised. Prints one line per
 * call: "acl 1G rc=N", "plugin 1G rc=N" (then "free rc=N" and "plugin 1G rc=N" again).
 *   MODE: deep (RTLD_NOW|RTLD_LOCAL|RTLD_DEEPBIND), lazy-deep (RTLD_LAZY|...), local (RTLD_NOW|RTLD_LOCAL),
 *         runtime-first (libruntime.so opened RTLD_DEEPBIND first, then libascendcl.so the same way)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define GIB (1ull << 30)

typedef int (*init_fn)(const char *);
typedef int (*setdev_fn)(int);
typedef int (*malloc_fn)(void **, size_t, int);
typedef int (*free_fn)(void *);
typedef int (*palloc_fn)(unsigned long long, void **);

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    int mode;
    if (!strcmp(m, "deep") || !strcmp(m, "runtime-first")) mode = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
    else if (!strcmp(m, "lazy-deep")) mode = RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND;
    else if (!strcmp(m, "local")) mode = RTLD_NOW | RTLD_LOCAL;
    else {
        fprintf(stderr, "usage: test_deepbind deep|lazy-deep|local|runtime-first\n");
        return 2;
    }
    if (!strcmp(m, "runtime-first") && !dlopen("libruntime.so", mode)) {
        printf("dlopen libruntime.so: %s\n", dlerror());
        return 1;
    }
    void *acl = dlopen("libascendcl.so", mode);
    if (!acl) {
        printf("dlopen libascendcl.so: %s\n", dlerror());
        return 1;
    }
    init_fn init = (init_fn)dlsym(acl, "aclInit");
    setdev_fn setdev = (setdev_fn)dlsym(acl, "aclrtSetDevice");
    malloc_fn mal = (malloc_fn)dlsym(acl, "aclrtMalloc");
    free_fn fr = (free_fn)dlsym(acl, "aclrtFree");
    if (!init || !setdev || !mal || !fr) {
        printf("dlsym: %s\n", dlerror());
        return 1;
    }
    init(NULL);
    setdev(0);
    void *p[3] = {0};
    for (int i = 0; i < 3; i++) printf("acl 1G rc=%d\n", mal(&p[i], GIB - 64, 0)); /* ACL pads to 1 GiB */
    void *plugin = dlopen("libdeepplugin.so", mode);
    if (!plugin) {
        printf("dlopen libdeepplugin.so: %s\n", dlerror());
        return 1;
    }
    palloc_fn palloc = (palloc_fn)dlsym(plugin, "deep_plugin_alloc");
    if (!palloc) return 1;
    void *q = NULL;
    printf("plugin 1G rc=%d\n", palloc(GIB, &q));
    printf("free rc=%d\n", fr(p[0]));
    printf("plugin 1G rc=%d\n", palloc(GIB, &q));
    return 0;
}
