// idle_pool.hpp - objects that are costly to build or to fault in, kept idle for the
// next user: the one pool behind the graph's storage pools (pool.hpp), the library's
// per-level compressors (parallel/compressor_pool.hpp) and the level 10-12 search's finders
// and record pages (graph/match_search.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace flowdeflate::parallel {

/// Idle objects of type V in Keys separate lists (a key: the level, say), at most
/// max_idle per key; any thread takes and gives.  What is given past the bound is
/// dropped (destroyed outside the lock).
template <class V, std::size_t Keys = 1>
class IdlePool {
public:
    explicit IdlePool(std::size_t max_idle = SIZE_MAX) : max_idle_(max_idle) {}
    IdlePool(const IdlePool&) = delete;
    IdlePool& operator=(const IdlePool&) = delete;

    /// An idle object of @p key, or @p make() when there is none.
    template <class Make>
    V take(std::size_t key, Make&& make) {
        {
            List& list = lists_.at(key);
            std::lock_guard lock(list.mutex);
            if (!list.idle.empty()) {
                V v = std::move(list.idle.back());
                list.idle.pop_back();
                return v;
            }
        }
        return make();
    }
    template <class Make>
    V take(Make&& make) {
        return take(0, std::forward<Make>(make));
    }

    /// Keeps @p v for the next take() of @p key, unless max_idle already wait there.
    void give(std::size_t key, V&& v) {
        List& list = lists_.at(key);
        {
            std::lock_guard lock(list.mutex);
            if (list.idle.size() < max_idle_) {
                list.idle.push_back(std::move(v));
                return;
            }
        }
        V dropped = std::move(v);  // freed here, not under the lock
    }
    void give(V&& v) { give(0, std::move(v)); }

private:
    struct List {
        std::mutex mutex;
        std::vector<V> idle;  ///< under mutex
    };
    const std::size_t max_idle_;
    std::array<List, Keys> lists_;
};

}  // namespace flowdeflate::parallel
