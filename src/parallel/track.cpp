// track.cpp - see track.hpp.
#include "parallel/track.hpp"

#include "parallel/pool.hpp"

namespace flowdeflate::parallel {

Track::Track() : items(Pool<ItemBuffer>::instance().take()) {}

Track::~Track() {
    Pool<ItemBuffer>::instance().give(std::move(items));
    Pool<ItemBuffer>::instance().give(std::move(branch_items));
    Pool<std::vector<Branch>>::instance().give(std::move(branches));
}

}  // namespace flowdeflate::parallel
