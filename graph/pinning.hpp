// pinning.hpp - a run's threads each on a CPU of its own.
//
// Parallel decompression hands work between its threads many times a run (a region given
// out, a span's turn, a wait for a worker's stretch), and each hand-over may wake a
// sleeping thread.  On the 2-vCPU hosts this project is measured on (their kernel packs
// tasks onto few vCPUs), a woken thread is mostly put on its waker's CPU and waits there
// until the waker blocks or a scheduler tick comes: a two-thread wake-up took 1.9 ms
// (median of 200) against 33 us with each thread pinned to its own CPU, and -d -p2 ran
// 10-16% faster pinned, its spread a third (docs/notes/decompression.md, "Woken threads
// wait for a tick").  Compression, whose threads seldom sleep, gained nothing.
//
// PinnedThreads puts the calling thread on the CPU it is running on for the run, and each
// worker that runs one of the run's tasks (in slot k of the arena; here(), called as a task
// starts) on the k-th other CPU of the calling thread's affinity mask, when the arena has as
// many threads as the mask has CPUs: the run takes every CPU it may use, so no thread could
// go elsewhere anyway (with fewer threads, pinned ones could not move off a CPU that other
// work keeps busy; with more, two would share a CPU).  The calling thread's mask is
// restored at the end; the workers stay where they were put (oneTBB's workers outlive the
// run and sleep between its tasks: restored, a worker would be woken unpinned, which is
// what this avoids).  So it is for a process that owns its threads, as the command line
// does.  (Not a task_scheduler_observer: oneTBB 2021.8 keeps an observer's record alive
// while a worker that it notified sleeps, which LeakSanitizer reports at exit.)
#pragma once

#include <sched.h>

#include <tbb/task_arena.h>

#include <vector>

namespace flowdeflate::graph {

class PinnedThreads {
public:
    /// Pins the calling thread as above when @p enabled and @p arena's concurrency is the
    /// number of CPUs in its mask; else does nothing, and so does here().
    PinnedThreads(const tbb::task_arena& arena, bool enabled);
    ~PinnedThreads();
    PinnedThreads(const PinnedThreads&) = delete;
    PinnedThreads& operator=(const PinnedThreads&) = delete;

    /// At a task's start: a worker of the arena goes to its slot's CPU (a system call the
    /// first time a thread runs in that slot, a thread-local test after).
    void here() const noexcept;

    /// The CPUs in use, the calling thread's first (empty when nothing is pinned).
    [[nodiscard]] const std::vector<int>& cpus() const { return cpus_; }

private:
    std::vector<int> cpus_;
    cpu_set_t caller_mask_{};
};

}  // namespace flowdeflate::graph
