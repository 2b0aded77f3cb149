// match_feed.hpp - the near-optimal parser's matches, found ahead of it.
//
// At levels 10-12 the match search (the binary trees) and the optimisation are separate
// passes, and only the optimisation is a chain from block to block.  The search at a
// position depends on the input alone: a skipped and a searched position change the
// trees alike, and the trees are primed from the 32 KiB before any position
// (BtMatchFinder::prime).  So the search can run over chunks of the input, in parallel
// and ahead of the parser, and record the matches at *every* position; the parser then
// takes the records instead of searching, and drops those of the positions it skips
// (inside a match of nice length or longer), exactly where its own search would have
// recorded nothing.
//
// Records: for each position in order, one LzMatch whose length is the number of matches
// that follow it, then the matches (strictly increasing lengths, as get_matches() reports
// them).  MatchRecorder writes them; graph/match_search.* runs it on a task arena.
#pragma once

#include "core/bt_match_finder.hpp"
#include "core/levels.hpp"

namespace flowdeflate::core {

/// The records of the positions [pos, end) (see above); valid until the next call.
struct MatchRun {
    const LzMatch* records = nullptr;
    const u8* end = nullptr;
};

class PathHelpers;

class MatchFeed {
public:
    /// A run's records stay readable this many entries past its last one (the parser
    /// copies matches in blocks of this many; what lies there is never used).
    static constexpr std::size_t kReadSlack = 8;

    virtual ~MatchFeed() = default;
    /// The records from @p pos on: the input's first byte on the first call, then where
    /// the previous run ended.  The parser asks only for positions before the input's end.
    virtual MatchRun next(const u8* pos) = 0;
    /// Threads that may compute parts of the optimiser's paths (path_split.hpp), if any.
    virtual PathHelpers* path_helpers() { return nullptr; }
};

/// Records the matches at every position from a start on, as the near-optimal parser of
/// the level would find them over the input [in_begin, in_end), into buffers the caller
/// hands it piece by piece.
class MatchRecorder {
public:
    /// Room one position's records may need.
    static constexpr std::size_t kRoom = 1 + (kMaxMatchLen - kMinMatchLen + 1);

    /// Primes @p mf from the 32 KiB before @p begin.  @p begin must lie at least
    /// kMaxMatchLen bytes before in_end (the priming assumes whole-length matches there);
    /// positions closer than BtMatchFinder::kRequiredBytes to in_end record no matches,
    /// as the parser searches none.  Needs the input up to min(end + kMaxMatchLen + 8,
    /// in_end) for the positions up to end.
    MatchRecorder(const LevelParams& params, BtMatchFinder& mf, const u8* in_begin, const u8* begin,
                  const u8* in_end);
    /// Records positions from pos() on, until @p end or until fewer than kRoom of the
    /// @p room entries at @p out are left; returns the entries written.
    std::size_t search(const u8* end, LzMatch* out, std::size_t room);
    /// The next position to record.
    [[nodiscard]] const u8* pos() const { return pos_; }

private:
    BtMatchFinder& mf_;
    const u8* pos_;
    const u8* in_end_;
    u32 depth_;
    u32 max_len_ = kMaxMatchLen;
    u32 nice_len_;
    u32 next_hashes_[2] = {0, 0};
};

}  // namespace flowdeflate::core
