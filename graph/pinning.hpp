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
// PinnedThreads puts the calling thread on the CPU it is running on and each worker that
// joins the arena in slot k on the k-th other CPU of the calling thread's affinity mask,
// when the arena has as many threads as the mask has CPUs: the run takes every CPU it may
// use, so no thread could go elsewhere anyway (with fewer threads, pinned ones could not
// move off a CPU that other work keeps busy; with more, two would share a CPU).  The calling thread's mask is restored at the end; the workers stay where
// they were put (oneTBB's workers outlive the run and leave the arena whenever it has no
// work: restored there, a worker would be woken unpinned, which is what this avoids).  So
// it is for a process that owns its threads, as the command line does.
#pragma once

#include <sched.h>

#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

#include <vector>

namespace flowdeflate::graph {

class PinnedThreads final : public tbb::task_scheduler_observer {
public:
    /// Pins as above when @p enabled and @p arena's concurrency is the number of CPUs in the
    /// calling thread's mask; else does nothing.  @p arena is initialised
    /// (initialize_arena()).
    PinnedThreads(tbb::task_arena& arena, bool enabled);
    ~PinnedThreads() override;
    PinnedThreads(const PinnedThreads&) = delete;
    PinnedThreads& operator=(const PinnedThreads&) = delete;

    void on_scheduler_entry(bool is_worker) override;

    /// The CPUs in use, the calling thread's first (empty when nothing is pinned).
    [[nodiscard]] const std::vector<int>& cpus() const { return cpus_; }

private:
    std::vector<int> cpus_;
    cpu_set_t caller_mask_{};
};

}  // namespace flowdeflate::graph
