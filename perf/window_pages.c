/* window_pages.c - what the input window's page handling costs on this machine, without
 * the compressor: a producer thread reads a file with pread() into 2 MiB slots of one
 * reserved range (as graph/input_window.cpp does), a consumer thread touches every cache
 * line of each slot and releases the slot behind it.  Released slots are either kept and
 * moved ahead with mremap() (as the window recycles them) or given back.
 *
 * Usage: window_pages MODE FILE     (scripts/bench window-pages builds and runs every mode)
 *   aligned      recycled slots, range 2 MiB-aligned             (the window since d88424a)
 *   misaligned   recycled slots, range 4 KiB past a 2 MiB boundary (the window before)
 *   fresh        no recycling: fresh pages for every slot
 *   populate     fresh pages, MADV_POPULATE_WRITE when a slot is committed
 *   huge         fresh pages, the range advised MADV_HUGEPAGE
 *   huge-aligned recycled slots and MADV_HUGEPAGE                  (the window since 18d7333)
 * Prints wall, user and system seconds and minor faults (getrusage) for the whole run.
 * Results: docs/notes/io-and-memory.md. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

enum { kSlot = 2u << 20, kRead = 1u << 20, kSpares = 4, kAhead = 8u << 20 };

static unsigned char* base;
static size_t size;
static int fd;
static int recycle, populate;
static _Atomic size_t read_end, released;
static size_t spares[kSpares];
static int spare_count;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double seconds(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec * 1e-6; }

static void* producer(void* unused) {
    (void)unused;
    for (size_t at = 0; at < size; at += kSlot) {
        const size_t len = size - at < kSlot ? size - at : kSlot;
        while (at > atomic_load(&released) + kAhead) sched_yield();
        size_t spare = (size_t)-1;
        pthread_mutex_lock(&mutex);
        if (recycle && spare_count > 0 && len == kSlot) {
            spare = spares[0];
            memmove(spares, spares + 1, (size_t)--spare_count * sizeof spares[0]);
        }
        pthread_mutex_unlock(&mutex);
        if (spare != (size_t)-1) {
            if (mremap(base + spare, kSlot, kSlot, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, base + at) ==
                MAP_FAILED) {
                perror("mremap");
                exit(1);
            }
            mprotect(base + spare, kSlot, PROT_NONE);
        } else {
            mprotect(base + at, len, PROT_READ | PROT_WRITE);
            if (populate) madvise(base + at, len, MADV_POPULATE_WRITE);
        }
        for (size_t o = 0; o < len; o += kRead) {
            const size_t n = len - o < kRead ? len - o : kRead;
            if (pread(fd, base + at + o, n, (off_t)(at + o)) != (ssize_t)n) {
                perror("pread");
                exit(1);
            }
        }
        atomic_store(&read_end, at + len);
    }
    return NULL;
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s aligned|misaligned|fresh|populate|huge|huge-aligned FILE\n", argv[0]);
        return 2;
    }
    const char* mode = argv[1];
    const int misaligned = !strcmp(mode, "misaligned");
    const int huge = !strcmp(mode, "huge") || !strcmp(mode, "huge-aligned");
    recycle = !strcmp(mode, "aligned") || misaligned || !strcmp(mode, "huge-aligned");
    populate = !strcmp(mode, "populate");
    if (!recycle && !populate && !huge && strcmp(mode, "fresh")) {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    fd = open(argv[2], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(argv[2]);
        return 1;
    }
    size = (size_t)st.st_size;
    const size_t reserve = (size + 2 * (size_t)kSlot) & ~((size_t)kSlot - 1);
    unsigned char* map = mmap(NULL, reserve + kSlot, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    base = map + (kSlot - (size_t)(uintptr_t)map % kSlot) % kSlot + (misaligned ? 4096 : 0);
    if (huge) madvise(base, reserve - kSlot, MADV_HUGEPAGE);

    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    const double t0 = now();
    pthread_t thread;
    pthread_create(&thread, NULL, producer, NULL);
    unsigned long long sum = 0;
    for (size_t at = 0; at < size; at += kSlot) {
        const size_t len = size - at < kSlot ? size - at : kSlot;
        while (atomic_load(&read_end) < at + len) sched_yield();
        for (size_t i = 0; i < len; i += 64) sum += base[at + i];
        if (at >= kSlot) {
            const size_t behind = at - kSlot;
            pthread_mutex_lock(&mutex);
            const int keep = recycle && spare_count < kSpares;
            if (keep) spares[spare_count++] = behind;
            pthread_mutex_unlock(&mutex);
            if (!keep) {
                madvise(base + behind, kSlot, MADV_DONTNEED);
                mprotect(base + behind, kSlot, PROT_NONE);
            }
            atomic_store(&released, at);
        }
    }
    pthread_join(thread, NULL);
    const double t1 = now();
    getrusage(RUSAGE_SELF, &r1);
    printf("%-12s wall %.3f s  user %.3f s  sys %.3f s  minor faults %ld  (checksum %llu)\n", mode, t1 - t0,
           seconds(r1.ru_utime) - seconds(r0.ru_utime), seconds(r1.ru_stime) - seconds(r0.ru_stime),
           r1.ru_minflt - r0.ru_minflt, sum);
    return 0;
}
