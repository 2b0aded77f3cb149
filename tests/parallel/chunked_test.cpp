// tests/parallel/chunked_test.cpp - the parallel stages (Search, Resolve, Code, Assemble)
// run one after another by parallel::compress_chunked(), against the reference libdeflate,
// byte for byte.  No threads here: this isolates the speculative search and the resolver
// from scheduling (graph/pipeline_test.cpp's ParallelGraph and ParallelStress run the
// same stages in the graph).
//
//   ChunkedDifferential/*  levels 1-9 x chunk sizes 4 KiB, 64 KiB, 1 MiB x every generated
//                          kind of data (sizes chosen so chunk ends fall inside matches,
//                          blocks and at block ends), tracks auto (assuming 64
//                          workers, so that min_len repairs bring step masks in; and 1,
//                          where the plan stays with the history track), history and all.
//   ChunkedRealFiles/*     real files from /usr/lib and /usr/share at 4 KiB and 64 KiB.
//   ChunkedEdges           empty, tiny, exactly one chunk, one chunk + 1 byte; lazy steps
//                          that defer hundreds of literals (strides over 255 items).
//   BranchArming           branches for another min_len are armed only near a threshold
//                          of the min_len choice; the output is exact at every margin.
#include <flowdeflate/flowdeflate.hpp>

#include "core/block_split.hpp"
#include "parallel/compress_chunked.hpp"
#include "parallel/searcher.hpp"
#include "support/compare.hpp"
#include "support/reference.hpp"
#include "support/test_data.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>

namespace {

namespace fdt = flowdeflate::testing;
namespace core = flowdeflate::core;
namespace parallel = flowdeflate::parallel;
using flowdeflate::Format;
using fdt::Bytes;

constexpr std::size_t KiB = 1024;

const char* mode_name(flowdeflate::Tracks m) {
    switch (m) {
        case flowdeflate::Tracks::automatic: return "auto";
        case flowdeflate::Tracks::history: return "history";
        default: return "all";
    }
}

// The resolver's load (its time per chunk over the search's per track) the automatic
// plans weigh here, instead of a measured one: with it the plans, and so the counters the
// tests expect, do not depend on the host's timing (a faster resolver, measured, left
// 64 workers below the bound where branches start: no branch at level 4, 1 MiB chunks, on
// one CI host).  1/16: with 64 workers the resolver bounds the run 4-fold, with 1 not.
constexpr double kAssumedResolverLoad = 1.0 / 16;

// Compresses with the chunked pieces and with the reference; true when identical.
// workers: what the automatic track choice assumes; 64 makes the resolver the bottleneck,
// so that misses bring the fixed tracks in (with 1, automatic is mostly history only).
bool same_as_reference(std::span<const std::uint8_t> input, int level, std::size_t chunk, flowdeflate::Tracks mode,
                       Format format, const std::string& label, parallel::ResolverStats* stats_out = nullptr,
                       int workers = 64, std::optional<unsigned> arm_margin = {}) {
    parallel::ResolverStats stats;
    const Bytes mine = parallel::compress_chunked(input, level, format, {chunk, mode, workers, arm_margin, kAssumedResolverLoad}, &stats);
    const Bytes theirs = fdt::Reference::get().compress(input, level, format);
    if (stats_out) *stats_out = stats;
    if (auto diff = fdt::describe_difference(mine, theirs, format, input.size())) {
        ADD_FAILURE() << "[" << label << ", " << input.size() << " bytes, level " << level << ", chunk " << chunk
                      << ", tracks " << mode_name(mode) << "] " << *diff << " (repairs " << stats.repairs << ")";
        return false;
    }
    return true;
}

using Param = std::tuple<int, std::size_t>;

class ChunkedDifferential : public ::testing::TestWithParam<Param> {
protected:
    int level() const { return std::get<0>(GetParam()); }
    std::size_t chunk() const { return std::get<1>(GetParam()); }
};

TEST_P(ChunkedDifferential, GeneratedKinds) {
    // Enough chunks to cross many chunk ends; not a multiple of the chunk size.
    const std::size_t n = std::min<std::size_t>(chunk() * 6 + 12345, 3 * 1024 * KiB + 777);
    parallel::ResolverStats total{};
    for (const fdt::Kind kind : fdt::kAllKinds) {
        const Bytes data = fdt::generate(kind, n, 7 + unsigned(kind));
        parallel::ResolverStats s;
        if (!same_as_reference(data, level(), chunk(), flowdeflate::Tracks::automatic, Format::gzip,
                               std::string(fdt::kind_name(kind)), &s))
            return;
        total.repairs += s.repairs;
        total.repair_bytes += s.repair_bytes;
        total.syncs += s.syncs;
        total.masked_chunks += s.masked_chunks;
        total.branches += s.branches;
    }
    RecordProperty("repairs", std::to_string(total.repairs));
    RecordProperty("repair_bytes", std::to_string(total.repair_bytes));
    RecordProperty("masked_chunks", std::to_string(total.masked_chunks));
    RecordProperty("branches", std::to_string(total.branches));
    // With 64 workers any min_len repair asks for step masks: the chunks after one are
    // searched with them, so this suite runs the resolver on masked tracks too (the data
    // makes min_len repairs at levels 4-9 with these chunk sizes; level 4 is greedy too).
    if (level() >= 4 && chunk() <= 64 * KiB) {
        EXPECT_GT(total.masked_chunks, 0u) << "no chunk was searched with step masks";
    }
    // The resolver (one thread against 64 searching) is the bottleneck, so chunks after a
    // miss are searched with branches (Track::branches), and the resolver takes some (the
    // 4 KiB runs are too short for that: a few chunks).
    if (level() >= 4 && chunk() >= 64 * KiB) {
        EXPECT_GT(total.branches, 0u) << "no branch was taken";
    }
}

TEST_P(ChunkedDifferential, TrackModes) {
    const Bytes data = fdt::generate(fdt::Kind::mixed, chunk() * 5 + 999, 3);
    for (const auto mode : {flowdeflate::Tracks::history, flowdeflate::Tracks::all})
        if (!same_as_reference(data, level(), chunk(), mode, Format::gzip, "mixed")) return;
    // Branches armed only near a threshold of the min_len choice (BranchParses::arm(): what
    // `auto` plans where the resolver only just bounds the run), and never (margin 0).
    for (const unsigned margin : {0u, 8u})
        if (!same_as_reference(data, level(), chunk(), flowdeflate::Tracks::all, Format::gzip, "mixed, armed", nullptr,
                               64, margin))
            return;
    // One searching worker: the plan stays with the history track, without masks.
    same_as_reference(data, level(), chunk(), flowdeflate::Tracks::automatic, Format::gzip, "mixed", nullptr, 1);
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
    return fmt::format("Level{}_Chunk{}K", std::get<0>(info.param), std::get<1>(info.param) / KiB);
}

INSTANTIATE_TEST_SUITE_P(Levels, ChunkedDifferential,
                         ::testing::Combine(::testing::Range(1, 10), ::testing::Values(4 * KiB, 64 * KiB, 1024 * KiB)),
                         param_name);

class ChunkedRealFiles : public ::testing::TestWithParam<int> {};

TEST_P(ChunkedRealFiles, FilesFromTheSystem) {
    const auto files = fdt::real_files(6, 3 * 1024 * KiB);
    if (files.empty()) GTEST_SKIP() << "no real files found";
    for (const auto& path : files) {
        const Bytes data = fdt::read_file(path, 3 * 1024 * KiB);
        for (const std::size_t chunk : {4 * KiB, 64 * KiB})
            if (!same_as_reference(data, GetParam(), chunk, flowdeflate::Tracks::automatic, Format::gzip, path.string()))
                return;
    }
}

INSTANTIATE_TEST_SUITE_P(Levels, ChunkedRealFiles, ::testing::Values(1, 2, 4, 5, 6, 7, 8, 9),
                         [](const ::testing::TestParamInfo<int>& i) { return "Level" + std::to_string(i.param); });

TEST(ChunkedEdges, SizesAroundChunks) {
    const std::size_t chunk = 4 * KiB;
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(40), std::size_t(60), chunk - 1, chunk,
                                chunk + 1, 2 * chunk, std::size_t(70000), std::size_t(300000), std::size_t(310001)}) {
        const Bytes data = fdt::generate(fdt::Kind::text, n, 11);
        for (const int level : {1, 6, 9})
            for (const Format f : {Format::gzip, Format::zlib, Format::deflate})
                if (!same_as_reference(data, level, chunk, flowdeflate::Tracks::automatic, f, "text")) return;
    }
}

// Lazy steps that defer hundreds of literals: after a stretch R, the longest match at R's
// k-th byte is k + 3 bytes long (each R[k .. 2k + 3) is planted earlier, then a byte that
// breaks it), so the lazy parser keeps finding a longer match one byte further and defers
// a literal each time, up to nice_len.  Two such stretches back to back put more items in
// a 16-step stride than its 8-bit counts hold (the resolver must walk it).
Bytes deferring_input(std::size_t n, std::size_t repeats) {
    Bytes out;
    const Bytes noise = fdt::random_bytes(1u << 20, 99);
    std::size_t next_noise = 0;
    const auto take_noise = [&](std::size_t len) {
        out.insert(out.end(), noise.begin() + std::ptrdiff_t(next_noise),
                   noise.begin() + std::ptrdiff_t(next_noise + len));
        next_noise += len;
    };
    for (std::size_t r = 0; r < repeats; ++r) {
        const Bytes a = fdt::random_bytes(2 * n + 8, 1000 + 2 * r), b = fdt::random_bytes(2 * n + 8, 1001 + 2 * r);
        take_noise(64);
        for (const Bytes* stretch : {&a, &b})
            for (std::size_t k = 0; k < n; ++k) {
                out.insert(out.end(), stretch->begin() + std::ptrdiff_t(k), stretch->begin() + std::ptrdiff_t(2 * k + 3));
                out.push_back(std::uint8_t((*stretch)[2 * k + 3] ^ 0x5A));  // the match ends here
            }
        take_noise(64);
        out.insert(out.end(), a.begin(), a.end());
        out.insert(out.end(), b.begin(), b.end());
    }
    take_noise(4096);
    return out;
}

TEST(ChunkedEdges, StepsThatDeferManyLiterals) {
    // n = 160 keeps the planted strings (~13 KB) inside the 32 KiB window; levels 8-9
    // (nice_len 258) defer up to n literals in one step, levels 5-7 up to nice_len.
    const Bytes data = deferring_input(150, 8);
    {  // the input does what it is for: some 16-step stride holds more than 255 items
        parallel::ChunkSearcher searcher(9);
        parallel::ChunkJob job;
        job.in_begin = job.begin = data.data();
        job.end = job.stop = job.data_end = data.data() + data.size();
        job.eof = true;
        const auto tracks = searcher.search(job, parallel::TrackPlan{});
        std::size_t most = 0;
        const auto& strides = tracks->tracks.at(0).strides;
        for (std::size_t k = 0; k < strides.size(); ++k)
            most = std::max<std::size_t>(most, strides[k].item_end - (k ? strides[k - 1].item_end : 0));
        ASSERT_GT(most, std::size_t(parallel::Track::kMaxStrideItems)) << "the input no longer makes long strides";
    }
    // (Without the guard these strides' counts wrap; on this input that happens not to
    // change a block-split decision, so the comparison below checks exactness on such
    // strides, and the assertion above that they occur.)
    for (const int level : {5, 6, 8, 9})
        for (const std::size_t chunk : {4 * KiB, 64 * KiB})
            for (const auto mode : {flowdeflate::Tracks::automatic, flowdeflate::Tracks::history, flowdeflate::Tracks::all})
                if (!same_as_reference(data, level, chunk, mode, Format::gzip, "deferring")) return;
}

// Words over an alphabet whose size wanders around 80 symbols, where libdeflate's min_len
// choice flips between 3 and 4 (80 literals in use or more: 3): the kind of text on which
// branches are armed (packages.txt's count hovers there).
Bytes near_threshold_text(std::size_t n, std::uint64_t seed) {
    std::uint64_t x = seed;
    const auto next = [&x] {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return std::uint32_t(x >> 33);
    };
    Bytes out;
    out.reserve(n + 64);
    std::vector<std::string> words;
    while (out.size() < n) {
        // A section of 6-20 KiB: an alphabet of 72-88 symbols, and 200 words over it.
        const unsigned symbols = 72 + next() % 17;
        words.clear();
        for (int w = 0; w < 200; ++w) {
            std::string word(2 + next() % 7, ' ');
            for (char& c : word) c = char(33 + next() % symbols);
            words.push_back(std::move(word));
        }
        const std::size_t end = std::min(n, out.size() + 6 * KiB + next() % (14 * KiB));
        while (out.size() < end) {
            const std::string& w = words[next() % (next() % 2 ? 20 : words.size())];
            out.insert(out.end(), w.begin(), w.end());
            out.push_back(next() % 9 ? ' ' : '\n');
        }
    }
    out.resize(n);
    return out;
}

// Text whose literal count is near a threshold: with margin 8 the branches for the other
// min_len are searched and taken (fewer repairs than with none), with margin 0 none are
// (no count within 0 chooses another min_len), and without a margin most; the output is
// the reference's every time.
TEST(BranchArming, ExactAtEveryMargin) {
    const Bytes data = near_threshold_text(3 * 1024 * KiB + 321, 11);
    for (const int level : {5, 6, 8}) {
        parallel::ResolverStats never, near, always;
        ASSERT_TRUE(same_as_reference(data, level, 64 * KiB, flowdeflate::Tracks::all, Format::gzip, "near", &never, 64, 0u));
        ASSERT_TRUE(same_as_reference(data, level, 64 * KiB, flowdeflate::Tracks::all, Format::gzip, "near", &near, 64, 8u));
        ASSERT_TRUE(same_as_reference(data, level, 64 * KiB, flowdeflate::Tracks::all, Format::gzip, "near", &always));
        EXPECT_EQ(never.branches, 0u) << "level " << level << ": a branch off a min_len no count near chose";
        EXPECT_GT(near.branches, 0u) << "level " << level << ": no branch taken near the threshold";
        EXPECT_LT(near.repair_bytes, never.repair_bytes) << "level " << level;
        EXPECT_LE(always.repair_bytes, near.repair_bytes) << "level " << level;
    }
}

// Branches are armed only near a threshold of the min_len choice (BranchParses::arm()).
TEST(BranchArming, MinLensNearACount) {
    using core::min_lens_near;
    const auto bit = [](unsigned m) { return 1u << (m - core::kMinMatchLen); };
    constexpr unsigned kDepth = 35;  // level 6
    // No margin: the choice itself.
    for (unsigned n = 0; n <= 256; ++n)
        EXPECT_EQ(min_lens_near(n, kDepth, 0), bit(core::choose_min_match_len(n, kDepth))) << n;
    // 79 distinct literals choose 4, 80 choose 3.
    EXPECT_EQ(min_lens_near(79, kDepth, 1), bit(3) | bit(4));
    EXPECT_EQ(min_lens_near(71, kDepth, 8), bit(4));
    EXPECT_EQ(min_lens_near(72, kDepth, 8), bit(3) | bit(4));
    EXPECT_EQ(min_lens_near(200, kDepth, 8), bit(3));
    EXPECT_EQ(min_lens_near(256, kDepth, 8), bit(3));  // a short block: counted as all used
    EXPECT_EQ(min_lens_near(0, kDepth, 8), bit(9) | bit(8) | bit(7));
    // A shallow search caps the choice (depth 6: at most 5).
    EXPECT_EQ(min_lens_near(0, 6, 300), bit(3) | bit(4) | bit(5));
}

// Level 1 writes its tracks as sequences whose literal runs may be a chunk long: a track
// of 9 MiB of incompressible input is one run longer than core::Sequence's 23 bits can
// count (a block's runs never are).  Text on either side, so that matches frame it.
TEST(ChunkedEdges, LevelOneLiteralRunLongerThanASequenceCounts) {
    Bytes data = fdt::generate(fdt::Kind::text, 300 * KiB, 3);
    const Bytes noise = fdt::generate(fdt::Kind::random, 9 * 1024 * KiB, 4);
    data.insert(data.end(), noise.begin(), noise.end());
    const Bytes tail = fdt::generate(fdt::Kind::text, 200 * KiB, 5);
    data.insert(data.end(), tail.begin(), tail.end());
    for (const std::size_t chunk : {std::size_t(16) << 20, std::size_t(4) << 20})
        EXPECT_TRUE(same_as_reference(data, 1, chunk, flowdeflate::Tracks::automatic, Format::gzip, "long literal run"));
}

// Level 1's repairs (where a chunk's track has not met the true parse yet) append
// sequences of their own, closed into runs at a sync or a block's end: small chunks of
// binary data make them; the bytes must still be the reference's.
TEST(ChunkedEdges, LevelOneRepairsGiveTheReferenceBytes) {
    std::uint64_t repairs = 0;
    for (const fdt::Kind kind : {fdt::Kind::binary, fdt::Kind::mixed, fdt::Kind::source, fdt::Kind::switching}) {
        const Bytes data = fdt::generate(kind, 2 * 1024 * KiB + 333, 21);
        parallel::ResolverStats s;
        ASSERT_TRUE(same_as_reference(data, 1, 4 * KiB, flowdeflate::Tracks::automatic, Format::gzip,
                                      std::string(fdt::kind_name(kind)), &s));
        repairs += s.repairs;
    }
    EXPECT_GT(repairs, 0u) << "the inputs no longer make level-1 repairs";
}

TEST(ChunkedEdges, RejectsSmallChunks) {
    EXPECT_THROW(parallel::compress_chunked({}, 6, Format::gzip, {4095, flowdeflate::Tracks::automatic}), flowdeflate::Error);
    EXPECT_THROW(parallel::compress_chunked({}, 0, Format::gzip, {4096, flowdeflate::Tracks::automatic}), flowdeflate::Error);
}

}  // namespace
