// compressor_pool.cpp - see compressor_pool.hpp.
#include "parallel/compressor_pool.hpp"

namespace flowdeflate::parallel {

CompressorPool& CompressorPool::instance() {
    // Never destroyed: calls from other static destructors or detached threads may still
    // give a lease back at exit.
    static CompressorPool* pool = new CompressorPool;
    return *pool;
}

std::unique_ptr<PoolEntry> CompressorPool::take(int level) {
    return idle_.take(std::size_t(level), [level] {
        auto e = std::make_unique<PoolEntry>();
        e->compressor = std::make_unique<core::DeflateCompressor>(level);
        return e;
    });
}

void CompressorPool::give(std::unique_ptr<PoolEntry> e) {
    if (e->scratch.size() > kMaxKeptScratch) e->scratch = {};
    const auto level = std::size_t(e->compressor->level());
    idle_.give(level, std::move(e));
}

CompressorPool::Lease::Lease(CompressorPool& pool, int level) : pool_(pool), entry_(pool.take(level)) {}

CompressorPool::Lease::~Lease() { pool_.give(std::move(entry_)); }

std::span<core::u8> CompressorPool::Lease::scratch(std::size_t size) {
    // A bigger one replaces it: its contents need not survive, and it is not zeroed (a
    // zeroed megabyte faulted in 256 pages a small file's output never reaches).
    if (entry_->scratch.size() < size) entry_->scratch = io::RawBuffer(size);
    return entry_->scratch.span().first(size);
}

}  // namespace flowdeflate::parallel
