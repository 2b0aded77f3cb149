// pool.hpp - storage of finished tracks (item buffers, branch records), kept for the
// next ones: a chunk's tracks take megabytes, and fresh pages for every chunk cost page
// faults.  A few are kept with their capacity, the rest are freed.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <mutex>
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
        v.clear();
        std::lock_guard lock(mutex_);
        if (free_.size() < kMaxFree) free_.push_back(std::move(v));
    }

private:
    static constexpr std::size_t kMaxFree = 4;  // resident memory, kept for speed
    std::mutex mutex_;
    std::vector<V> free_;  ///< under mutex_
};

}  // namespace flowdeflate::parallel
