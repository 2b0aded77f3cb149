// inflate.cpp - our DEFLATE decoder (src/inflate) against libdeflate and ISA-L, and the
// block finder's scanning speed, on the corpus compressed at level 6 by our compressor.
//
//   inflate/plain/L6/<file>       DeflateDecoder::decode_plain from bit 0 (window empty),
//                                 into a reused chunk (as the others reuse their buffer)
//   inflate/marked/L6/<file>      DeflateDecoder::decode_marked from the start of the
//                                 stream's third block, as a worker that found it would;
//                                 counter split_pct: where plain mode took over (percent
//                                 of the output; 100 = never)
//   inflate/resolve/L6/<file>     resolve_markers over that marked chunk's marked part
//                                 (speed in bytes of it; tiny when plain mode took over
//                                 early)
//   inflate/tokens/L6/<file>      DeflateDecoder::decode_tokens from bit 0 (LZ77 tokens, no
//                                 copies), into a reused chunk; counter sequences
//   inflate/replay/L6/<file>      replay_tokens of that chunk into a reused buffer (checked
//                                 against the input)
//   inflate/libdeflate/L6/<file>  libdeflate_deflate_decompress (the system library;
//                                 reused decompressor, reused output buffer)
//   inflate/isal/L6/<file>        isal_inflate_stateless (raw DEFLATE, reused buffer)
//   inflate/speculate/L6/<file>   every 512 KiB region of the stream as a parallel worker
//                                 decodes it (block search, then tokens), one thread
//   gunzip/p<N>/L6/<file>         graph::parallel_gunzip of the same stream as gzip with
//                                 N threads (the -d -pN path, sink discarding); counters:
//                                 the share of the output written from workers' stretches,
//                                 stretches used, failed stops, regions the main line took
//                                 back, its waits for workers (count, ms) and the last gap
//   find/L6/<file>                BlockFinder::find over 4 MiB of the compressed stream
//                                 from its middle, every candidate enumerated; speed in
//                                 compressed bytes scanned; counter candidates
//
// Speeds are of output bytes (bytes_per_second).  Each file is cut to its first
// FLOWDEFLATE_INFLATE_BENCH_MIB MiB (default 32) to keep a run short.  Files: the corpus
// (bench_corpus.hpp: FLOWDEFLATE_CORPUS, else build/corpus); levels: FLOWDEFLATE_BENCH_LEVELS
// (default "6").
#include <benchmark/benchmark.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_corpus.hpp"
#include "flowdeflate/compress.hpp"
#include "graph/parallel_inflate.hpp"
#include "inflate/block_finder.hpp"
#include "inflate/deflate_decoder.hpp"
#include "inflate/markers.hpp"
#include "inflate/speculative_chunk.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;
using namespace flowdeflate::inflate;

struct Stream {
    Bytes original;
    Bytes compressed;
    Bytes gzip;
};

std::size_t input_cap() {
    const char* env = std::getenv("FLOWDEFLATE_INFLATE_BENCH_MIB");
    return std::size_t(env ? std::strtoul(env, nullptr, 10) : 32) << 20;
}

Stream make_stream(const std::filesystem::path& file, int level) {
    Stream s;
    s.original = flowdeflate::bench::slurp(file, input_cap());
    flowdeflate::Options options;
    options.level = level;
    options.format = flowdeflate::Format::deflate;
    s.compressed = flowdeflate::compress(s.original, options);
    options.format = flowdeflate::Format::gzip;
    s.gzip = flowdeflate::compress(s.original, options);
    return s;
}

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "inflate bench: %s\n", what);
        std::exit(1);
    }
}

void bm_plain(benchmark::State& state, const Stream* s) {
    DeflateDecoder decoder;
    DecodeLimits limits;
    limits.expected_output = s->original.size();
    PlainChunk chunk;  // reused, as libdeflate's output buffer is
    for (auto _ : state) {
        decoder.decode_plain(s->compressed, 0, {}, limits, chunk);
        check(chunk.ok() && chunk.bytes().size() == s->original.size(), "plain decode failed");
        benchmark::DoNotOptimize(chunk.bytes().data());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(s->original.size()));
}

void bm_marked(benchmark::State& state, const Stream* s) {
    DeflateDecoder decoder;
    const PlainChunk whole = decoder.decode_plain(s->compressed, 0, {});
    check(whole.boundaries.size() >= 3, "fewer than 3 blocks");
    const BlockBoundary start = whole.boundaries[2];
    DecodeLimits limits;
    limits.expected_output = s->original.size() - start.output_offset;
    double split_pct = 0;
    MarkedChunk chunk;
    for (auto _ : state) {
        decoder.decode_marked(s->compressed, start.bit_offset, limits, chunk);
        check(chunk.ok() && chunk.size() == limits.expected_output, "marked decode failed");
        split_pct = 100.0 * double(chunk.split_offset()) / double(chunk.size());
        benchmark::DoNotOptimize(chunk.plain_bytes().data());
    }
    state.counters["split_pct"] = split_pct;
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(limits.expected_output));
}

void bm_tokens(benchmark::State& state, const Stream* s) {
    DeflateDecoder decoder;
    DecodeLimits limits;
    limits.expected_output = s->original.size();
    TokenChunk chunk;
    for (auto _ : state) {
        decoder.decode_tokens(s->compressed, 0, limits, chunk);
        check(chunk.ok() && chunk.size() == s->original.size(), "token decode failed");
    }
    state.counters["sequences"] = double(chunk.sequences.output_size());
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(s->original.size()));
}

void bm_replay(benchmark::State& state, const Stream* s) {
    DeflateDecoder decoder;
    TokenChunk chunk;
    decoder.decode_tokens(s->compressed, 0, {}, chunk);
    Bytes out(s->original.size() + kReplaySlack);
    for (auto _ : state) {
        check(replay_tokens(chunk, out.data(), 0), "replay failed");
        benchmark::DoNotOptimize(out.data());
    }
    check(std::equal(s->original.begin(), s->original.end(), out.begin()), "replay differs");
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(s->original.size()));
}

void bm_resolve(benchmark::State& state, const Stream* s) {
    DeflateDecoder decoder;
    const PlainChunk whole = decoder.decode_plain(s->compressed, 0, {});
    check(whole.boundaries.size() >= 3, "fewer than 3 blocks");
    const BlockBoundary start = whole.boundaries[2];
    const MarkedChunk chunk = decoder.decode_marked(s->compressed, start.bit_offset);
    const auto window = std::span(s->original).first(start.output_offset).last(kWindowSize);
    Bytes out(chunk.split_offset());
    for (auto _ : state) {
        check(resolve_markers(chunk.marked_symbols(), window, out), "resolve failed");
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(out.size()));
}

void bm_libdeflate(benchmark::State& state, const Stream* s) {
    const std::unique_ptr<libdeflate_decompressor, decltype(&libdeflate_free_decompressor)> d(
        libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
    Bytes out(s->original.size());
    for (auto _ : state) {
        std::size_t n = 0;
        check(libdeflate_deflate_decompress(d.get(), s->compressed.data(), s->compressed.size(), out.data(), out.size(),
                                            &n) == LIBDEFLATE_SUCCESS &&
                  n == out.size(),
              "libdeflate failed");
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(s->original.size()));
}

void bm_isal(benchmark::State& state, const Stream* s) {
    Bytes out(s->original.size());
    auto isal = std::make_unique<::inflate_state>();
    for (auto _ : state) {
        isal_inflate_init(isal.get());
        isal->crc_flag = ISAL_DEFLATE;
        isal->next_in = const_cast<std::uint8_t*>(s->compressed.data());
        isal->avail_in = std::uint32_t(s->compressed.size());
        isal->next_out = out.data();
        isal->avail_out = std::uint32_t(out.size());
        check(isal_inflate_stateless(isal.get()) == ISAL_DECOMP_OK &&
                  isal->total_out == out.size(),
              "ISA-L failed");
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(s->original.size()));
}

void bm_gunzip(benchmark::State& state, const Stream* s, int threads) {
    flowdeflate::graph::ParallelInflateOptions options;
    options.threads = threads;
    options.release_input = false;
    flowdeflate::graph::ParallelInflateStats stats;
    for (auto _ : state) {
        stats = {};
        std::uint64_t seen = 0;
        const auto result = flowdeflate::graph::parallel_gunzip(
            s->gzip, [&](std::span<const std::uint8_t> b) { seen += b.size(); }, options, &stats);
        check(result.out_bytes == s->original.size() && seen == s->original.size(), "parallel gunzip failed");
    }
    state.counters["worker_pct"] = 100.0 * double(stats.worker_output) / double(s->original.size());
    state.counters["used"] = double(stats.used);
    state.counters["speculated"] = double(stats.speculated);
    state.counters["failed_stops"] = double(stats.failed_stops);
    state.counters["cancelled"] = double(stats.cancelled);
    state.counters["takeovers"] = double(stats.takeovers);
    state.counters["waits"] = double(stats.waits);
    state.counters["wait_ms"] = 1e3 * stats.wait_seconds;
    state.counters["gap"] = double(stats.gap);
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(s->original.size()));
}

void bm_speculate(benchmark::State& state, const Stream* s) {
    // Every 512 KiB region of the stream as a worker decodes it (no window ever offered).
    constexpr std::uint64_t kRegionBits = std::uint64_t(512) << 13;
    DeflateDecoder decoder;
    TokenChunk chunk;
    std::size_t output = 0;
    for (auto _ : state) {
        output = 0;
        for (std::uint64_t begin = 0; begin < s->compressed.size() * 8; begin += kRegionBits) {
            DecodeLimits limits;
            limits.max_output = std::size_t(8) << 20;
            const auto start = speculate(decoder, s->compressed, begin,
                                         std::min<std::uint64_t>(begin + kRegionBits, s->compressed.size() * 8),
                                         limits, chunk);
            if (start) output += chunk.size();
        }
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(output));
}

void bm_find(benchmark::State& state, const Stream* s) {
    const std::uint64_t from = s->compressed.size() / 2 * 8;
    const std::uint64_t to = std::min<std::uint64_t>(s->compressed.size() * 8, from + (std::uint64_t(4) << 23));
    std::size_t candidates = 0;
    for (auto _ : state) {
        BlockFinder finder(s->compressed);
        candidates = 0;
        for (std::optional<std::uint64_t> found = finder.find(from, to); found; found = finder.find(*found + 1, to))
            ++candidates;
        benchmark::DoNotOptimize(candidates);
    }
    state.counters["candidates"] = double(candidates);
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t((to - from) / 8));
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    std::vector<std::unique_ptr<Stream>> streams;  // kept alive for the benchmarks
    for (const int level : flowdeflate::bench::bench_levels({6})) {
        for (const auto& file : flowdeflate::bench::corpus_files(std::uintmax_t(1) << 40)) {
            streams.push_back(std::make_unique<Stream>(make_stream(file, level)));
            const Stream* s = streams.back().get();
            const std::string tail = flowdeflate::bench::bench_id(level, file);
            benchmark::RegisterBenchmark(("inflate/plain" + tail).c_str(), bm_plain, s)->UseRealTime();
            benchmark::RegisterBenchmark(("inflate/marked" + tail).c_str(), bm_marked, s)->UseRealTime();
            benchmark::RegisterBenchmark(("inflate/resolve" + tail).c_str(), bm_resolve, s)->UseRealTime();
            benchmark::RegisterBenchmark(("inflate/tokens" + tail).c_str(), bm_tokens, s)->UseRealTime();
            benchmark::RegisterBenchmark(("inflate/replay" + tail).c_str(), bm_replay, s)->UseRealTime();
            benchmark::RegisterBenchmark(("inflate/libdeflate" + tail).c_str(), bm_libdeflate, s)->UseRealTime();
            benchmark::RegisterBenchmark(("inflate/isal" + tail).c_str(), bm_isal, s)->UseRealTime();
            for (const int threads : {2, 3})
                benchmark::RegisterBenchmark(("gunzip/p" + std::to_string(threads) + tail).c_str(), bm_gunzip, s,
                                             threads)
                    ->UseRealTime();
            benchmark::RegisterBenchmark(("inflate/speculate" + tail).c_str(), bm_speculate, s)->UseRealTime();
            benchmark::RegisterBenchmark(("find" + tail).c_str(), bm_find, s)->UseRealTime();
        }
    }
    if (streams.empty()) std::fprintf(stderr, "inflate bench: no corpus files (run scripts/corpus)\n");
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
