/* See elf_exports.h. Symbol count: DT_HASH's nchain, or the end of DT_GNU_HASH's last chain. */
#include "elf_exports.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#define MAX_SYMBOLS 100000u /* a corrupt count never makes the walk unbounded */

struct scan {
    const char *prefix;
    vnpu_export_fn fn;
    void *arg;
    int found;
};

uintptr_t vnpu_elf_dyn_ptr(const struct dl_phdr_info *info, ElfW(Addr) p)
{
    /* glibc relocates these entries in place; other loaders may leave them relative */
    return p < info->dlpi_addr ? (uintptr_t)(info->dlpi_addr + p) : (uintptr_t)p;
}

uint32_t vnpu_elf_gnu_hash_symbols(const uint32_t *gh)
{
    uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2];
    const uint32_t *buckets = gh + 4 + bloom_size * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t b = 0; b < nbuckets; b++)
        if (buckets[b] > last)
            last = buckets[b];
    if (last < symoffset)
        return symoffset;
    while (!(chain[last - symoffset] & 1u) && last < MAX_SYMBOLS)
        last++;
    return last + 1;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct scan *sc = arg;
    const char *name = info->dlpi_name;
    const char *base = name ? strrchr(name, '/') : NULL;
    base = base ? base + 1 : name;
    if (!base || strncmp(base, sc->prefix, strlen(sc->prefix)) != 0)
        return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return 0;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const uint32_t *hash = NULL, *gnu = NULL;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB)
            symtab = (const ElfW(Sym) *)vnpu_elf_dyn_ptr(info, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            strtab = (const char *)vnpu_elf_dyn_ptr(info, d->d_un.d_ptr);
        else if (d->d_tag == DT_HASH)
            hash = (const uint32_t *)vnpu_elf_dyn_ptr(info, d->d_un.d_ptr);
        else if (d->d_tag == DT_GNU_HASH)
            gnu = (const uint32_t *)vnpu_elf_dyn_ptr(info, d->d_un.d_ptr);
    }
    if (!symtab || !strtab || (!hash && !gnu))
        return 0;
    uint32_t n = hash ? hash[1] : vnpu_elf_gnu_hash_symbols(gnu);
    for (uint32_t i = 1; i < n && i < MAX_SYMBOLS; i++) {
        const ElfW(Sym) *s = &symtab[i];
        if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC)
            continue;
        sc->fn(base, strtab + s->st_name, sc->arg);
    }
    sc->found = 1;
    return 1; /* the first match is enough */
}

int vnpu_elf_exported_functions(const char *prefix, vnpu_export_fn fn, void *arg)
{
    struct scan sc = {prefix, fn, arg, 0};
    dl_iterate_phdr(scan_object, &sc);
    return sc.found;
}
