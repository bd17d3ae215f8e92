#include "config.h"
#include "safe_open.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define MIB VNPU_ENV_MEM_QUOTA_UNIT_BYTES
/* largest NPU_MEM_QUOTA whose bytes fit in the region's u64 limit */
#define MAX_QUOTA_MIB (UINT64_MAX / MIB)

/* The value as it may appear in a log line: printable ASCII, at most 64 bytes, the rest escaped, so a
 * value can neither forge a second line nor flood the log. */
static void quote(char *out, size_t len, const char *v) {
    size_t o = 0;
    for (size_t i = 0; v[i] && o + 8 < len; i++) {
        unsigned char c = (unsigned char)v[i];
        if (i == 64) {
            o += (size_t)snprintf(out + o, len - o, "...");
            break;
        }
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') out[o++] = (char)c;
        else o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
    }
    out[o < len ? o : len - 1] = 0;
}

static void problem_line(char *p, size_t plen, const char *src, const char *key, const char *val,
                         const char *reason) {
    char q[300];
    quote(q, sizeof q, val);
    snprintf(p, plen, "vnpu: %s: %s = '%s': %s", src, key, q, reason);
}

int vnpu_config_region_path_checked(char *buf, size_t len, char *problem, size_t plen) {
    const char *p = getenv(VNPU_ENV_REGION_PATH);
    if (!p || !*p) {
        snprintf(buf, len, "%s", VNPU_DEFAULT_REGION_PATH);
        return 1;
    }
    size_t n = strlen(p);
    if (p[0] != '/' || n >= VNPU_REGION_PATH_MAX || n >= len) {
        problem_line(problem, plen, "env", VNPU_ENV_REGION_PATH, p,
                     p[0] != '/' ? "not an absolute path" : "longer than 511 bytes");
        snprintf(buf, len, "%s", VNPU_DEFAULT_REGION_PATH);
        return 0;
    }
    memcpy(buf, p, n + 1);
    return 1;
}

void vnpu_config_region_path(char *buf, size_t len) {
    char problem[8];
    (void)vnpu_config_region_path_checked(buf, len, problem, sizeof problem);
}

/* decimal digits only, value <= max */
static int parse_u64(const char *s, uint64_t max, uint64_t *out) {
    if (!*s) return 0;
    uint64_t v = 0;
    for (const char *q = s; *q; q++) {
        if (*q < '0' || *q > '9') return 0;
        unsigned d = (unsigned)(*q - '0');
        if (v > (max - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* digits, optionally "." and digits; rounded to the nearest integer, which must lie in 1..10000 */
static int parse_weight(const char *s, uint32_t *out) {
    const char *dot = strchr(s, '.');
    size_t ilen = dot ? (size_t)(dot - s) : strlen(s);
    if (ilen == 0 || ilen > 5) return 0;
    uint32_t v = 0;
    for (size_t i = 0; i < ilen; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    if (dot) {
        if (!dot[1]) return 0;
        for (const char *q = dot + 1; *q; q++)
            if (*q < '0' || *q > '9') return 0;
        if (dot[1] >= '5') v++;
    }
    if (v < 1 || v > 10000) return 0;
    *out = v;
    return 1;
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = 0;
    return s;
}

enum key { K_QUOTA, K_PRIORITY, K_DEVICES, K_CAP, K_COUNT };
static const char *const key_names[K_COUNT] = {VNPU_ENV_MEM_QUOTA, VNPU_ENV_PRIORITY, VNPU_ENV_DEVICE_COUNT,
                                               VNPU_ENV_COMPUTE_CAP_PCT};

struct values {
    const char *v[K_COUNT];
    char src[K_COUNT][640]; /* "env" or "FILE:LINE" */
};

/* Reads the config file into buf (NUL-terminated) and points the known keys into it. Returns 0, or
 * -1 with problem filled when a line is not KEY=VALUE or names an unknown key. */
static int read_file(const char *file, char *buf, size_t len, struct values *v, char *problem, size_t plen) {
    /* regular file only, no symlink, never blocking: a FIFO here must not hang every NPU process */
    int fd = vnpu_open_regular(file, O_RDONLY, 0);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    int lineno = 0;
    char *next = buf;
    while (next) {
        char *line = next;
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl) *nl = 0;
        lineno++;
        line = trim(line);
        if (!*line || *line == '#') continue;
        char src[640];
        snprintf(src, sizeof src, "%s:%d", file, lineno);
        char *eq = strchr(line, '=');
        if (!eq) {
            problem_line(problem, plen, src, "line", line, "not KEY=VALUE");
            return -1;
        }
        *eq = 0;
        char *k = trim(line), *val = trim(eq + 1);
        int found = 0;
        for (int i = 0; i < K_COUNT; i++) {
            if (!strcmp(k, key_names[i])) {
                v->v[i] = val;
                snprintf(v->src[i], sizeof v->src[i], "%s", src);
                found = 1;
            }
        }
        if (!found) {
            problem_line(problem, plen, src, k, val, "unknown key");
            return -1;
        }
    }
    return 0;
}

enum vnpu_config_status vnpu_config_load(const char *region_path, struct vnpu_init_config *out, char *problem,
                                         size_t plen) {
    struct values v;
    memset(&v, 0, sizeof v);
    v.v[K_QUOTA] = getenv(VNPU_ENV_MEM_QUOTA);
    v.v[K_PRIORITY] = getenv(VNPU_ENV_PRIORITY);
    v.v[K_DEVICES] = getenv(VNPU_ENV_DEVICE_COUNT);
    v.v[K_CAP] = getenv(VNPU_ENV_COMPUTE_CAP_PCT);
    for (int i = 0; i < K_COUNT; i++) snprintf(v.src[i], sizeof v.src[i], "env");
    char file[600], buf[4096];
    const char *slash = strrchr(region_path, '/');
    if (slash)
        snprintf(file, sizeof file, "%.*s/%s", (int)(slash - region_path), region_path, VNPU_CONFIG_FILE_NAME);
    else
        snprintf(file, sizeof file, "%s", VNPU_CONFIG_FILE_NAME);
    if (read_file(file, buf, sizeof buf, &v, problem, plen) != 0) return VNPU_CONFIG_BAD;

    memset(out, 0, sizeof *out);
    out->device_count = VNPU_REGION_MAX_DEVICES;
    out->compute_weight = VNPU_ENV_DEFAULT_PRIORITY;
    out->compute_cap_pct = 0;
    out->priority_class = 1;
    out->policy_flags = VNPU_POLICY_MEM_ENFORCE;

    uint64_t u;
    if (v.v[K_DEVICES]) {
        if (!parse_u64(v.v[K_DEVICES], VNPU_REGION_MAX_DEVICES, &u) || u < 1) {
            problem_line(problem, plen, v.src[K_DEVICES], key_names[K_DEVICES], v.v[K_DEVICES],
                         "not a device count 1..16 (digits only)");
            return VNPU_CONFIG_BAD;
        }
        out->device_count = (uint32_t)u;
    }
    if (v.v[K_CAP]) {
        if (!parse_u64(v.v[K_CAP], VNPU_ENV_MAX_COMPUTE_CAP_PCT, &u)) {
            problem_line(problem, plen, v.src[K_CAP], key_names[K_CAP], v.v[K_CAP],
                         "not a percentage 0..100 (digits only)");
            return VNPU_CONFIG_BAD;
        }
        out->compute_cap_pct = (uint32_t)u;
    }
    if (v.v[K_PRIORITY] && !parse_weight(v.v[K_PRIORITY], &out->compute_weight)) {
        problem_line(problem, plen, v.src[K_PRIORITY], key_names[K_PRIORITY], v.v[K_PRIORITY],
                     "not a weight 1..10000 (digits, optionally .digits)");
        return VNPU_CONFIG_BAD;
    }
    if (!v.v[K_QUOTA]) return VNPU_CONFIG_NONE;
    if (!parse_u64(v.v[K_QUOTA], MAX_QUOTA_MIB, &u)) {
        problem_line(problem, plen, v.src[K_QUOTA], key_names[K_QUOTA], v.v[K_QUOTA],
                     "not a number of MiB (decimal digits only, no unit, sign or blanks; at most 17592186044415)");
        return VNPU_CONFIG_BAD;
    }
    for (uint32_t d = 0; d < out->device_count; d++) out->mem_limit[d] = u * MIB;
    return VNPU_CONFIG_OK;
}
