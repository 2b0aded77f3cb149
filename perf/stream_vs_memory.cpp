// stream_vs_memory.cpp - the streaming graph against the in-memory core, same process,
// same file: how much do the window, the reader and writer threads and the segments cost?
//
//   ours_memory/L/file : flowdeflate::Compressor::compress() on the file already in memory
//   ours_core_stream/L/file : the core's streaming entry over the buffer in memory
//   ours_stream/L/file : the sequential streaming graph (graph::compress_fd_sequential())
//                        from the file (page cache) to /dev/null
//
// Both include CRC-32 and gzip framing.  Corpus: FLOWDEFLATE_CORPUS or build/corpus
// (files up to 200 MB).  Levels: FLOWDEFLATE_BENCH_LEVELS (default "1 6 9").
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bench_corpus.hpp"
#include "flowdeflate/flowdeflate.hpp"
#include "graph/fd_graphs.hpp"

namespace {

using flowdeflate::bench::slurp;

void bm_memory(benchmark::State& state, std::filesystem::path path, int level) {
    const std::vector<std::uint8_t> in = slurp(path);
    flowdeflate::Compressor c(level);
    std::vector<std::uint8_t> out(flowdeflate::Compressor::bound(in.size(), flowdeflate::Format::gzip));
    for (auto _ : state) benchmark::DoNotOptimize(c.compress(in, out, flowdeflate::Format::gzip));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(in.size()));
}

// The core's streaming entry (segments, block-by-block input checks) on the buffer in
// memory: no window, no threads.  Separates the cost of streaming the core from the
// cost of the window and the I/O threads.
void bm_core_stream(benchmark::State& state, std::filesystem::path path, int level) {
    const std::vector<std::uint8_t> in = slurp(path);
    flowdeflate::Options options;
    options.level = level;
    options.sequential = true;
    const flowdeflate::Sink discard = [](std::span<const std::uint8_t>) {};
    for (auto _ : state) benchmark::DoNotOptimize(flowdeflate::compress(in, discard, options));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(in.size()));
}

void bm_stream(benchmark::State& state, std::filesystem::path path, int level) {
    const auto size = std::filesystem::file_size(path);
    flowdeflate::graph::GraphOptions options;
    options.level = level;
    options.sequential = true;  // one compressor, as the in-memory core: the cost of streaming alone
    const int null_fd = ::open("/dev/null", O_WRONLY);
    for (auto _ : state) {
        const int fd = ::open(path.c_str(), O_RDONLY);
        benchmark::DoNotOptimize(flowdeflate::graph::compress_fd(fd, path.string(), null_fd, "/dev/null", options));
        ::close(fd);
    }
    ::close(null_fd);
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(size));
}

}  // namespace

int main(int argc, char** argv) {
    using namespace flowdeflate::bench;
    const std::vector<int> levels = bench_levels({1, 6, 9});
    const std::vector<std::filesystem::path> files = corpus_files(200u << 20);
    for (const auto& f : files)
        for (int level : levels) {
            const std::string id = bench_id(level, f);
            const std::string memory_name = std::string("ours_memory").append(id);
            const std::string stream_name = std::string("ours_stream").append(id);
            benchmark::RegisterBenchmark(memory_name.c_str(), bm_memory, f, level)->UseRealTime()->Unit(benchmark::kMillisecond);
            const std::string core_name = std::string("ours_core_stream").append(id);
            benchmark::RegisterBenchmark(core_name.c_str(), bm_core_stream, f, level)->UseRealTime()->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(stream_name.c_str(), bm_stream, f, level)->UseRealTime()->Unit(benchmark::kMillisecond);
        }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
