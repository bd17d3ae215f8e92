/*
 * Prints every constant of vnpu_registry.h as NAME=VALUE (decimal), and the launch-symbol counter
 * indexes as VNPU_SYM_<name>=INDEX, one a line, for the Java conformance test (vnpu-quota
 * RegistryLayoutConformanceTest) and for humans.
 */
#include <stdio.h>

#include "compute.h"
#include "vnpu_registry.h"

#define P(name) printf("%s=%llu\n", #name, (unsigned long long)(name))
#define PSYM(name) printf("VNPU_SYM_%s=%d\n", #name, (int)VNPU_SYM_##name);

int main(void)
{
    P(VNPU_REG_MAGIC);
    P(VNPU_REG_MAJOR);
    P(VNPU_REG_MINOR);
    P(VNPU_REG_ENTRY_COUNT);
    P(VNPU_REG_NAME_BYTES);
    P(VNPU_REG_SYMBOL_COUNT);
    P(VNPU_REG_HDR_BYTES);
    P(VNPU_REG_ENTRIES_OFF);
    P(VNPU_REG_ENTRY_BYTES);
    P(VNPU_REG_FILE_BYTES);
    P(VNPU_RH_MAGIC);
    P(VNPU_RH_MAJOR);
    P(VNPU_RH_MINOR);
    P(VNPU_RH_HEADER_BYTES);
    P(VNPU_RH_FILE_BYTES);
    P(VNPU_RH_INIT_STATE);
    P(VNPU_RH_ENTRY_COUNT);
    P(VNPU_RH_ENTRY_BYTES);
    P(VNPU_RH_PHYS_ID);
    P(VNPU_RH_EPOCH);
    P(VNPU_RH_CREATED_NS);
    P(VNPU_RH_ACTIVE_WINDOW_MS);
    P(VNPU_RH_BURST_US);
    P(VNPU_RH_PRIO_WAIT_MS);
    P(VNPU_RH_CREATOR);
    P(VNPU_RH_WRITE_SEQ);
    P(VNPU_RE_STATE);
    P(VNPU_RE_FLAGS);
    P(VNPU_RE_KEY);
    P(VNPU_RE_WEIGHT);
    P(VNPU_RE_CAP_PCT);
    P(VNPU_RE_PRIORITY_CLASS);
    P(VNPU_RE_GENERATION);
    P(VNPU_RE_NAME);
    P(VNPU_RE_DEVICE_INDEX);
    P(VNPU_REG_INIT_EMPTY);
    P(VNPU_REG_INIT_INITIALISING);
    P(VNPU_REG_INIT_READY);
    P(VNPU_REG_ENTRY_FREE);
    P(VNPU_REG_ENTRY_ACTIVE);
    P(VNPU_REG_CREATOR_TOOL);
    P(VNPU_REG_CREATOR_JAVA);
    P(VNPU_REG_PRIO_HIGH);
    P(VNPU_REG_PRIO_NORMAL);
    P(VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS);
    P(VNPU_REG_DEFAULT_BURST_US);
    P(VNPU_REG_DEFAULT_PRIO_WAIT_MS);
    P(VNPU_REG_LOCK_BASE);
    P(VNPU_REG_LOCK_INIT);
    P(VNPU_REG_LOCK_ADMIN);
    VNPU_LAUNCH_SYMBOLS(PSYM)
    return 0;
}
