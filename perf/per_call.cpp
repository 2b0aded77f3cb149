// per_call.cpp - what one library call costs, by input size, against libdeflate 1.23 (the
// reference library, a reused compressor into a reused buffer), and whether calls get
// slower or bigger over a long run.  For issue "library calls a long-running TBB
// application can make a million times".
//
//   call/<way>/L<level>/<size>   one call on the first <size> bytes of the text file:
//       way = compress     flowdeflate::compress(span, Bytes&) with default Options
//             compressor   flowdeflate::Compressor (reused), into a reused buffer
//             libdeflate   the reference's libdeflate_gzip_compress (reused compressor)
//   drift/L<level>/4K        20 batches of 1,000 default compress() calls on 4 KiB, made
//       from tbb::parallel_for inside the application's own task_arena(2); counters:
//       first_ms and last_ms (the first and the last batch), last_over_first, and
//       rss_growth_MiB (resident memory after the last batch against after the first).
//
// Text: FLOWDEFLATE_BENCH_TEXT, else packages.txt of the corpus (scripts/corpus).
// Levels: FLOWDEFLATE_BENCH_LEVELS (default "1 6").
#include <benchmark/benchmark.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_corpus.hpp"
#include "flowdeflate/compress.hpp"
#include "support/process.hpp"
#include "support/reference.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;

const Bytes& text() {
    static const Bytes bytes = [] {
        const char* env = std::getenv("FLOWDEFLATE_BENCH_TEXT");
        const std::filesystem::path p = env ? std::filesystem::path(env) : flowdeflate::bench::corpus_dir() / "packages.txt";
        Bytes b = flowdeflate::bench::slurp(p, 16u << 20);
        if (b.size() < (16u << 20)) {
            std::fprintf(stderr, "per_call: %s is missing or short (run scripts/corpus)\n", p.c_str());
            std::exit(2);
        }
        return b;
    }();
    return bytes;
}

std::span<const std::uint8_t> slice(std::size_t size) { return std::span(text()).first(size); }

void bm_compress(benchmark::State& state, int level, std::size_t size) {
    const auto in = slice(size);
    flowdeflate::Options o;
    o.level = level;
    Bytes out;
    for (auto _ : state) {
        out.clear();
        flowdeflate::compress(in, out, o);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(size));
}

void bm_compressor(benchmark::State& state, int level, std::size_t size) {
    const auto in = slice(size);
    flowdeflate::Compressor c(level);
    Bytes out(flowdeflate::Compressor::bound(size, flowdeflate::Format::gzip));
    for (auto _ : state) benchmark::DoNotOptimize(c.compress(in, out));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(size));
}

void bm_libdeflate(benchmark::State& state, int level, std::size_t size) {
    const auto in = slice(size);
    auto& ref = flowdeflate::testing::Reference::get();
    Bytes out(ref.compress_bound(size, flowdeflate::Format::gzip));
    for (auto _ : state) benchmark::DoNotOptimize(ref.compress_into(in, level, flowdeflate::Format::gzip, out));
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(size));
}

void bm_drift(benchmark::State& state, int level) {
    constexpr int kBatches = 20, kCalls = 1000;
    const auto in = slice(4096);
    flowdeflate::Options o;
    o.level = level;
    tbb::task_arena app(2);
    double first_ms = 0, last_ms = 0, rss_first = 0, rss_last = 0;
    for (auto _ : state) {
        for (int batch = 0; batch < kBatches; ++batch) {
            const auto t0 = std::chrono::steady_clock::now();
            app.execute([&] {
                tbb::parallel_for(0, kCalls, [&](int) { benchmark::DoNotOptimize(flowdeflate::compress(in, o)); });
            });
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (batch == 0) {
                first_ms = ms;
                rss_first = flowdeflate::testing::resident_mib();
            }
            last_ms = ms;
        }
        rss_last = flowdeflate::testing::resident_mib();
    }
    state.counters["first_ms"] = first_ms;
    state.counters["last_ms"] = last_ms;
    state.counters["last_over_first"] = last_ms / first_ms;
    state.counters["rss_growth_MiB"] = rss_last - rss_first;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<int> levels = flowdeflate::bench::bench_levels({1, 6});
    const std::vector<std::pair<const char*, std::size_t>> sizes = {
        {"1K", 1u << 10}, {"4K", 4u << 10}, {"64K", 64u << 10}, {"1M", 1u << 20}, {"16M", 16u << 20}};
    for (int level : levels) {
        for (const auto& [name, size] : sizes) {
            const std::string tail = "/L" + std::to_string(level) + "/" + name;
            benchmark::RegisterBenchmark(("call/compress" + tail).c_str(), bm_compress, level, size)->UseRealTime();
            benchmark::RegisterBenchmark(("call/compressor" + tail).c_str(), bm_compressor, level, size)->UseRealTime();
            benchmark::RegisterBenchmark(("call/libdeflate" + tail).c_str(), bm_libdeflate, level, size)->UseRealTime();
        }
        benchmark::RegisterBenchmark(("drift/L" + std::to_string(level) + "/4K").c_str(), bm_drift, level)
            ->Iterations(1)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
