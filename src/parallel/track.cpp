// track.cpp - see track.hpp.
#include "parallel/track.hpp"

#include "parallel/pool.hpp"

namespace flowdeflate::parallel {

Track::Track()
    : items(ItemBufferPool::instance().take()),
      strides(StridePool::instance().take()),
      checkpoint_literals(CheckpointPool::instance().take()) {}

Track::~Track() {
    ItemBufferPool::instance().give(std::move(items));
    ItemBufferPool::instance().give(std::move(branch_items));
    Pool<std::vector<Branch>>::instance().give(std::move(branches));
    StridePool::instance().give(std::move(strides));
    CheckpointPool::instance().give(std::move(checkpoint_literals));
    SequenceBufferPool::instance().give(std::move(seqs));
    Pool<std::vector<u32>>::instance().give(std::move(seq_marks));
}

}  // namespace flowdeflate::parallel
