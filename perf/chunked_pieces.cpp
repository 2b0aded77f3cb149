// chunked_pieces.cpp - the parallel pieces run one after another on one thread
// (parallel::compress_chunked), against the sequential core on the same file in memory.
//
//   sequential/L/file          : flowdeflate::Compressor::compress()
//   chunked/L/file/chunk/tracks: Search + Resolve + Code + Assemble, chunk by chunk
//
// Counters on the chunked runs (per run): repairs, repair_pct (repaired bytes / input),
// search_pct and resolve_pct (share of the run's time), branched (chunks searched with
// branches), blocks.  The ratio chunked/sequential is the cost of speculation on one
// core; search/resolve shares feed the scaling model (scripts/bench threads).
//
// Corpus: FLOWDEFLATE_CORPUS or build/corpus (files up to 200 MB).  Levels:
// FLOWDEFLATE_BENCH_LEVELS (default "1 6 9"); chunk sizes FLOWDEFLATE_BENCH_CHUNKS
// (default "1048576"); the worker count the automatic plan assumes FLOWDEFLATE_BENCH_WORKERS
// (default 2).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bench_corpus.hpp"
#include "parallel/compress_chunked.hpp"
#include "parallel/searcher.hpp"
#include "flowdeflate/flowdeflate.hpp"

namespace {

namespace core = flowdeflate::core;
namespace parallel = flowdeflate::parallel;

using flowdeflate::bench::slurp;

std::vector<long> numbers_from_env(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    std::istringstream in(v ? v : fallback);
    std::vector<long> out;
    for (long x; in >> x;) out.push_back(x);
    return out;
}

void register_all() {
    const char* env = std::getenv("FLOWDEFLATE_CORPUS");
    const std::filesystem::path corpus = env ? env : FLOWDEFLATE_SOURCE_DIR "/build/corpus";
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(corpus))
        for (const auto& e : std::filesystem::directory_iterator(corpus))
            if (e.is_regular_file() && e.file_size() <= 200u << 20) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
        auto data = std::make_shared<std::vector<std::uint8_t>>(slurp(path));
        const std::string name = path.filename().string();
        for (const long level : numbers_from_env("FLOWDEFLATE_BENCH_LEVELS", "1 6 9")) {
            benchmark::RegisterBenchmark(("sequential/L" + std::to_string(level) + "/" + name).c_str(),
                                         [data, level](benchmark::State& st) {
                                             flowdeflate::Compressor c{int(level)};
                                             for (auto _ : st) benchmark::DoNotOptimize(c.compress(*data));
                                             st.SetBytesProcessed(std::int64_t(st.iterations() * data->size()));
                                         })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
            const int workers = int(numbers_from_env("FLOWDEFLATE_BENCH_WORKERS", "2").at(0));
            for (const long chunk : numbers_from_env("FLOWDEFLATE_BENCH_CHUNKS", "1048576")) {
                for (const auto mode : {flowdeflate::Tracks::automatic, flowdeflate::Tracks::history}) {
                    const std::string label = "chunked/L" + std::to_string(level) + "/" + name + "/" +
                                              std::to_string(chunk) + "/" +
                                              (mode == flowdeflate::Tracks::automatic ? "auto" : "history");
                    benchmark::RegisterBenchmark(label.c_str(), [data, level, chunk, mode, workers](benchmark::State& st) {
                        parallel::ResolverStats stats{};
                        double total_ns = 0;
                        for (auto _ : st) {
                            const auto t0 = std::chrono::steady_clock::now();
                            benchmark::DoNotOptimize(parallel::compress_chunked(
                                *data, int(level), flowdeflate::Format::gzip, {std::size_t(chunk), mode, workers}, &stats));
                            total_ns += double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                   std::chrono::steady_clock::now() - t0)
                                                   .count());
                        }
                        const double runs = double(st.iterations());
                        st.SetBytesProcessed(std::int64_t(st.iterations() * data->size()));
                        st.counters["repairs"] = double(stats.repairs);
                        st.counters["repair_pct"] = 100.0 * double(stats.repair_bytes) / double(data->size());
                        st.counters["branched"] = double(stats.branched_chunks);
                        st.counters["masked"] = double(stats.masked_chunks);
                        st.counters["chunks"] = double(stats.chunks);
                        st.counters["blocks"] = double(stats.blocks);
                        st.counters["resolve_pct"] = 100.0 * double(stats.resolve_ns) / (total_ns / runs);
                        (void)runs;
                    })
                        ->Unit(benchmark::kMillisecond)
                        ->UseRealTime();
                }
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
