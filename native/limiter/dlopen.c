/*
 * dlopen with RTLD_DEEPBIND still reaches the hooks (issue 23).
 *
 * An object opened RTLD_DEEPBIND looks its symbols up in its own dependency tree first, so a CANN
 * library loaded that way (frameworks and plugin loaders do it) binds rtMalloc & co. straight to
 * libruntime.so, past every LD_PRELOAD definition: no admission, no accounting, "peak HBM 0 B".
 * libvnpu.so therefore exports dlopen. Without RTLD_DEEPBIND it is a tail call to the next dlopen, so
 * the caller glibc sees (whose RPATH/RUNPATH and $ORIGIN the search uses) is still the caller. With
 * RTLD_DEEPBIND it opens the object (searching a bare name along the caller's own search path, as
 * glibc would for the caller), keeps RTLD_DEEPBIND for everything else, and then points the objects
 * this call loaded at our definitions for exactly the symbols libvnpu.so exports: their GOT slots
 * (JUMP_SLOT, GLOB_DAT, absolute pointers) that import such a symbol are rewritten, RELRO pages
 * unprotected for the write and protected again. That is what the dynamic linker would have bound
 * without RTLD_DEEPBIND, and nothing more: every other symbol keeps its deep binding. dlopen itself is
 * among the exports, so an object opened this way that opens another one goes through here too.
 *
 * Limits: x86-64 and AArch64 relocations (elsewhere the patch step does nothing); dlmopen namespaces
 * and dlsym() lookups are not interposed (a dlsym'ed runtime entry point bypasses the limiter, as with
 * a plain preload). Under AddressSanitizer or ThreadSanitizer the sanitizer's own dlopen refuses
 * RTLD_DEEPBIND outright (abort), which is theirs, not ours.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_exports.h"
#include "fork.h"

#define EXPORT __attribute__((visibility("default")))

#if defined(__x86_64__)
#define R_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB R_X86_64_GLOB_DAT
#define R_ABS R_X86_64_64
#define CAN_PATCH 1
#elif defined(__aarch64__)
#define R_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB R_AARCH64_GLOB_DAT
#define R_ABS R_AARCH64_ABS64
#define CAN_PATCH 1
#else
#define CAN_PATCH 0
#endif

typedef void *(*dlopen_fn)(const char *, int);
static dlopen_fn next_dlopen_fn;

static void *no_dlopen(const char *file, int mode)
{
    (void)file, (void)mode;
    return NULL;
}

static dlopen_fn next_dlopen(void)
{
    dlopen_fn f = __atomic_load_n(&next_dlopen_fn, __ATOMIC_ACQUIRE);
    if (__builtin_expect(f == NULL, 0)) {
        f = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
        if (!f) /* glibc >= 2.34 has it in libc.so.6 under two versions, older ones in libdl.so.2 */
            f = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.34");
        if (!f)
            f = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.2.5");
        if (!f)
            f = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.17"); /* AArch64's first version */
        if (!f)
            f = no_dlopen; /* nothing to forward to: every open fails, nothing crashes */
        __atomic_store_n(&next_dlopen_fn, f, __ATOMIC_RELEASE);
    }
    return f;
}

/* ---------- our exports: the symbols a deep-bound object must still bind to us ---------- */

#define MAX_EXPORTS 128
struct export {
    const char *name;
    void *addr;
};
static struct export exports[MAX_EXPORTS];
static int n_exports = -1; /* -1: not read yet */
static uintptr_t self_lo, self_hi; /* our object's mapped range */

struct dynamic {
    const ElfW(Sym) *symtab;
    const char *strtab;
    const uint32_t *hash, *gnu;
    const ElfW(Rela) *rela, *jmprel;
    size_t relasz, pltrelsz;
    uintptr_t relro_lo, relro_hi;
};

static int read_dynamic(const struct dl_phdr_info *info, struct dynamic *d)
{
    memset(d, 0, sizeof *d);
    const ElfW(Dyn) *dyn = NULL;
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096u;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        else if (ph->p_type == PT_GNU_RELRO) {
            /* what the dynamic linker made read-only: whole pages from start to end, rounded down */
            d->relro_lo = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
            d->relro_hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(page - 1);
        }
    }
    if (!dyn)
        return 0;
    int pltrela = 1;
    for (const ElfW(Dyn) *e = dyn; e->d_tag != DT_NULL; e++) {
        switch (e->d_tag) {
        case DT_SYMTAB: d->symtab = (const ElfW(Sym) *)vnpu_elf_dyn_ptr(info, e->d_un.d_ptr); break;
        case DT_STRTAB: d->strtab = (const char *)vnpu_elf_dyn_ptr(info, e->d_un.d_ptr); break;
        case DT_HASH: d->hash = (const uint32_t *)vnpu_elf_dyn_ptr(info, e->d_un.d_ptr); break;
        case DT_GNU_HASH: d->gnu = (const uint32_t *)vnpu_elf_dyn_ptr(info, e->d_un.d_ptr); break;
        case DT_RELA: d->rela = (const ElfW(Rela) *)vnpu_elf_dyn_ptr(info, e->d_un.d_ptr); break;
        case DT_RELASZ: d->relasz = e->d_un.d_val; break;
        case DT_JMPREL: d->jmprel = (const ElfW(Rela) *)vnpu_elf_dyn_ptr(info, e->d_un.d_ptr); break;
        case DT_PLTRELSZ: d->pltrelsz = e->d_un.d_val; break;
        case DT_PLTREL: pltrela = e->d_un.d_val == DT_RELA; break;
        default: break;
        }
    }
    if (!pltrela)
        d->jmprel = NULL, d->pltrelsz = 0; /* REL-format PLT: not on the architectures we patch */
    return d->symtab && d->strtab;
}

static uint32_t symbol_count(const struct dynamic *d)
{
    if (d->hash)
        return d->hash[1];
    return d->gnu ? vnpu_elf_gnu_hash_symbols(d->gnu) : 0;
}

static int contains_self(const struct dl_phdr_info *info)
{
    uintptr_t me = (uintptr_t)&next_dlopen;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && me >= lo && me < lo + ph->p_memsz)
            return 1;
    }
    return 0;
}

static int read_self(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (!contains_self(info))
        return 0;
    struct dynamic d;
    n_exports = 0;
    if (!read_dynamic(info, &d))
        return 1;
    uint32_t n = symbol_count(&d);
    for (uint32_t i = 1; i < n && n_exports < MAX_EXPORTS; i++) {
        const ElfW(Sym) *s = &d.symtab[i];
        if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
            ELF64_ST_BIND(s->st_info) != STB_GLOBAL || ELF64_ST_VISIBILITY(s->st_other) != STV_DEFAULT)
            continue;
        exports[n_exports].name = d.strtab + s->st_name;
        exports[n_exports].addr = (void *)(info->dlpi_addr + s->st_value);
        n_exports++;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (!self_lo || lo < self_lo)
            self_lo = lo;
        if (hi > self_hi)
            self_hi = hi;
    }
    return 1;
}

static void *our_definition(const char *name)
{
    /* every hook is an rt* / rts* entry point, plus dlopen: a cheap filter before the table */
    if (!((name[0] == 'r' && name[1] == 't') || (name[0] == 'd' && name[1] == 'l')))
        return NULL;
    for (int i = 0; i < n_exports; i++)
        if (strcmp(exports[i].name, name) == 0)
            return exports[i].addr;
    return NULL;
}

/* ---------- patching the objects one dlopen call loaded ---------- */

static pthread_mutex_t patch_mu = PTHREAD_MUTEX_INITIALIZER;

void vnpu_dlopen_fork_prepare(void) { pthread_mutex_lock(&patch_mu); }
void vnpu_dlopen_fork_parent(void) { pthread_mutex_unlock(&patch_mu); }
void vnpu_dlopen_fork_child(void) { pthread_mutex_unlock(&patch_mu); }
void vnpu_dlopen_clone_child(void)
{
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    patch_mu = fresh;
}

static void write_slot(const struct dynamic *d, void **slot, void *value)
{
    uintptr_t a = (uintptr_t)slot;
    if (a >= d->relro_lo && a < d->relro_hi) {
        long ps = sysconf(_SC_PAGESIZE);
        uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096u;
        void *pg = (void *)(a & ~(page - 1));
        if (mprotect(pg, page, PROT_READ | PROT_WRITE) != 0)
            return; /* left as the dynamic linker bound it */
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        (void)mprotect(pg, page, PROT_READ);
        return;
    }
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
}

static void patch_relocs(const struct dl_phdr_info *info, const struct dynamic *d, const ElfW(Rela) *r,
                         size_t bytes)
{
#if CAN_PATCH
    for (size_t i = 0; r && i < bytes / sizeof *r; i++) {
        uint32_t type = (uint32_t)ELF64_R_TYPE(r[i].r_info);
        if (type != R_SLOT && type != R_GLOB && !(type == R_ABS && r[i].r_addend == 0))
            continue;
        uint32_t si = (uint32_t)ELF64_R_SYM(r[i].r_info);
        if (si == 0)
            continue;
        const ElfW(Sym) *s = &d->symtab[si];
        if (s->st_shndx != SHN_UNDEF) /* the object's own definition: not an import we interpose */
            continue;
        void *ours = our_definition(d->strtab + s->st_name);
        if (!ours)
            continue;
        void **slot = (void **)(info->dlpi_addr + r[i].r_offset);
        if (*slot != ours)
            write_slot(d, slot, ours);
    }
#else
    (void)info, (void)d, (void)r, (void)bytes;
#endif
}

struct walk {
    int count;           /* objects seen */
    int skip;            /* objects present before the call: not patched */
    uintptr_t mark_addr; /* the last of them, to tell whether the list kept its head meanwhile */
    const char *mark_name;
    int mark_ok;
};

static int count_objects(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct walk *w = arg;
    if (++w->count == w->skip)
        w->mark_ok = info->dlpi_addr == w->mark_addr && info->dlpi_name == w->mark_name;
    if (!w->skip) {
        w->mark_addr = info->dlpi_addr;
        w->mark_name = info->dlpi_name;
    }
    return 0;
}

static int patch_new(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct walk *w = arg;
    if (w->count++ < w->skip)
        return 0;
    if (contains_self(info) || !info->dlpi_name || !info->dlpi_name[0])
        return 0; /* ourselves, the main program, the vDSO */
    struct dynamic d;
    if (!read_dynamic(info, &d))
        return 0;
    patch_relocs(info, &d, d.jmprel, d.pltrelsz);
    patch_relocs(info, &d, d.rela, d.relasz);
    return 0;
}

/* ---------- the caller's search path for a bare name ---------- */

static void *open_along_callers_path(const char *file, int mode, const void *caller)
{
    dlopen_fn next = next_dlopen();
    if (!file || strchr(file, '/'))
        return next(file, mode);
    /* already loaded under that name: glibc returns it whoever asks */
    void *h = next(file, (mode & (RTLD_LAZY | RTLD_NOW)) | RTLD_NOLOAD); /* no RTLD_GLOBAL: never promote */
    if (h) {
        dlclose(h);
        return next(file, mode);
    }
    Dl_info info;
    struct link_map *lm = NULL;
    if (caller && dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm) {
        Dl_serinfo sz;
        if (dlinfo(lm, RTLD_DI_SERINFOSIZE, &sz) == 0 && sz.dls_size > 0 && sz.dls_size < (1u << 20)) {
            Dl_serinfo *si = malloc(sz.dls_size);
            if (si) {
                *si = sz;
                if (dlinfo(lm, RTLD_DI_SERINFOSIZE, si) == 0 && dlinfo(lm, RTLD_DI_SERINFO, si) == 0) {
                    size_t fl = strlen(file);
                    for (unsigned i = 0; i < si->dls_cnt; i++) {
                        const char *dir = si->dls_serpath[i].dls_name;
                        size_t dl = strlen(dir);
                        char *path = malloc(dl + fl + 2);
                        if (!path)
                            break;
                        memcpy(path, dir, dl);
                        path[dl] = '/';
                        memcpy(path + dl + 1, file, fl + 1);
                        h = access(path, F_OK) == 0 ? next(path, mode) : NULL;
                        free(path);
                        if (h)
                            break;
                    }
                }
                free(si);
                if (h)
                    return h;
            }
        }
    }
    return next(file, mode); /* the cache and the default directories: the same for every caller */
}

__attribute__((noinline)) static void *deep_open(const char *file, int mode, const void *caller)
{
    struct walk w;
    memset(&w, 0, sizeof w);
    dl_iterate_phdr(count_objects, &w); /* count, and remember the last object */
    int before = w.count;
    void *h = open_along_callers_path(file, mode, caller);
    if (!h || !CAN_PATCH)
        return h;
    pthread_mutex_lock(&patch_mu);
    if (n_exports < 0)
        dl_iterate_phdr(read_self, NULL);
    if (n_exports > 0) {
        /* objects are appended in load order: the ones past the old last object are this call's. If
         * the list changed in front of it meanwhile (a concurrent dlclose), patch them all: binding an
         * object's imports of our exports to us is what a plain load does anyway. */
        w.count = 0;
        w.skip = before;
        w.mark_ok = 0;
        dl_iterate_phdr(count_objects, &w);
        w.skip = w.mark_ok ? before : 0;
        w.count = 0;
        dl_iterate_phdr(patch_new, &w);
    }
    pthread_mutex_unlock(&patch_mu);
    return h;
}

/* The caller's identity matters to the dynamic linker (its RUNPATH, $ORIGIN): the common case is a
 * sibling call, so glibc sees the original return address. Forced on in builds below -O2. */
#if defined(__clang__)
EXPORT void *dlopen(const char *file, int mode)
{
    if (__builtin_expect(!(mode & RTLD_DEEPBIND), 1))
        __attribute__((musttail)) return next_dlopen()(file, mode);
    return deep_open(file, mode, __builtin_return_address(0));
}
#else
__attribute__((optimize("optimize-sibling-calls"))) EXPORT void *dlopen(const char *file, int mode)
{
    if (__builtin_expect(!(mode & RTLD_DEEPBIND), 1))
        return next_dlopen()(file, mode);
    return deep_open(file, mode, __builtin_return_address(0));
}
#endif
