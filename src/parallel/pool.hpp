// pool.hpp - storage of finished tracks (item buffers, branch records), output segments
// and workers' state, kept for the next ones: a chunk's tracks take megabytes, and fresh
// pages for every chunk cost page faults.  A few are kept with their capacity, the rest
// are freed.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "parallel/items.hpp"

namespace flowdeflate::parallel {

/// Pages past what a track wrote go back to the system: a recycled item buffer must not
/// keep the largest extent it ever had resident.
inline void release_unwritten_pages(ItemBuffer& v) {
    const auto page = std::uintptr_t(4096);
    const auto from = (reinterpret_cast<std::uintptr_t>(v.data() + v.size()) + page - 1) & ~(page - 1);
    const auto to = reinterpret_cast<std::uintptr_t>(v.data() + v.capacity()) & ~(page - 1);
    if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

/// One process-wide pool per storage type; any thread takes and gives (Search takes,
/// whoever drops the last reference to a chunk's tracks gives).
template <class V>
class Pool {
public:
    static Pool& instance() {
        static Pool pool;
        return pool;
    }
    V take() {
        std::lock_guard lock(mutex_);
        if (free_.empty()) return {};
        V v = std::move(free_.back());
        free_.pop_back();
        return v;
    }
    void give(V&& v) {
        if (v.capacity() == 0) return;
        if constexpr (std::is_same_v<V, ItemBuffer>) release_unwritten_pages(v);
        // Output segments keep their size: their contents are unspecified, and resizing a
        // cleared one would write a megabyte and a half of zeros per call.
        if constexpr (!std::is_same_v<V, std::vector<std::uint8_t>>) v.clear();
        std::lock_guard lock(mutex_);
        if (free_.size() < kMaxFree) free_.push_back(std::move(v));
    }

private:
    static constexpr std::size_t kMaxFree = 4;  // resident memory, kept for speed
    std::mutex mutex_;
    std::vector<V> free_;  ///< under mutex_
};

/// A worker's state that is costly to build (a chunk searcher's finder tables, a block
/// encoder's sequence store: hundreds of kilobytes) kept for the next graph, per key (the
/// level).  Without it every call over one chunk allocated and freed them per worker, and
/// that churn left the allocator's heap fragmented: an application making thousands of
/// such calls saw its resident memory wander by 10-20 MiB.  At most one idle object per
/// hardware thread and key is kept; a handle gives its object back when it goes.
template <class T, std::size_t Keys>
class StatePool {
public:
    struct GiveBack {
        std::size_t key = 0;
        void operator()(T* p) const { StatePool::instance().give(key, std::unique_ptr<T>(p)); }
    };
    using Handle = std::unique_ptr<T, GiveBack>;

    static StatePool& instance() {
        // Never destroyed: a graph torn down from a static destructor may still give back.
        static StatePool* pool = new StatePool;
        return *pool;
    }
    /// An idle object of @p key, or a new one from @p make().
    template <class Make>
    Handle take(std::size_t key, Make&& make) {
        {
            std::lock_guard lock(mutex_);
            auto& idle = idle_.at(key);
            if (!idle.empty()) {
                T* p = idle.back().release();
                idle.pop_back();
                return Handle(p, GiveBack{key});
            }
        }
        return Handle(make().release(), GiveBack{key});
    }

private:
    void give(std::size_t key, std::unique_ptr<T> p) {
        static const std::size_t kMaxIdle = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 4, 64);
        std::lock_guard lock(mutex_);
        auto& idle = idle_.at(key);
        if (idle.size() < kMaxIdle) idle.push_back(std::move(p));
    }

    std::mutex mutex_;
    std::array<std::vector<std::unique_ptr<T>>, Keys> idle_;  ///< under mutex_
};

}  // namespace flowdeflate::parallel
