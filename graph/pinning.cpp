// pinning.cpp - see pinning.hpp.
#include "graph/pinning.hpp"

#include <pthread.h>

#include <utility>

namespace flowdeflate::graph {
namespace {

bool pin_to(int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
}

}  // namespace

PinnedThreads::PinnedThreads(const tbb::task_arena& arena, bool enabled) {
    if (!enabled || pthread_getaffinity_np(pthread_self(), sizeof caller_mask_, &caller_mask_) != 0) return;
    const int here = sched_getcpu();
    if (here < 0 || !CPU_ISSET(here, &caller_mask_)) return;
    std::vector<int> cpus{here};
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (c != here && CPU_ISSET(c, &caller_mask_)) cpus.push_back(c);
    if (std::size_t(arena.max_concurrency()) != cpus.size() || !pin_to(here)) return;
    cpus_ = std::move(cpus);
}

PinnedThreads::~PinnedThreads() {
    if (!cpus_.empty()) pthread_setaffinity_np(pthread_self(), sizeof caller_mask_, &caller_mask_);
}

void PinnedThreads::here() const noexcept {
    if (cpus_.empty()) return;
    // Slot 0 is kept for the calling thread (pinned already); workers take 1 and up.
    const int slot = tbb::this_task_arena::current_thread_index();
    if (slot <= 0 || std::size_t(slot) >= cpus_.size()) return;
    thread_local int pinned_to = -1;
    const int cpu = cpus_[std::size_t(slot)];
    if (pinned_to != cpu && pin_to(cpu)) pinned_to = cpu;
}

}  // namespace flowdeflate::graph
