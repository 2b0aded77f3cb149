// micro.cpp - micro-benchmarks of the pieces, each reporting bytes/s (Google Benchmark),
// on the first 8 MiB of a corpus file (FLOWDEFLATE_CORPUS or build/corpus; packages.txt
// or FLOWDEFLATE_MICRO_FILE, else generated text):
//
//   mf_hash_table_L1 / mf_hash_chains_L6 / mf_hash_chains_L9 / mf_binary_trees/L{10,12} :
//       a match finder alone: one search (which also inserts the position) at *every*
//       position, with the level's depth and nice length, no parsing; bytes/s = positions/s
//   mf_hash_chains_insert/N : the hash chains' insertion alone (a repair's catch-up and
//       priming), in runs of N bytes
//   parse_fastest / parse_greedy / parse_lazy / parse_lazy2 : a level's parser with its
//       match finder (ht for level 1, hc for 2-9), blocks to a counting sink
//   search_chunk_L1 / search_chunk_L6 / search_chunk_L6_masks / search_chunk_L6_branches :
//       the parallel search of one 8 MiB chunk (history track; at level 6 without and
//       with step masks, TrackPlan::step_masks, and with branches for min_len 4 and 5,
//       TrackPlan::branch_min_lens), to set against parse_fastest_L1 / parse_lazy_L6
//   min_cost_path/{scalar,avx2,avx512}_L{10,12} : the optimiser's inner loop, one pass
//       over a 128 KiB block whose match cache the level's bt search made, with the costs
//       of a third pass (the code two passes from random costs chose; since 2026-12-03:
//       random costs alone favoured other code, docs/notes/levels-10-12.md)
//   mf_rebase_tables     : a match finder's slide over the level 10-12 finder's tables
//   huffman_litlen       : length-limited canonical code for a 288-symbol alphabet
//                          (bytes/s: the block bytes whose counts it codes, ~100 KB)
//   append_bits_shifted  : assembly: appending a coded block at an odd bit offset
//   crc32                : libdeflate's CRC-32, as the assembler calls it
//   encode_block         : Code: Huffman codes and bits of one resolved block
//   prepare_blocks/L{1,6}: Code's first half over every block of the 8 MiB: sequences and
//                          symbol counts rebuilt from the blocks' items, Huffman codes, costs
//   graph_round_trip     : the parallel graph's per-message cost: 4 KiB chunks of zeros
//                          at level 1 (almost no compression work), items/s = chunks/s
#include <benchmark/benchmark.h>
#include <libdeflate.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <vector>

#include "bench_corpus.hpp"
#include "core/bt_match_finder.hpp"
#include "core/hc_match_finder.hpp"
#include "core/ht_match_finder.hpp"
#include "core/huffman.hpp"
#include "core/min_cost_path.hpp"
#include "core/parser_near_optimal.hpp"
#include "core/bit_writer.hpp"
#include "parallel/assembler.hpp"
#include "parallel/compress_chunked.hpp"
#include "parallel/encoder.hpp"
#include "parallel/searcher.hpp"
#include "core/parser_fastest.hpp"
#include "core/parser_lazy.hpp"
#include "flowdeflate/flowdeflate.hpp"
#include "support/test_data.hpp"

namespace {

using namespace flowdeflate;
using core::u8;
using core::u32;

const std::vector<u8>& input() {
    static const std::vector<u8> data = [] {
        const char* name = std::getenv("FLOWDEFLATE_MICRO_FILE");
        for (const auto& f : bench::corpus_files(std::uintmax_t(1) << 40))
            if (f.filename() == (name ? name : "packages.txt")) return bench::slurp(f, 8u << 20);
        return testing::generate(testing::Kind::text, 8u << 20, 1);
    }();
    return data;
}

// The match finders alone.  Searches stop kMaxMatchLen + 8 bytes before the end, so that
// max_len and nice_len never need shortening and every search reads only the input.
template <class Search>
void match_finder(benchmark::State& state, Search&& search) {
    const auto& in = input();
    const u8* const end = in.data() + in.size() - core::kMaxMatchLen - 8;
    u32 found = 0;
    for (auto _ : state) found += search(in.data(), end);
    benchmark::DoNotOptimize(found);
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(end - in.data()));
}

void mf_hash_table_L1(benchmark::State& state) {
    const core::LevelParams params = core::LevelParams::for_level(1);
    auto mf = std::make_unique<core::HtMatchFinder>();
    match_finder(state, [&](const u8* begin, const u8* end) {
        mf->init(begin);
        u32 hash = 0, sum = 0, offset = 0;
        for (const u8* p = begin; p < end; ++p)
            sum += mf->longest_match(p, core::kMaxMatchLen, params.nice_match_length, hash, offset);
        return sum;
    });
}
BENCHMARK(mf_hash_table_L1)->Unit(benchmark::kMillisecond);

void hash_chains(benchmark::State& state, int level) {
    const core::LevelParams params = core::LevelParams::for_level(level);
    auto mf = std::make_unique<core::HcMatchFinder>();
    match_finder(state, [&](const u8* begin, const u8* end) {
        mf->init(begin);
        u32 hashes[2] = {0, 0}, sum = 0, offset = 0;
        for (const u8* p = begin; p < end; ++p)
            sum += mf->longest_match(p, core::kMinMatchLen - 1, core::kMaxMatchLen, params.nice_match_length,
                                     params.max_search_depth, hashes, offset);
        return sum;
    });
}
void mf_hash_chains_L6(benchmark::State& s) { hash_chains(s, 6); }
void mf_hash_chains_L9(benchmark::State& s) { hash_chains(s, 9); }
BENCHMARK(mf_hash_chains_L6)->Unit(benchmark::kMillisecond);
BENCHMARK(mf_hash_chains_L9)->Unit(benchmark::kMillisecond);

// Insertion alone, as the resolver's repairs bring their finder up to a repair's position
// (catch_up() over the gap since the last repair, prime() over 32 KiB): every position
// inserted, in runs of range(0) bytes.
void mf_hash_chains_insert(benchmark::State& state) {
    auto mf = std::make_unique<core::HcMatchFinder>();
    const std::size_t run = std::size_t(state.range(0));
    match_finder(state, [&](const u8* begin, const u8* end) {
        mf->init(begin);
        u32 hashes[2] = {0, 0};
        for (const u8* p = begin; p < end; p += run) mf->insert_range(p, std::min(p + run, end), end + 8, hashes);
        return hashes[0] + hashes[1];
    });
}
BENCHMARK(mf_hash_chains_insert)->Arg(43)->Arg(218)->Arg(32768)->Unit(benchmark::kMillisecond);

void mf_binary_trees(benchmark::State& state, int level) {
    const core::LevelParams params = core::LevelParams::for_level(level);
    auto mf = std::make_unique<core::BtMatchFinder>();
    std::vector<core::LzMatch> matches(core::kMaxMatchLen + 1);
    match_finder(state, [&](const u8* begin, const u8* end) {
        mf->init(begin);
        u32 hashes[2] = {0, 0}, sum = 0;
        for (const u8* p = begin; p < end; ++p) {
            mf->slide_if_needed(p);
            sum += u32(mf->get_matches(p, core::kMaxMatchLen, params.nice_match_length, params.max_search_depth,
                                       hashes, matches.data()) -
                       matches.data());
        }
        return sum;
    });
}
BENCHMARK_CAPTURE(mf_binary_trees, L10, 10)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(mf_binary_trees, L12, 12)->Unit(benchmark::kMillisecond);

// The optimiser's inner loop (levels 10-12): one min-cost path over a 128 KiB block of
// the input, its match cache made as the parser makes it (a search at every position,
// the positions inside a match of nice length or more skipped), costs in libdeflate's
// ranges (1/16 bit: literals 5-12 bits, lengths and offsets by slot).  bytes/s = block
// positions/s for one pass.
// The arrays one pass of the path writes for a block (min_cost_path.hpp: past the block's
// end, cost_to_end holds a cost no path takes).
struct PathArrays {
    std::vector<u32> cost, items;
    explicit PathArrays(u32 block_length)
        : cost(block_length + core::kMaxMatchLen + core::PathNodes::kPad + 1, 0), items(block_length) {
        for (u32 i = block_length + 1; i < block_length + core::kMaxMatchLen; ++i) cost[i] = 0x80000000;
    }
    core::PathNodes nodes() { return core::PathNodes{cost.data(), items.data()}; }
};

struct PathCase {
    std::vector<core::LzMatch> cache;
    core::NearOptimalCosts costs{};
    std::vector<u8> offset_slot = std::vector<u8>(core::kWindowSize + 1);
    u32 block_length = 0;
};

const PathCase& path_case(int level) {
    static std::map<int, PathCase> cases;
    PathCase& c = cases[level];
    if (c.block_length) return c;
    const core::LevelParams params = core::LevelParams::for_level(level);
    const std::vector<u8>& in = input();
    const u8* const begin = in.data();
    c.block_length = u32(std::min<std::size_t>(in.size() - core::kMaxMatchLen - 8, 128u << 10));
    auto mf = std::make_unique<core::BtMatchFinder>();
    mf->init(begin);
    u32 hashes[2] = {0, 0};
    std::vector<core::LzMatch> found(core::kMaxMatchLen + 1);
    u32 skip = 0;
    for (const u8* p = begin; p < begin + c.block_length; ++p) {
        core::u16 n = 0;
        if (skip) {
            --skip;
            mf->skip_at(p, core::kMaxMatchLen, params.nice_match_length, params.max_search_depth, hashes);
        } else {
            const core::LzMatch* end = mf->matches_at(p, core::kMaxMatchLen, params.nice_match_length,
                                                      params.max_search_depth, hashes, found.data());
            n = core::u16(end - found.data());
            c.cache.insert(c.cache.end(), found.data(), found.data() + n);
            if (n && end[-1].length >= params.nice_match_length) skip = end[-1].length - 1u;
        }
        c.cache.push_back({n, core::u16(*p)});
    }
    std::mt19937 rng(12);
    for (u32& x : c.costs.literal) x = 16 * (5 + rng() % 8);
    for (u32 len = core::kMinMatchLen; len <= core::kMaxMatchLen; ++len)
        c.costs.length[len] = 16 * (4 + core::kLengthSlot[len] / 3 + core::kExtraLengthBits[core::kLengthSlot[len]]);
    for (u32 s = 0; s < core::kNumOffsetSyms; ++s)
        c.costs.offset_slot[s] = 16 * (4 + s / 4 + core::kExtraOffsetBits[s % core::kNumOffsetSlots]);
    for (u32 off = 1; off <= core::kWindowSize; ++off) c.offset_slot[off] = u8(core::offset_slot(off));
    // Then the costs of a later pass, as the optimiser has them: two passes, each from the
    // code the path before it chose (random costs alone make the literal-or-match choice
    // far more predictable than real blocks do).
    PathArrays path(c.block_length);
    for (int pass = 0; pass < 2; ++pass) {
        core::min_cost_path_scalar(c.block_length, c.cache.data() + c.cache.size(), c.costs, c.offset_slot.data(),
                                   path.nodes());
        core::SymbolFreqs freqs{};
        core::tally_path(path.items.data(), c.block_length, c.offset_slot.data(), freqs);
        core::HuffmanCodes codes;
        core::BlockCoder::make_codes(freqs, codes);
        core::costs_from_codes(codes, c.costs);
    }
    return c;
}

using PathFn = void (*)(u32, const core::LzMatch*, const core::NearOptimalCosts&, const u8*, core::PathNodes);

void min_cost_path(benchmark::State& state, PathFn path, int level) {
    const PathCase& c = path_case(level);
    PathArrays arrays(c.block_length);
    for (auto _ : state) {
        path(c.block_length, c.cache.data() + c.cache.size(), c.costs, c.offset_slot.data(), arrays.nodes());
        benchmark::DoNotOptimize(arrays.cost[0]);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * c.block_length);
}
BENCHMARK_CAPTURE(min_cost_path, scalar_L10, core::min_cost_path_scalar, 10);
BENCHMARK_CAPTURE(min_cost_path, avx2_L10, core::min_cost_path_avx2, 10);
BENCHMARK_CAPTURE(min_cost_path, avx512_L10, core::min_cost_path_avx512, 10);
BENCHMARK_CAPTURE(min_cost_path, scalar_L12, core::min_cost_path_scalar, 12);
BENCHMARK_CAPTURE(min_cost_path, avx2_L12, core::min_cost_path_avx2, 12);
BENCHMARK_CAPTURE(min_cost_path, avx512_L12, core::min_cost_path_avx512, 12);

template <class Parser>
void parse(benchmark::State& state, int level) {
    const auto& in = input();
    const core::LevelParams params = core::LevelParams::for_level(level);
    auto parser = std::make_unique<Parser>(params);
    std::size_t blocks = 0;
    for (auto _ : state) {
        parser->parse(in.data(), in.data() + in.size(), [&](const core::ParsedBlock&) { ++blocks; });
        benchmark::DoNotOptimize(blocks);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(in.size()));
}
void parse_fastest_L1(benchmark::State& s) { parse<core::FastestParser>(s, 1); }
void parse_greedy_L3(benchmark::State& s) { parse<core::LazyParser<core::LazyMode::greedy>>(s, 3); }
void parse_lazy_L6(benchmark::State& s) { parse<core::LazyParser<core::LazyMode::lazy>>(s, 6); }
void parse_lazy2_L9(benchmark::State& s) { parse<core::LazyParser<core::LazyMode::lazy2>>(s, 9); }
BENCHMARK(parse_fastest_L1)->Unit(benchmark::kMillisecond);
BENCHMARK(parse_greedy_L3)->Unit(benchmark::kMillisecond);
BENCHMARK(parse_lazy_L6)->Unit(benchmark::kMillisecond);
BENCHMARK(parse_lazy2_L9)->Unit(benchmark::kMillisecond);

// The parallel search of one 8 MiB chunk, history track only, with and without step
// masks (TrackPlan::step_masks: what each step records so that the resolver can take it
// under another min match length), and with branches for min_len 4 and 5 (what
// --tracks all searches: TrackPlan::branch_min_lens).
void search_chunk(benchmark::State& state, int level, bool masks, std::vector<unsigned> branch_min_lens = {}) {
    const auto& in = input();
    parallel::ChunkSearcher searcher(level);
    parallel::ChunkJob job;
    job.in_begin = job.begin = in.data();
    job.end = job.stop = job.data_end = in.data() + in.size();
    job.eof = true;
    parallel::TrackPlan plan;
    plan.step_masks = masks;
    plan.branch_min_lens = branch_min_lens;
    for (auto _ : state) benchmark::DoNotOptimize(searcher.search(job, plan));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(in.size()));
}
void search_chunk_L1(benchmark::State& s) { search_chunk(s, 1, false); }
void search_chunk_L6(benchmark::State& s) { search_chunk(s, 6, false); }
void search_chunk_L6_masks(benchmark::State& s) { search_chunk(s, 6, true); }
void search_chunk_L6_branches(benchmark::State& s) { search_chunk(s, 6, true, {4, 5}); }
BENCHMARK(search_chunk_L1)->Unit(benchmark::kMillisecond);
BENCHMARK(search_chunk_L6)->Unit(benchmark::kMillisecond);
BENCHMARK(search_chunk_L6_masks)->Unit(benchmark::kMillisecond);
BENCHMARK(search_chunk_L6_branches)->Unit(benchmark::kMillisecond);

// A match finder's slide: the level 10-12 finder's tables (hash3, hash4, child links:
// 160 Ki entries), rebased once.
void mf_rebase_tables(benchmark::State& state) {
    std::vector<core::MfPos> tables(160u << 10);
    for (std::size_t i = 0; i < tables.size(); ++i) tables[i] = core::MfPos(i * 7919);
    for (auto _ : state) {
        core::mf_rebase(tables.data(), tables.size());
        benchmark::DoNotOptimize(tables.data());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(tables.size() * sizeof(core::MfPos)));
}
BENCHMARK(mf_rebase_tables);

void huffman_litlen(benchmark::State& state) {
    // Symbol counts of a real 100 KB stretch (literals only: the byte histogram).
    const auto& in = input();
    u32 freqs[core::kNumLitlenSyms] = {};
    for (std::size_t i = 0; i < 100'000 && i < in.size(); ++i) ++freqs[in[i]];
    for (u32 s = 257; s < 286; ++s) freqs[s] = 1 + s % 7;
    freqs[256] = 1;
    u8 lens[core::kNumLitlenSyms];
    u32 codewords[core::kNumLitlenSyms];
    for (auto _ : state) {
        core::make_huffman_code(core::kNumLitlenSyms, core::kMaxLitlenCodewordLen, freqs, lens, codewords);
        benchmark::DoNotOptimize(lens);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * 100'000);
}
BENCHMARK(huffman_litlen);

void append_bits_shifted(benchmark::State& state) {
    std::vector<u8> bits(1u << 20, 0x5a);
    bits.resize(bits.size() + 8);  // append_bits reads 8 bytes of slack
    std::vector<u8> out(3u << 20);
    for (auto _ : state) {
        core::BitWriter w(out.data(), out.data() + out.size());
        w.bitcount = 3;  // an odd bit offset: every byte is shifted
        parallel::append_bits(w, bits.data(), (std::size_t(1) << 23) - 5);
        benchmark::DoNotOptimize(w.next);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) << 20);
}
BENCHMARK(append_bits_shifted);

void crc32(benchmark::State& state) {
    const auto& in = input();
    for (auto _ : state) benchmark::DoNotOptimize(libdeflate_crc32(0, in.data(), in.size()));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(in.size()));
}
BENCHMARK(crc32);

void encode_block(benchmark::State& state) {
    // One real resolved block (the first of the input at level 6) through Code.
    const auto& in = input();
    parallel::ChunkSearcher searcher(6);
    parallel::Resolver resolver(6, Tracks::history, /*workers=*/1);
    parallel::Chunker chunker(in.data(), 1u << 20);
    const parallel::ChunkJob job = *chunker.next_from(in.data() + in.size(), true);
    std::unique_ptr<parallel::ResolvedBlock> first;
    resolver.resolve(searcher.search(job, resolver.plan()), [&](std::unique_ptr<parallel::ResolvedBlock> b) {
        if (!first) first = std::move(b);
    });
    if (!first) {
        state.SkipWithError("no block");
        return;
    }
    parallel::Encoder encoder;
    parallel::CodedBlock coded;
    for (auto _ : state) {
        encoder.encode(*first, coded);
        benchmark::DoNotOptimize(coded.nbits);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(first->data.size()));
}
BENCHMARK(encode_block);

void prepare_blocks(benchmark::State& state, int level) {
    const auto& in = input();
    parallel::ChunkSearcher searcher(level);
    parallel::Resolver resolver(level, Tracks::history, /*workers=*/1);
    parallel::ChunkJob job;
    job.in_begin = job.begin = in.data();
    job.end = job.stop = job.data_end = in.data() + in.size();
    job.eof = true;
    std::vector<std::unique_ptr<parallel::ResolvedBlock>> blocks;
    resolver.resolve(searcher.search(job, resolver.plan()),
                     [&](std::unique_ptr<parallel::ResolvedBlock> b) { blocks.push_back(std::move(b)); });
    parallel::Encoder encoder;
    for (auto _ : state)
        for (const auto& b : blocks) benchmark::DoNotOptimize(encoder.prepare(*b));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(in.size()));
}
BENCHMARK_CAPTURE(prepare_blocks, L1, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(prepare_blocks, L6, 6)->Unit(benchmark::kMillisecond);

void graph_round_trip(benchmark::State& state) {
    const std::vector<u8> zeros(4u << 20, 0);
    Options o;
    o.level = 1;
    o.chunk_size = 4096;
    o.threads = 2;
    for (auto _ : state) benchmark::DoNotOptimize(compress(zeros, o));
    state.SetItemsProcessed(std::int64_t(state.iterations()) * std::int64_t(zeros.size() / 4096));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(zeros.size()));
}
BENCHMARK(graph_round_trip)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
