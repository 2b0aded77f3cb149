// levels.hpp - libdeflate's table of levels: the one place that says which parser a level
// runs, with which parameters, and whether the parallel stages can run it.  The sequential
// compressor, the parallel search and resolver, and Options::parallel() all read it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/deflate_format.hpp"

namespace flowdeflate::core {

/// The parse a level runs (libdeflate: deflate_compress_none / _fastest / _greedy / _lazy
/// / _lazy2 / _near_optimal).
enum class ParserKind : std::uint8_t { stored, fastest, greedy, lazy, lazy2, near_optimal };

/// Can the parallel stages (src/parallel/) run this parse?  Levels 1-9: their steps depend
/// only on the position and min_len once the match finder is primed.  The near-optimal
/// parse carries costs from block to block, and stored output needs no search.
[[nodiscard]] constexpr bool runs_in_parallel(ParserKind kind) {
    return kind == ParserKind::fastest || kind == ParserKind::greedy || kind == ParserKind::lazy ||
           kind == ParserKind::lazy2;
}

/// One row of the table.  Each value decides bits.
struct LevelParams {
    int level;
    ParserKind parser;
    u32 max_search_depth;      ///< chain/tree nodes visited per search
    u32 nice_match_length;     ///< stop searching at a match this long
    std::size_t max_passthrough_size;  ///< inputs up to this size are stored as-is
    // near-optimal (levels 10-12) only:
    u32 max_optim_passes = 0;
    u32 min_improvement_to_continue = 0;
    u32 min_bits_to_use_nonfinal_path = 0;
    u32 max_len_to_optimize_static_block = 0;

    /// The row of @p level (0-12; the caller validates: above 12 is level 12's row).
    static LevelParams for_level(int level);
    [[nodiscard]] bool parallel() const { return runs_in_parallel(parser); }
};

namespace detail {
// The higher the level, the smaller the inputs that are still worth compressing.
constexpr std::size_t passthrough(int level) { return level == 0 ? SIZE_MAX : std::size_t(55 - level * 4); }
using P = ParserKind;
inline constexpr std::array<LevelParams, 13> kLevels = {{
    {0, P::stored, 0, 0, passthrough(0)},
    {1, P::fastest, 0, 32, passthrough(1)},  // depth fixed by the hash table
    {2, P::greedy, 6, 10, passthrough(2)},
    {3, P::greedy, 12, 14, passthrough(3)},
    {4, P::greedy, 16, 30, passthrough(4)},
    {5, P::lazy, 16, 30, passthrough(5)},
    {6, P::lazy, 35, 65, passthrough(6)},
    {7, P::lazy, 100, 130, passthrough(7)},
    {8, P::lazy2, 300, kMaxMatchLen, passthrough(8)},
    {9, P::lazy2, 600, kMaxMatchLen, passthrough(9)},
    {10, P::near_optimal, 35, 75, passthrough(10), 2, 32, 32, 0},
    {11, P::near_optimal, 100, 150, passthrough(11), 4, 16, 16, 1000},
    {12, P::near_optimal, 300, kMaxMatchLen, passthrough(12), 10, 1, 1, 10000},
}};
}  // namespace detail

inline LevelParams LevelParams::for_level(int level) {
    return detail::kLevels[level >= 0 && level < int(detail::kLevels.size()) ? level : 12];
}

/// Can @p level be compressed by the parallel stages (1-9)?
[[nodiscard]] inline bool level_is_parallel(int level) {
    return level >= 0 && level <= 12 && LevelParams::for_level(level).parallel();
}

}  // namespace flowdeflate::core
