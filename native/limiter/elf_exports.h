/*
 * Reads the exported function symbols of a loaded shared object from its dynamic section (no file
 * I/O, no allocation): how the compute limiter finds launch entry points the runtime exports and it
 * does not hook.
 */
#ifndef VNPU_LIMITER_ELF_EXPORTS_H
#define VNPU_LIMITER_ELF_EXPORTS_H

#include <link.h>
#include <stdint.h>

typedef void (*vnpu_export_fn)(const char *object, const char *symbol, void *arg);

/*
 * Calls fn(object basename, symbol, arg) for every defined STT_FUNC symbol of the first loaded object
 * whose file name starts with prefix. Returns 1 when such an object was found and read, 0 otherwise.
 */
int vnpu_elf_exported_functions(const char *prefix, vnpu_export_fn fn, void *arg);

/*
 * The number of dynamic symbols a DT_GNU_HASH table (gh, as mapped) covers: the end of its last
 * chain, at most 100000 (a corrupt table never makes the walk unbounded).
 */
uint32_t vnpu_elf_gnu_hash_symbols(const uint32_t *gh);

/* The address of a pointer entry p of an object's dynamic section (absolute or relative to it). */
uintptr_t vnpu_elf_dyn_ptr(const struct dl_phdr_info *info, ElfW(Addr) p);

#endif
