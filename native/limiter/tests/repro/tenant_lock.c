/* tenant_lock: what a hostile container can do with the registry directory it sees read-only: open
 * every file in it and hold a shared record lock over all of each (a read-only descriptor is enough
 * for F_RDLCK, and a shared lock blocks every exclusive one on those bytes), and try a file lease.
 *   tenant_lock DIR SECONDS
 * Prints one line per file it could open, then holds everything for SECONDS. Runs as any user. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tenant_lock DIR SECONDS\n");
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 1;
    }
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", argv[1], e->d_name);
        int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            printf("tenant_lock: %s: cannot open (%s)\n", e->d_name, strerror(errno));
            continue;
        }
        struct flock fl;
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_RDLCK;
        fl.l_whence = SEEK_SET;
        fl.l_len = 0; /* the whole file and beyond: every lock byte anybody could use */
        int locked = fcntl(fd, F_OFD_SETLK, &fl) == 0;
        int lease = fcntl(fd, F_SETLEASE, F_RDLCK) == 0;
        int lerr = errno;
        printf("tenant_lock: uid=%d opened %s read-only: whole-file read lock %s, lease %s\n", (int)getuid(), e->d_name,
               locked ? "held" : "refused", lease ? "held" : strerror(lerr));
        n++;
    }
    closedir(d);
    printf("tenant_lock: %d file(s) held open and locked for %s s\n", n, argv[2]);
    fflush(stdout);
    sleep((unsigned)atoi(argv[2]));
    return 0;
}
