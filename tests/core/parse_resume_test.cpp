// parse_resume_test.cpp - proves the cut the parallel pipeline relies on: a parse can
// start at any step position p of the sequential parse, given only the input (for the
// 32 KiB of history before p) and the explicit parse state captured there, and from p on
// it makes exactly the choices the sequential parse makes - the same literals, matches
// and block ends.  The match finder is not carried over: it is rebuilt by priming.
//
// Positions are chosen around the places where the state is subtle: the 32 KiB window
// boundaries where the match finders slide (the level-1 finder may slide up to 257 bytes
// early), the start of the input, mid-block positions, and random ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "core/parser_fastest.hpp"
#include "core/parser_lazy.hpp"
#include "core/parser_near_optimal.hpp"
#include "support/test_data.hpp"

namespace flowdeflate::core {
namespace {

struct Item {
    u32 pos;
    u32 length;  // 0 = literal
    u32 offset;
    bool operator==(const Item&) const = default;
};

template <class State>
struct RecordingTrace : core::NoTrace {
    static constexpr bool kEnabled = true;
    const u8* base = nullptr;
    std::vector<std::size_t> targets;  // sorted
    std::size_t next_target = 0;
    std::vector<std::pair<std::size_t, State>> captured;
    std::vector<Item> items;

    void on_step(const u8* p, const State& s) {
        const std::size_t pos = std::size_t(p - base);
        if (next_target < targets.size() && pos >= targets[next_target]) {
            captured.emplace_back(pos, s);
            while (next_target < targets.size() && targets[next_target] <= pos) ++next_target;
        }
    }
    void on_literal(const u8* p) { items.push_back({u32(p - base), 0, 0}); }
    void on_match(const u8* p, u32 len, u32 off) { items.push_back({u32(p - base), len, off}); }
};

struct BlockEnds {
    const u8* base;
    std::vector<std::size_t> ends;
    void operator()(const ParsedBlock& b) { ends.push_back(std::size_t(b.data.data() + b.data.size() - base)); }
};

std::vector<std::size_t> interesting_positions(std::size_t n, std::uint64_t seed) {
    std::vector<std::size_t> t = {1, 2, 100, 5000, 10000};
    for (std::size_t w = kWindowSize; w < n; w += kWindowSize)
        for (std::ptrdiff_t d : {-300, -257, -100, -3, -1, 0, 1, 2, 300})
            if (std::ptrdiff_t(w) + d > 0 && std::size_t(std::ptrdiff_t(w) + d) < n) t.push_back(w + d);
    testing::Rng rng(seed);
    for (int i = 0; i < 12; ++i) t.push_back(rng.below(n));
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t;
}

// Runs the sequential parse with state capture, then resumes from every captured state
// and checks the items and block ends from there to the end of the input.
template <class Parser, class State>
void check_resume(const LevelParams& params, const testing::Bytes& data, std::uint64_t seed) {
    const u8* begin = data.data();
    const u8* end = begin + data.size();
    Parser seq_parser(params);
    RecordingTrace<State> full;
    full.base = begin;
    full.targets = interesting_positions(data.size(), seed);
    BlockEnds full_blocks{begin, {}};
    seq_parser.parse(begin, end, full_blocks, full);
    ASSERT_FALSE(full.captured.empty());

    for (const auto& [pos, state] : full.captured) {
        SCOPED_TRACE(::testing::Message() << "resume at " << pos << " of " << data.size());
        Parser resumed(params);
        RecordingTrace<State> part;
        part.base = begin;
        BlockEnds part_blocks{begin, {}};
        resumed.resume(begin, begin + pos, end, state, part_blocks, part);

        const auto first = std::lower_bound(full.items.begin(), full.items.end(), Item{u32(pos), 0, 0},
                                            [](const Item& a, const Item& b) { return a.pos < b.pos; });
        const std::vector<Item> expected(first, full.items.end());
        ASSERT_EQ(part.items.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            ASSERT_EQ(part.items[i], expected[i]) << "item " << i << " at position " << expected[i].pos;
        }
        std::vector<std::size_t> expected_ends;
        for (std::size_t e : full_blocks.ends)
            if (e > pos) expected_ends.push_back(e);
        EXPECT_EQ(part_blocks.ends, expected_ends);
    }
}

struct ResumeCase {
    testing::Kind kind;
    std::size_t size;
};

class ParseResume : public ::testing::TestWithParam<int> {};

const ResumeCase kCases[] = {
    {testing::Kind::text, 300000},      {testing::Kind::source, 200000}, {testing::Kind::dna, 200000},
    {testing::Kind::switching, 400000}, {testing::Kind::binary, 200000}, {testing::Kind::runs, 150000},
    {testing::Kind::few_symbols, 150000},
};

TEST_P(ParseResume, ResumedParseMakesTheSequentialChoices) {
    const int level = GetParam();
    const LevelParams params = LevelParams::for_level(level);
    std::uint64_t seed = 1000 + level;
    for (const ResumeCase& c : kCases) {
        SCOPED_TRACE(std::string(testing::kind_name(c.kind)));
        const testing::Bytes data = testing::generate(c.kind, c.size, ++seed);
        if (level == 1)
            check_resume<FastestParser, FastestParseState>(params, data, seed);
        else if (level <= 4)
            check_resume<LazyParser<LazyMode::greedy>, LazyParseState>(params, data, seed);
        else if (level <= 7)
            check_resume<LazyParser<LazyMode::lazy>, LazyParseState>(params, data, seed);
        else
            check_resume<LazyParser<LazyMode::lazy2>, LazyParseState>(params, data, seed);
        if (HasFatalFailure()) return;
    }
}

INSTANTIATE_TEST_SUITE_P(Levels, ParseResume, ::testing::Range(1, 10),
                         [](const ::testing::TestParamInfo<int>& i) { return "Level" + std::to_string(i.param); });

// Levels 10-12: the near-optimal parser chooses a block's items only when the block
// ends, so the comparison is per block: every block from the one containing the resume
// position on must have the same extent, the same sequences and the same codes.
struct RecordedBlock {
    std::size_t begin, length;
    bool is_final;
    std::vector<std::array<u32, 3>> seqs;  // litrunlen, length, offset
    std::vector<u8> lens;                  // litlen + offset codeword lengths
    bool operator==(const RecordedBlock&) const = default;
};

struct BlockRecorder {
    const u8* base;
    std::vector<RecordedBlock> blocks;
    void operator()(const ParsedBlock& b) {
        RecordedBlock r{std::size_t(b.data.data() - base), b.data.size(), b.is_final, {}, {}};
        for (const Sequence* s = b.seqs;; ++s) {
            r.seqs.push_back({s->litrunlen(), s->length(), s->length() ? s->offset : 0u});
            if (s->length() == 0) break;
        }
        r.lens.assign(b.codes->litlen_lens, b.codes->litlen_lens + kNumLitlenSyms);
        r.lens.insert(r.lens.end(), b.codes->offset_lens, b.codes->offset_lens + kNumOffsetSyms);
        blocks.push_back(std::move(r));
    }
};

class NearOptimalResume : public ::testing::TestWithParam<int> {};

TEST_P(NearOptimalResume, ResumedParseEmitsTheSequentialBlocks) {
    const LevelParams params = LevelParams::for_level(GetParam());
    std::uint64_t seed = 2000 + GetParam();
    for (const ResumeCase& c : {ResumeCase{testing::Kind::switching, 400000}, ResumeCase{testing::Kind::text, 250000},
                                ResumeCase{testing::Kind::dna, 150000}, ResumeCase{testing::Kind::binary, 150000}}) {
        SCOPED_TRACE(std::string(testing::kind_name(c.kind)));
        const testing::Bytes data = testing::generate(c.kind, c.size, ++seed);
        const u8* begin = data.data();
        const u8* end = begin + data.size();
        NearOptimalParser whole(params);
        BlockRecorder all{begin, {}};
        NearOptimalCapture capture;
        capture.targets = interesting_positions(data.size(), seed);
        whole.parse(begin, end, BlockSinkRef(all), &capture);
        ASSERT_FALSE(capture.states.empty());
        if (c.kind == testing::Kind::switching) {
            ASSERT_GT(all.blocks.size(), 1u);  // the case with splits
        }
        for (const auto& [pos, state] : capture.states) {
            SCOPED_TRACE(::testing::Message() << "resume at " << pos << " of " << data.size());
            NearOptimalParser resumed(params);
            BlockRecorder part{begin, {}};
            resumed.resume(begin, begin + pos, end, state, BlockSinkRef(part));
            const std::size_t block_begin = std::size_t(state.block_begin - begin);
            std::vector<RecordedBlock> expected;
            for (const RecordedBlock& b : all.blocks)
                if (b.begin >= block_begin) expected.push_back(b);
            ASSERT_EQ(part.blocks.size(), expected.size());
            for (std::size_t i = 0; i < expected.size(); ++i)
                ASSERT_TRUE(part.blocks[i] == expected[i]) << "block " << i << " at " << expected[i].begin;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Levels, NearOptimalResume, ::testing::Values(10, 11, 12),
                         [](const ::testing::TestParamInfo<int>& i) { return "Level" + std::to_string(i.param); });

}  // namespace
}  // namespace flowdeflate::core
