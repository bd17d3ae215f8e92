#include "safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int vnpu_open_regular(const char *path, int flags, mode_t mode)
{
    int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    /* regular files ignore O_NONBLOCK; clear it anyway so the descriptor's flags say what we mean */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (fd < VNPU_MIN_FD) {
        int high = fcntl(fd, F_DUPFD_CLOEXEC, VNPU_MIN_FD);
        int e = errno;
        close(fd);
        if (high < 0) {
            errno = e;
            return -1;
        }
        fd = high;
    }
    return fd;
}
