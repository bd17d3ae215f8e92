#include "config.h"
#include "safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB VNPU_ENV_MEM_QUOTA_UNIT_BYTES

void vnpu_config_region_path(char *buf, size_t len) {
    const char *p = getenv(VNPU_ENV_REGION_PATH);
    snprintf(buf, len, "%s", p && *p ? p : VNPU_DEFAULT_REGION_PATH);
}

struct values {
    const char *quota, *priority, *devices, *cap;
};

static void logf_(vnpu_log_fn log, const char *fmt, const char *a, const char *b, const char *c) {
    char line[768];
    snprintf(line, sizeof line, fmt, a, b, c);
    log(line);
}

static int parse_u64(const char *s, unsigned long long max, unsigned long long *out) {
    if (!s || !*s) return 0;
    for (const char *q = s; *q; q++)
        if (*q < '0' || *q > '9') return 0;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > max) return 0;
    *out = v;
    return 1;
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = 0;
    return s;
}

/* Reads the config file into buf (NUL-terminated) and points the known keys into it. */
static void read_file(const char *file, char *buf, size_t len, struct values *v, vnpu_log_fn log) {
    /* regular file only, no symlink, never blocking: a FIFO here must not hang every NPU process */
    int fd = vnpu_open_regular(file, O_RDONLY, 0);
    if (fd < 0) return;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0) return;
    buf[n] = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line = trim(line);
        if (!*line || *line == '#') continue;
        char *eq = strchr(line, '=');
        if (!eq) {
            logf_(log, "vnpu: %s: line '%s' is not KEY=VALUE; ignored%s", file, line, "");
            continue;
        }
        *eq = 0;
        char *k = trim(line), *val = trim(eq + 1);
        if (!strcmp(k, VNPU_ENV_MEM_QUOTA)) v->quota = val;
        else if (!strcmp(k, VNPU_ENV_PRIORITY)) v->priority = val;
        else if (!strcmp(k, VNPU_ENV_DEVICE_COUNT)) v->devices = val;
        else if (!strcmp(k, VNPU_ENV_COMPUTE_CAP_PCT)) v->cap = val;
        else logf_(log, "vnpu: %s: unknown key %s=%s; ignored", file, k, val);
    }
}

int vnpu_config_load(const char *region_path, struct vnpu_init_config *out, vnpu_log_fn log) {
    struct values v = {getenv(VNPU_ENV_MEM_QUOTA), getenv(VNPU_ENV_PRIORITY), getenv(VNPU_ENV_DEVICE_COUNT),
                       getenv(VNPU_ENV_COMPUTE_CAP_PCT)};
    const char *src_q = "env", *src_p = "env", *src_d = "env", *src_c = "env";
    char file[600], buf[4096];
    const char *slash = strrchr(region_path, '/');
    if (slash)
        snprintf(file, sizeof file, "%.*s/%s", (int)(slash - region_path), region_path, VNPU_CONFIG_FILE_NAME);
    else
        snprintf(file, sizeof file, "%s", VNPU_CONFIG_FILE_NAME);
    struct values f = {0, 0, 0, 0};
    read_file(file, buf, sizeof buf, &f, log);
    if (f.quota) v.quota = f.quota, src_q = file;
    if (f.priority) v.priority = f.priority, src_p = file;
    if (f.devices) v.devices = f.devices, src_d = file;
    if (f.cap) v.cap = f.cap, src_c = file;

    memset(out, 0, sizeof *out);
    out->device_count = VNPU_REGION_MAX_DEVICES;
    out->compute_weight = VNPU_ENV_DEFAULT_PRIORITY;
    out->compute_cap_pct = 0;
    out->priority_class = 1;
    out->policy_flags = VNPU_POLICY_MEM_ENFORCE;

    unsigned long long u;
    if (v.devices) {
        if (parse_u64(v.devices, VNPU_REGION_MAX_DEVICES, &u) && u >= 1) out->device_count = (uint32_t)u;
        else logf_(log, "vnpu: %s: VNPU_DEVICE_COUNT=%s is not in 1..16; using 16%s", src_d, v.devices, "");
    }
    if (v.cap) {
        if (parse_u64(v.cap, VNPU_ENV_MAX_COMPUTE_CAP_PCT, &u)) out->compute_cap_pct = (uint32_t)u;
        else logf_(log, "vnpu: %s: VNPU_COMPUTE_CAP_PCT=%s is not in 0..100; using 0%s", src_c, v.cap, "");
    }
    if (v.priority) {
        char *end = NULL;
        double w = strtod(v.priority, &end);
        if (end && *end == 0 && end != v.priority && w > 0 && w < 1e9) { /* also rejects NaN */
            out->compute_weight = w < 1 ? 1 : w > 10000 ? 10000 : (uint32_t)(w + 0.5);
        } else {
            logf_(log, "vnpu: %s: NPU_PRIORITY=%s is not a positive number; using 100%s", src_p, v.priority, "");
        }
    }
    if (!v.quota) return 0;
    if (!parse_u64(v.quota, UINT64_MAX / MIB, &u)) {
        logf_(log, "vnpu: %s: NPU_MEM_QUOTA=%s is not a number of MiB; ignored%s", src_q, v.quota, "");
        return 0;
    }
    for (uint32_t d = 0; d < out->device_count; d++) out->mem_limit[d] = (uint64_t)u * MIB;
    return 1;
}
