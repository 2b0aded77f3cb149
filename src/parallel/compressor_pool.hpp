// compressor_pool.hpp - sequential core compressors kept for the next call, so that a
// small call pays for its compression and not for allocating and zeroing a compressor's
// tables and buffers (about a megabyte at level 6) every time.
//
// Bounded: at most kIdlePerLevel idle compressors per level, each with at most one
// scratch buffer of kMaxKeptScratch bytes; what is given back beyond that is freed.  Any
// thread takes and gives; a lease is used by one thread at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "core/deflate_compressor.hpp"
#include "flowdeflate/core.hpp"
#include "io/raw_buffer.hpp"
#include "parallel/idle_pool.hpp"

namespace flowdeflate::parallel {

/// A compressor and its scratch buffer, as the pool keeps them.
struct PoolEntry {
    std::unique_ptr<core::DeflateCompressor> compressor;
    io::RawBuffer scratch;  ///< never zeroed: only the pages the output reaches are touched
};

class CompressorPool {
public:
    /// A compressor (and a scratch buffer) taken from the pool; returned when it goes.
    class Lease {
    public:
        Lease(CompressorPool& pool, int level);
        ~Lease();
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        core::DeflateCompressor& compressor() { return *entry_->compressor; }
        /// A buffer of at least @p size bytes (its contents are unspecified).
        std::span<core::u8> scratch(std::size_t size);

    private:
        CompressorPool& pool_;
        std::unique_ptr<PoolEntry> entry_;
    };

    static CompressorPool& instance();

    /// Idle compressors kept per level: enough for every core of a large machine to make
    /// small calls at once without building compressors.
    static constexpr std::size_t kIdlePerLevel = 32;
    /// The largest scratch buffer kept with an idle compressor (a default chunk's output).
    static constexpr std::size_t kMaxKeptScratch = (1u << 20) + 4096;

private:
    std::unique_ptr<PoolEntry> take(int level);
    void give(std::unique_ptr<PoolEntry> entry);

    parallel::IdlePool<std::unique_ptr<PoolEntry>, kMaxLevel + 1> idle_{kIdlePerLevel};
};

}  // namespace flowdeflate::parallel
