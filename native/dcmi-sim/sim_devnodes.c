#include "sim_devnodes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *const MANAGEMENT_NODES[] = {"davinci_manager", "devmm_svm", "hisi_hdc"};

static int g_warned;

/* The numbers of the host's /dev/null; 1:3 (Linux's, devices.txt) when it is not a char device. */
static dev_t null_rdev(void) {
    struct stat st;
    if (stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode)) return st.st_rdev;
    return makedev(1, 3);
}

static void stand_in(const char *path, int err) {
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0) close(fd);
    if (!__atomic_exchange_n(&g_warned, 1, __ATOMIC_ACQ_REL)) {
        fprintf(stderr,
                "vnpu-sim: %s: cannot create a character device (mknod: %s; needs root or CAP_MKNOD): "
                "empty files stand in for the simulated device nodes, which container runtimes refuse\n",
                path, strerror(err));
    }
}

void sim_dev_node_create(const struct sim_host *host, const char *name) {
    char path[600];
    snprintf(path, sizeof(path), "%s/dev", host->root);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return;
    snprintf(path, sizeof(path), "%s/dev/%s", host->root, name);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (S_ISCHR(st.st_mode)) return;
        if (!S_ISREG(st.st_mode)) return; /* someone else's file: never replaced */
        /* an earlier run without CAP_MKNOD left a stand-in: replace it when we now can */
        char tmp[640];
        snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
        if (mknod(tmp, S_IFCHR | 0666, null_rdev()) != 0) return;
        chmod(tmp, 0666);
        if (rename(tmp, path) != 0) unlink(tmp);
        return;
    }
    if (mknod(path, S_IFCHR | 0666, null_rdev()) == 0) {
        chmod(path, 0666); /* the umask does not decide who may open a simulated NPU */
        return;
    }
    if (errno == EEXIST) return; /* another process of the host made it */
    if (errno == EPERM || errno == EACCES) stand_in(path, errno);
}

void sim_dev_node_remove(const struct sim_host *host, const char *name) {
    char path[600];
    snprintf(path, sizeof(path), "%s/dev/%s", host->root, name);
    unlink(path);
}

void sim_dev_nodes_create(const struct sim_host *host) {
    for (size_t i = 0; i < sizeof(MANAGEMENT_NODES) / sizeof(MANAGEMENT_NODES[0]); i++) {
        sim_dev_node_create(host, MANAGEMENT_NODES[i]);
    }
    for (int i = 0; i < host->n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "davinci%d", host->devs[i].phy_id);
        sim_dev_node_create(host, name);
    }
}
