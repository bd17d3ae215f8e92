#!/usr/bin/env python3
"""A soft share's file pattern on a file system, without the JVM (docs/benchmarks.md, "Soft prepare's
tail"): how a quota region's storage (zeros written, or posix_fallocate) weighs on the disk and on
the checkpoint's durable write. Not the plugin's code: the same system calls in the same order.

  region-file-pattern.py cycle ROOT none|zeros|falloc|zeros-tmpfs CYCLES
      per cycle: [mkdir, region created and filled, two pages stored through a mapping], the
      checkpoint written (temporary file, write, fsync, rename), [unlink, rmdir], the checkpoint
      again; prints p50 / p90 / p99 of the first checkpoint write. zeros-tmpfs puts the regions in
      /dev/shm. Count what reaches a disk with /sys/block/<dev>/stat before and after.
  region-file-pattern.py steps ROOT zeros|falloc CYCLES
      per region: open (O_EXCL), fill, map + two stores, close + unlink, each timed (p50 / p99 / max).
"""
import mmap
import os
import sys
import time

REGION = 139264  # RegionLayout.REGION_FILE_BYTES
ZEROS = bytes(REGION)
CHECKPOINT = b'{"v":1,' + b"x" * 1900 + b"}"  # about the size of one prepared soft claim's checkpoint


def fill(fd, variant):
    if variant.startswith("zeros"):
        os.pwrite(fd, ZEROS, 0)
    elif variant == "falloc":
        os.posix_fallocate(fd, 0, REGION)
    else:
        raise SystemExit("region-file-pattern.py: variant = %s: expected zeros or falloc" % variant)


def store_two_pages(fd):  # what QuotaRegion.initialise touches: the header and the device config
    m = mmap.mmap(fd, REGION)
    m[0:4096] = b"\1" * 4096
    m[8192:8200] = b"\2" * 8
    m.close()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def cycle(root, variant, n):
    ck = os.path.join(root, "ck")
    os.makedirs(ck, exist_ok=True)
    regions = "/dev/shm/region-file-pattern" if variant.endswith("tmpfs") else os.path.join(root, "regions")
    os.makedirs(regions, exist_ok=True)

    def write_checkpoint():
        tmp = os.path.join(ck, ".checkpoint.tmp%d" % os.getpid())
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, CHECKPOINT)
        os.fsync(fd)
        os.close(fd)
        os.rename(tmp, os.path.join(ck, "checkpoint.json"))

    write_checkpoint()
    times = []
    for i in range(n):
        d = os.path.join(regions, "c%d" % i)
        if variant != "none":
            os.mkdir(d, 0o755)
            f = os.path.join(d, "region")
            fd = os.open(f, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
            fill(fd, variant)
            store_two_pages(fd)
        t0 = time.perf_counter()
        write_checkpoint()
        times.append(time.perf_counter() - t0)
        if variant != "none":
            os.close(fd)
            os.unlink(f)
            os.rmdir(d)
        write_checkpoint()
    print("%-12s the prepare's checkpoint write p50 %.2f / p90 %.2f / p99 %.2f ms, %d cycles"
          % (variant, pct(times, .5) * 1e3, pct(times, .9) * 1e3, pct(times, .99) * 1e3, n))


def steps(root, variant, n):
    os.makedirs(root, exist_ok=True)
    t = {k: [] for k in ("open", "fill", "map+stores", "close+unlink")}
    for i in range(n):
        f = os.path.join(root, "r%d" % i)
        a = time.perf_counter()
        fd = os.open(f, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
        b = time.perf_counter()
        fill(fd, variant)
        c = time.perf_counter()
        store_two_pages(fd)
        d = time.perf_counter()
        os.close(fd)
        os.unlink(f)
        e = time.perf_counter()
        for k, v in zip(t, (b - a, c - b, d - c, e - d)):
            t[k].append(v)
    print(variant, "p50 / p99 / max us:",
          ", ".join("%s %.0f / %.0f / %.0f" % (k, pct(v, .5) * 1e6, pct(v, .99) * 1e6, max(v) * 1e6)
                    for k, v in t.items()))


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("cycle", "steps"):
        raise SystemExit("usage: region-file-pattern.py cycle|steps ROOT VARIANT CYCLES")
    (cycle if sys.argv[1] == "cycle" else steps)(sys.argv[2], sys.argv[3], int(sys.argv[4]))


if __name__ == "__main__":
    main()
