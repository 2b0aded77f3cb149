// path_split.cpp - see path_split.hpp.
#include "core/path_split.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/clock.hpp"

namespace flowdeflate::core {
namespace {

template <class F>
class JobOf final : public PathHelpers::Job {
public:
    explicit JobOf(F f) : f_(std::move(f)) {}
    bool run(u32 k) override { return f_(k); }

private:
    F f_;
};

}  // namespace

u32 PathSplitter::plan(u32 block_length, const LzMatch* cache, const LzMatch* cache_end,
                       std::span<const PathMark> marks, unsigned helpers) {
    // Twice as many parts as threads: where only some helpers are free, the optimiser
    // takes more of them from the back while they take them from the front.
    const u32 want = std::min<u32>(2 * (helpers + 1), block_length / kMinPart);
    if (want < 2) return 1;
    const u32 size = block_length / want;
    const auto at_least = [&](const PathMark* from, u32 pos) {
        return std::lower_bound(from, marks.data() + marks.size(), pos,
                                [](const PathMark& m, u32 p) { return m.pos < p; });
    };
    const PathMark* const marks_end = marks.data() + marks.size();
    const PathMark* mark = marks.data();
    u32 n = 0;
    for (u32 begin = 0;; ++n) {
        if (n == parts_.size()) parts_.push_back(std::make_unique<Part>());
        Part& part = *parts_[n];
        part.begin = begin;
        // The first mark a part's length on, unless that leaves less than half a part.
        const u32 target = begin + size;
        mark = at_least(mark, target);
        if (mark == marks_end || target + size / 2 > block_length || mark->pos >= block_length) {
            part.end = part.guess_end = block_length;
            part.cache_end = part.guess_cache_end = cache_end;
            return n + 1;
        }
        part.end = mark->pos;
        part.cache_end = cache + mark->cache_index;
        const PathMark* const guess = at_least(mark, part.end + kExtension);
        if (guess == marks_end || guess->pos >= block_length) {
            part.guess_end = block_length;
            part.guess_cache_end = cache_end;
        } else {
            part.guess_end = guess->pos;
            part.guess_cache_end = cache + guess->cache_index;
        }
        begin = part.end;
    }
}

// A helper's guess of a part, as if the block ended at guess_end (path_split.hpp).
bool PathSplitter::guess(Part& part, const NearOptimalCosts& costs, const u8* offset_slot) {
    int expected = kFree;
    if (!part.state.compare_exchange_strong(expected, kGuessing, std::memory_order_acquire)) return false;
    const std::uint64_t t0 = thread_cpu_ns();
    const u32 length = part.guess_end - part.begin;
    u32* const cost = part.cost.data();
    cost[length] = 0;
    std::fill(cost + length + 1, cost + length + kMaxMatchLen, 0x80000000u);
    min_cost_path(PathPart{0, length, length, part.guess_cache_end}, costs, offset_slot,
                  PathNodes{cost, part.items.data()});
    guess_ns_ += thread_cpu_ns() - t0;
    part.state.store(kGuessed, std::memory_order_release);
    part.state.notify_one();
    return true;
}

int PathSplitter::wait_while_guessing(Part& part) {
    // A guess takes tens to hundreds of microseconds: spin a little, then sleep until the
    // helper's notify (a yield loop here cost a system call per turn).
    for (u32 spins = 0; spins < (1u << 14); ++spins) {
        const int state = part.state.load(std::memory_order_acquire);
        if (state != kGuessing) return state;
        _mm_pause();
    }
    part.state.wait(kGuessing, std::memory_order_acquire);
    return part.state.load(std::memory_order_acquire);
}

// The guess of @p part, if the final costs after it differ from the guess's by one
// constant (path_split.hpp): its items, and its costs plus that constant.
bool PathSplitter::take(const Part& part, u32 block_length, PathNodes nodes) {
    const u32 length = part.end - part.begin;
    const u32* const guessed = part.cost.data() + length;
    const u32* const final_cost = nodes.cost_to_end + part.end;
    const u32 span = std::min(kMaxMatchLen, block_length - part.end);
    // Real costs stay below 2^30 (keyed_costs_fit), so equal differences mod 2^32 are
    // equal differences.
    const u32 d = final_cost[0] - guessed[0];
    for (u32 j = 1; j < span; ++j)
        if (final_cost[j] - guessed[j] != d) return false;
    u32* const cost = nodes.cost_to_end + part.begin;
    for (u32 j = 0; j < length; ++j) cost[j] = part.cost[j] + d;
    std::memcpy(nodes.items + part.begin, part.items.data(), length * sizeof(u32));
    return true;
}

void PathSplitter::run(u32 block_length, const LzMatch* cache, const LzMatch* cache_end,
                       std::span<const PathMark> marks, const NearOptimalCosts& costs, const u8* offset_slot,
                       PathNodes nodes, PathHelpers& helpers) {
    nodes.cost_to_end[block_length] = 0;
    if (block_length < 2 * kMinPart) {
        min_cost_path(PathPart{0, block_length, block_length, cache_end}, costs, offset_slot, nodes);
        return;
    }
    // A pass that could be split is counted whether or not it is (the model of more
    // threads than this run had: scripts/bench).
    PathHelpers::Counters& c = helpers.counters;
    c.passes += 1;
    c.positions += block_length;
    const unsigned threads = helpers.helpers();
    const u32 n = threads ? plan(block_length, cache, cache_end, marks, threads) : 1;
    if (n < 2) {
        // The steady clock (vDSO): the thread's CPU clock is a system call, two per pass
        // cost ~1% of a -11 -p2 run.  The optimiser's thread has a core of its own, so
        // the two agree but where threads outnumber cores.
        const std::uint64_t t0 = now_ns();
        min_cost_path(PathPart{0, block_length, block_length, cache_end}, costs, offset_slot, nodes);
        c.path_ns += now_ns() - t0;
        return;
    }
    // The guesses' arrays, made here: a job allocates nothing.
    for (u32 k = 0; k < n; ++k) {
        Part& part = *parts_[k];
        part.state.store(k + 1 < n ? kFree : kOwn, std::memory_order_relaxed);
        const u32 length = part.guess_end - part.begin;
        if (k + 1 < n && part.cost.size() < length + kMaxMatchLen + PathNodes::kPad + 1) {
            part.cost.resize(length + kMaxMatchLen + PathNodes::kPad + 1);
            part.items.resize(length);
        } else if (k + 1 < n && part.items.size() < length) {
            part.items.resize(length);
        }
    }
    guess_ns_ = 0;

    u32 taken = 0, disagreed = 0;
    std::uint64_t main_ns = 0;
    JobOf guess_job([&](u32 k) { return guess(*parts_[k], costs, offset_slot); });
    JobOf main_job([&](u32) {
        const std::uint64_t t0 = thread_cpu_ns();  // (a wait's spin counted, its sleep not)
        for (u32 k = n; k-- > 0;) {
            Part& part = *parts_[k];
            int state = kFree;
            if (!part.state.compare_exchange_strong(state, kOwn, std::memory_order_acq_rel,
                                                    std::memory_order_acquire)) {
                // A helper is guessing the part: it started before this thread came, so
                // its guess ends sooner than this thread's own pass would.
                if (state == kGuessing) state = wait_while_guessing(part);
                if (state == kGuessed) {
                    if (take(part, block_length, nodes)) {
                        ++taken;
                        continue;
                    }
                    ++disagreed;
                }
                // kOwn: the last part, computed here as any part no helper took.
            }
            min_cost_path(PathPart{part.begin, part.end, block_length, part.cache_end}, costs, offset_slot, nodes);
        }
        main_ns = thread_cpu_ns() - t0;
        return true;
    });
    helpers.offer(n - 1, guess_job, main_job);

    c.split += 1;
    c.parts += n;
    c.taken += taken;
    c.disagreed += disagreed;
    c.guess_ns += guess_ns_.load();
    c.path_ns += main_ns;
}

}  // namespace flowdeflate::core
