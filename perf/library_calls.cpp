// library_calls.cpp - the public library's calls against each other, in one process, on
// corpus files: what a stream's fed window costs against a one-shot call on the same
// buffer (the stream drains its graph whenever the window fills), and what random access
// costs read by read.
//
//   lib_buffer/L/file   flowdeflate::compress(span) into a vector
//   lib_stream/L/file   StreamCompressor, 1 MiB writes, output to a vector
//   lib_read_seq/L/file IndexedReader over the file compressed at L with its index (a
//                       point every 4 MiB), read whole in 64 KiB reads one after another
//   lib_read_rand/L/file the same reader, 256 reads of 64 KiB at random offsets (bytes
//                       per second: those read)
//   lib_read_turns/L/file the same reader, the file read whole by three readers taking
//                       turns, each through its third in 64 KiB reads
//
// The compressions run the parallel graph with all cores (levels 1-9).  Corpus:
// FLOWDEFLATE_CORPUS or build/corpus (files up to 200 MB).  Levels: FLOWDEFLATE_BENCH_LEVELS
// (default "1 6").
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_corpus.hpp"
#include "flowdeflate/flowdeflate.hpp"

namespace {

using flowdeflate::bench::slurp;

void bm_buffer(benchmark::State& state, std::filesystem::path path, int level) {
    const std::vector<std::uint8_t> in = slurp(path);
    flowdeflate::Options o;
    o.level = level;
    for (auto _ : state) benchmark::DoNotOptimize(flowdeflate::compress(in, o));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(in.size()));
}

void bm_stream(benchmark::State& state, std::filesystem::path path, int level) {
    const std::vector<std::uint8_t> in = slurp(path);
    flowdeflate::Options o;
    o.level = level;
    for (auto _ : state) {
        std::vector<std::uint8_t> out;
        flowdeflate::StreamCompressor s(o, flowdeflate::iterator_sink(std::back_inserter(out)));
        for (std::size_t pos = 0; pos < in.size(); pos += 1u << 20)
            s.write(std::span(in).subspan(pos, std::min<std::size_t>(1u << 20, in.size() - pos)));
        s.finish();
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(in.size()));
}

// The file compressed at @p level with its index, both in files of their own for as long as
// the benchmark runs.
struct IndexedFile {
    std::filesystem::path gz, gzi;
    std::uint64_t size = 0;
    IndexedFile(const std::filesystem::path& path, int level) {
        const std::vector<std::uint8_t> in = slurp(path);
        size = in.size();
        flowdeflate::Options o;
        o.level = level;
        flowdeflate::Index index;
        o.index = &index;
        const std::vector<std::uint8_t> out = flowdeflate::compress(in, o);
        const std::filesystem::path dir = std::filesystem::temp_directory_path();
        const std::string stem = "flowdeflate-bench-" + std::to_string(::getpid());
        gz = dir / (stem + ".gz");
        gzi = dir / (stem + ".gzi");
        std::ofstream(gz, std::ios::binary).write(reinterpret_cast<const char*>(out.data()), std::streamsize(out.size()));
        flowdeflate::write_index_file(index, flowdeflate::IndexFormat::gztool, gzi);
    }
    ~IndexedFile() {
        std::error_code ignored;
        std::filesystem::remove(gz, ignored);
        std::filesystem::remove(gzi, ignored);
    }
};

constexpr std::size_t kRead = 64 * 1024;

void bm_read_sequential(benchmark::State& state, std::filesystem::path path, int level) {
    const IndexedFile file(path, level);
    const flowdeflate::IndexedReader reader(file.gz, file.gzi);
    std::vector<std::uint8_t> buf(kRead);
    for (auto _ : state)
        for (std::uint64_t at = 0; at < file.size; at += kRead) benchmark::DoNotOptimize(reader.read_at(at, buf));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(file.size));
}

void bm_read_turns(benchmark::State& state, std::filesystem::path path, int level) {
    const IndexedFile file(path, level);
    const flowdeflate::IndexedReader reader(file.gz, file.gzi);
    std::vector<std::uint8_t> buf(kRead);
    for (auto _ : state) {
        std::array<std::uint64_t, 3> at{0, file.size / 3, 2 * (file.size / 3)};
        const std::array<std::uint64_t, 3> end{at[1], at[2], file.size};
        for (bool more = true; more;) {
            more = false;
            for (std::size_t k = 0; k < at.size(); ++k)
                if (at[k] < end[k]) {
                    buf.resize(std::size_t(std::min<std::uint64_t>(kRead, end[k] - at[k])));
                    benchmark::DoNotOptimize(reader.read_at(at[k], buf));
                    at[k] += buf.size();
                    more = true;
                }
        }
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(file.size));
}

void bm_read_random(benchmark::State& state, std::filesystem::path path, int level) {
    const IndexedFile file(path, level);
    const flowdeflate::IndexedReader reader(file.gz, file.gzi);
    std::vector<std::uint8_t> buf(kRead);
    std::mt19937_64 rng(1);
    constexpr int kReads = 256;
    for (auto _ : state)
        for (int i = 0; i < kReads; ++i) benchmark::DoNotOptimize(reader.read_at(rng() % file.size, buf));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * kReads * std::int64_t(kRead));
}

}  // namespace

int main(int argc, char** argv) {
    using namespace flowdeflate::bench;
    const std::vector<int> levels = bench_levels({1, 6});
    const std::vector<std::filesystem::path> files = corpus_files(200u << 20);
    for (const auto& f : files)
        for (int level : levels) {
            const std::string id = bench_id(level, f);
            const std::string buffer_name = std::string("lib_buffer").append(id);
            const std::string stream_name = std::string("lib_stream").append(id);
            benchmark::RegisterBenchmark(buffer_name.c_str(), bm_buffer, f, level)
                ->UseRealTime()->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(stream_name.c_str(), bm_stream, f, level)
                ->UseRealTime()->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(std::string("lib_read_seq").append(id).c_str(), bm_read_sequential, f, level)
                ->UseRealTime()->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(std::string("lib_read_turns").append(id).c_str(), bm_read_turns, f, level)
                ->UseRealTime()->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(std::string("lib_read_rand").append(id).c_str(), bm_read_random, f, level)
                ->UseRealTime()->Unit(benchmark::kMillisecond);
        }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
