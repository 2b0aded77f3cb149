/* fault_inject.c - an LD_PRELOAD shim that makes read(), pread() and write() misbehave the
 * way real systems may: they fail with EINTR before doing anything, or transfer fewer
 * bytes than asked.  Loaded into the flowdeflate command by tests/cli/faults_test.cpp
 * (Cli.ShortAndInterrupted*) to prove that every I/O path retries and still writes the
 * reference's bytes, (nothread) by Cli.ThreadCreationFailureIsAnErrorNotACrash, and
 * (shrink) by Cli.InputShrinkingUnderAMappingLeavesNoOutput.
 *
 *   FLOWDEFLATE_FAULTS        any of "eintr", "short", "nothread", "shrink" (comma-separated):
 *                             nothread makes every pthread_create() fail with EAGAIN;
 *                             shrink cuts a regular file to half its size right after it
 *                             was mapped (another process truncating it)
 *   FLOWDEFLATE_FAULT_SEED    seed of the per-process pseudo-random choice (default 1)
 *   FLOWDEFLATE_FAULT_REPORT  file to which the number of injected faults is appended at exit
 *
 * Only descriptors above 2 or the standard streams are touched alike; about one call in
 * four is disturbed.  Thread-safe: the state is one atomic counter. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int want_eintr, want_short, want_nothread, want_shrink, configured;
static unsigned long long seed = 1;
static atomic_ullong calls, injected;

static void configure(void) {
    if (configured) return;
    const char* f = getenv("FLOWDEFLATE_FAULTS");
    if (f) {
        want_eintr = strstr(f, "eintr") != NULL;
        want_short = strstr(f, "short") != NULL;
        want_nothread = strstr(f, "nothread") != NULL;
        want_shrink = strstr(f, "shrink") != NULL;
    }
    const char* s = getenv("FLOWDEFLATE_FAULT_SEED");
    if (s) seed = strtoull(s, NULL, 10);
    configured = 1;
}

/* splitmix64 of the call number: a decision per call, the same for a given seed. */
static unsigned long long draw(void) {
    unsigned long long z = (atomic_fetch_add(&calls, 1) + 1) * 0x9e3779b97f4a7c15ULL + seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* 0: leave the call alone; -1: fail with EINTR; else the reduced count. */
static ssize_t decide(size_t count) {
    configure();
    if ((!want_eintr && !want_short) || count == 0) return 0;
    const unsigned long long r = draw();
    if (r % 4 != 0) return 0;
    atomic_fetch_add(&injected, 1);
    if (want_eintr && (!want_short || (r >> 8) % 2 == 0)) return -1;
    if (count < 2) return 0;
    return (ssize_t)(1 + (r >> 16) % (count / 2));
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t read(int fd, void* buf, size_t count) {
    const ssize_t d = decide(count);
    if (d < 0) { errno = EINTR; return -1; }
    return REAL(read)(fd, buf, d > 0 ? (size_t)d : count);
}

ssize_t pread(int fd, void* buf, size_t count, off_t offset) {
    const ssize_t d = decide(count);
    if (d < 0) { errno = EINTR; return -1; }
    return REAL(pread)(fd, buf, d > 0 ? (size_t)d : count, offset);
}

ssize_t pread64(int fd, void* buf, size_t count, off_t offset) {
    const ssize_t d = decide(count);
    if (d < 0) { errno = EINTR; return -1; }
    return REAL(pread64)(fd, buf, d > 0 ? (size_t)d : count, offset);
}

ssize_t write(int fd, const void* buf, size_t count) {
    const ssize_t d = decide(count);
    if (d < 0) { errno = EINTR; return -1; }
    return REAL(write)(fd, buf, d > 0 ? (size_t)d : count);
}

#include <pthread.h>
int pthread_create(pthread_t* t, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
    configure();
    if (want_nothread) {
        atomic_fetch_add(&injected, 1);
        return EAGAIN;
    }
    return REAL(pthread_create)(t, attr, start, arg);
}

#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
static void shrink_mapped(int fd, int flags) {
    configure();
    if (!want_shrink || fd <= 2 || (flags & MAP_ANONYMOUS)) return;
    struct stat st;
    char link[64], path[PATH_MAX];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return;
    path[n] = 0;
    if (truncate(path, st.st_size / 2) == 0) atomic_fetch_add(&injected, 1);
}

void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
    void* p = REAL(mmap)(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED) shrink_mapped(fd, flags);
    return p;
}

void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
    void* p = REAL(mmap64)(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED) shrink_mapped(fd, flags);
    return p;
}

__attribute__((destructor)) static void report(void) {
    const char* path = getenv("FLOWDEFLATE_FAULT_REPORT");
    if (!path) return;
    FILE* f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%llu\n", (unsigned long long)atomic_load(&injected));
    fclose(f);
}
