// pool.hpp - storage of finished tracks (item buffers, branch records), output segments
// and workers' state, kept for the next ones: a chunk's tracks take megabytes, and fresh
// pages for every chunk cost page faults.  A few are kept with their capacity, the rest
// are freed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "parallel/idle_pool.hpp"
#include "parallel/items.hpp"
#include "parallel/track.hpp"

namespace flowdeflate::parallel {

/// How a storage type is emptied before it is kept (the Reset of Pool): cleared.
struct ClearOnGive {
    template <class V>
    void operator()(V& v) const {
        v.clear();
    }
};
/// Item and sequence buffers: cleared, and the pages past what was written given back (a
/// recycled item buffer must not keep the largest extent it ever had resident).
struct ReleaseOnGive {
    template <class T>
    void operator()(PodBuffer<T>& v) const {
        v.release_unused_pages();
        v.clear();
    }
};
/// Output segments keep their room as it is: their contents are unspecified.
struct KeepOnGive {
    template <class V>
    void operator()(V& /*unused*/) const {}
};

/// One process-wide pool per storage type; any thread takes and gives (Search takes,
/// whoever drops the last reference to a chunk's tracks gives).  A few are kept with
/// their capacity (after @p Reset), the rest are freed.
template <class V, class Reset = ClearOnGive, std::size_t kMaxFree = 4>
class Pool {
public:
    static Pool& instance() {
        static Pool pool;
        return pool;
    }
    V take() {
        return idle_.take([] { return V{}; });
    }
    void give(V&& v) {
        if (v.capacity() == 0) return;
        Reset{}(v);
        idle_.give(std::move(v));
    }

private:
    IdlePool<V> idle_{kMaxFree};  // kMaxFree: resident memory, kept for speed
};

using ItemBufferPool = Pool<ItemBuffer, ReleaseOnGive>;
using SequenceBufferPool = Pool<PodBuffer<SeqStep>, ReleaseOnGive>;  ///< level-1 tracks' (Track::seqs)
/// Levels 2-9, history tracks' strides and literal checkpoints (Track::strides,
/// Track::checkpoint_literals): written through a pointer by the search, as items are.
using StridePool = Pool<PodBuffer<Track::LazyStride>, ReleaseOnGive>;
using CheckpointPool = Pool<PodBuffer<u16>, ReleaseOnGive>;
using SegmentPool = Pool<PodBuffer<std::uint8_t>, KeepOnGive>;
/// Coded blocks' bits: tens to hundreds of KB each, as many as blocks wait for Assemble;
/// with 4 kept, a -1 -p2 run refaulted them (2% of its samples, in emit_coded).
using BitsPool = Pool<PodBuffer<std::uint8_t>, ClearOnGive, 16>;

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
        void operator()(T* p) const { StatePool::instance().idle_.give(key, std::unique_ptr<T>(p)); }
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
        return Handle(idle_.take(key, std::forward<Make>(make)).release(), GiveBack{key});
    }

private:
    IdlePool<std::unique_ptr<T>, Keys> idle_{std::clamp<std::size_t>(std::thread::hardware_concurrency(), 4, 64)};
};

}  // namespace flowdeflate::parallel
