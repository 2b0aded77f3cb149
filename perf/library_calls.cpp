// library_calls.cpp - the public library's calls against each other, in one process, on
// corpus files: what a stream's fed window costs against a one-shot call on the same
// buffer (the stream drains its graph whenever the window fills).
//
//   lib_buffer/L/file   flowdeflate::compress(span) into a vector
//   lib_stream/L/file   StreamCompressor, 1 MiB writes, output to a vector
//
// Both run the parallel graph with all cores (levels 1-9).  Corpus: FLOWDEFLATE_CORPUS or
// build/corpus (files up to 200 MB).  Levels: FLOWDEFLATE_BENCH_LEVELS (default "1 6").
#include <benchmark/benchmark.h>

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
        }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
