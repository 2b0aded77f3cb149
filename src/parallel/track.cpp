// track.cpp - see track.hpp.
#include "parallel/track.hpp"

#include "parallel/pool.hpp"

namespace flowdeflate::parallel {

Track::Track()
    : items(ItemBufferPool::instance().take()),
      strides(Pool<std::vector<LazyStride>>::instance().take()),
      checkpoint_literals(Pool<std::vector<u16>>::instance().take()) {}

Track::~Track() {
    ItemBufferPool::instance().give(std::move(items));
    ItemBufferPool::instance().give(std::move(branch_items));
    Pool<std::vector<Branch>>::instance().give(std::move(branches));
    Pool<std::vector<LazyStride>>::instance().give(std::move(strides));
    Pool<std::vector<u16>>::instance().give(std::move(checkpoint_literals));
    SequenceBufferPool::instance().give(std::move(seqs));
    Pool<std::vector<u32>>::instance().give(std::move(seq_marks));
}

}  // namespace flowdeflate::parallel
