// core_vs_reference - single-thread, in-memory gzip compression speed of flowdeflate's core
// against the reference libdeflate, in the same process, on the real corpus.
//
//   build/core_vs_reference [--benchmark_filter=REGEX] [other Google Benchmark flags]
//
// Benchmarks (registered per corpus file and level):
//   ref/L<level>/<file>     testing::Reference::get().compress_into(in, level, gzip, out):
//                           libdeflate_gzip_compress() of the reference libdeflate.so.0
//   ours/L<level>/<file>    flowdeflate::Compressor(level).compress(in, out, Format::gzip)
// Both contenders do the same work: a compressor object made once per level (the
// reference's is pooled by testing::Reference), output written into a preallocated,
// pre-faulted buffer of the bound size.  (Timing Reference::compress() instead would charge
// the reference for allocating and zeroing a fresh output vector on every call: 5-10 % at
// levels 1-6.)
// Levels 1, 6, 9 and 12 by default.  Levels 10-12 compress only the first 16 MiB of each
// file (they run at about 5-10 MB/s); their names end in "/first16MiB", their label says so.
//
// What is timed: compression of a buffer already in memory, gzip header and CRC-32
// included; no file I/O.  Wall-clock time (UseRealTime), one thread.  Every timed run's
// output is compared, outside the timing, with testing::Reference::get().compress() for the
// same input and level; any difference aborts the program with a message.
//
// Environment:
//   FLOWDEFLATE_CORPUS            corpus folder (default <source>/build/corpus; see
//                                 scripts/corpus).  Files over 200 MB are skipped.
//   FLOWDEFLATE_BENCH_LEVELS      levels, e.g. "1 6 9 12" (default)
//   FLOWDEFLATE_BENCH_SLOW_CAP_MIB input cap for levels >= 10, MiB (default 16; 0: none)
//   FLOWDEFLATE_BENCH_MIN_TIME    minimum time per benchmark run, seconds (default 0.5)
#include <benchmark/benchmark.h>

#include <flowdeflate/flowdeflate.hpp>

#include "support/reference.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#ifndef FLOWDEFLATE_SOURCE_DIR
#define FLOWDEFLATE_SOURCE_DIR "."
#endif

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;
using flowdeflate::Format;

constexpr std::uintmax_t kMaxFileBytes = 200'000'000;  // "skip files > 200 MB"
constexpr int kSlowLevel = 10;                          // levels >= this are capped

[[noreturn]] void fail(const std::string& msg) {
    std::fprintf(stderr, "core_vs_reference: %s\n", msg.c_str());
    std::fflush(stderr);
    std::abort();
}

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}

// ---- inputs ---------------------------------------------------------------------------

struct Input {
    std::string name;
    fs::path path;
    std::size_t size = 0;
    Bytes data;  // loaded on first use (outside any timing)
    bool loaded = false;

    std::span<const std::uint8_t> bytes() {
        if (!loaded) {
            std::ifstream f(path, std::ios::binary);
            if (!f) fail("cannot open " + path.string());
            data.resize(size);
            f.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(size));
            if (static_cast<std::size_t>(f.gcount()) != size)
                fail("short read on " + path.string());
            loaded = true;
        }
        return data;
    }
};

struct Case {
    Input* input = nullptr;
    int level = 0;
    std::size_t used = 0;  // bytes compressed: the whole file, or the cap at slow levels
    std::string suffix;    // "" or "/first16MiB"
    Bytes expected;        // the reference's output for (input[0, used), level)
    bool have_expected = false;

    std::span<const std::uint8_t> in() { return input->bytes().first(used); }
    std::string id() const {
        std::string s = "L";
        s += std::to_string(level);
        s += '/';
        s += input->name;
        s += suffix;
        return s;
    }

    const Bytes& reference_output() {
        if (!have_expected) {
            expected = flowdeflate::testing::Reference::get().compress(in(), level, Format::gzip);
            have_expected = true;
        }
        return expected;
    }
};

std::vector<std::unique_ptr<Input>> g_inputs;
std::vector<std::unique_ptr<Case>> g_cases;
std::map<int, std::unique_ptr<flowdeflate::Compressor>> g_compressors;
Bytes g_out;  // shared output buffer (both contenders), sized for the largest case
std::size_t g_out_needed = 0;

flowdeflate::Compressor& compressor(int level) {
    auto& c = g_compressors[level];
    if (!c) c = std::make_unique<flowdeflate::Compressor>(level);
    return *c;
}

std::span<std::uint8_t> out_buffer() {
    if (g_out.size() < g_out_needed) {
        g_out.assign(g_out_needed, 0);  // touch every page once, outside the timing
    }
    return g_out;
}

std::string mismatch(const Case& c, const char* who, std::span<const std::uint8_t> got,
                     const Bytes& want) {
    std::size_t i = 0;
    const std::size_t n = std::min(got.size(), want.size());
    while (i < n && got[i] == want[i]) ++i;
    std::ostringstream s;
    s << who << " output differs from the reference at " << c.id() << " ("
      << c.used << " input bytes): got " << got.size() << " bytes, expected " << want.size()
      << "; first difference at byte offset " << i;
    return s.str();
}

std::string label(const Case& c) {
    std::ostringstream s;
    if (c.used < c.input->size)
        s << "first " << c.used << " of " << c.input->size << " bytes";
    else
        s << c.used << " bytes";
    return s.str();
}

// ---- the benchmarks -----------------------------------------------------------------

// Times @p compress on the case's input; every run's output is checked against the
// reference's (outside the timing).
template <class Compress>
void run_checked(benchmark::State& state, Case* c, const char* who, Compress&& compress) {
    const auto in = c->in();
    const Bytes& want = c->reference_output();  // untimed; also makes the pooled compressor
    const auto out = out_buffer();
    std::size_t n = 0;
    for (auto _ : state) {
        n = compress(in, out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
        state.PauseTiming();
        if (n != want.size() || std::memcmp(out.data(), want.data(), n) != 0)
            fail(mismatch(*c, who, out.first(n), want));
        state.ResumeTiming();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(in.size()));
    state.counters["in_bytes"] = static_cast<double>(in.size());
    state.counters["out_bytes"] = static_cast<double>(n);
    state.SetLabel(label(*c));
}

void bm_ours(benchmark::State& state, Case* c) {
    auto& comp = compressor(c->level);
    run_checked(state, c, "flowdeflate",
                [&](std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
                    return comp.compress(in, out, Format::gzip);
                });
}

void bm_ref(benchmark::State& state, Case* c) {
    auto& ref = flowdeflate::testing::Reference::get();
    run_checked(state, c, "reference compress_into() (not deterministic?)",
                [&](std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
                    return ref.compress_into(in, c->level, Format::gzip, out);
                });
}

// ---- set-up ---------------------------------------------------------------------------

std::vector<int> parse_levels(const std::string& text) {
    std::vector<int> levels;
    std::istringstream s(text);
    int l = 0;
    while (s >> l) {
        if (l < flowdeflate::kMinLevel || l > flowdeflate::kMaxLevel)
            fail("FLOWDEFLATE_BENCH_LEVELS: level out of range: " + std::to_string(l));
        levels.push_back(l);
    }
    if (!s.eof() || levels.empty()) fail("FLOWDEFLATE_BENCH_LEVELS: cannot parse '" + text + "'");
    return levels;
}

bool is_corpus_file(const fs::directory_entry& e) {
    std::error_code ec;
    if (!e.is_regular_file(ec)) return false;
    const std::string n = e.path().filename().string();
    if (n.empty() || n[0] == '.') return false;
    if (n.rfind("MANIFEST", 0) == 0 || n.rfind("SOURCES", 0) == 0) return false;
    if (n.size() > 8 && n.compare(n.size() - 8, 8, ".partial") == 0) return false;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

    const fs::path dir = env_or("FLOWDEFLATE_CORPUS", std::string(FLOWDEFLATE_SOURCE_DIR) + "/build/corpus");
    const std::vector<int> levels = parse_levels(env_or("FLOWDEFLATE_BENCH_LEVELS", "1 6 9 12"));
    const std::size_t cap_mib = std::stoul(env_or("FLOWDEFLATE_BENCH_SLOW_CAP_MIB", "16"));
    const double min_time = std::stod(env_or("FLOWDEFLATE_BENCH_MIN_TIME", "0.5"));

    std::error_code ec;
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (is_corpus_file(e)) paths.push_back(e.path());
    }
    if (ec || paths.empty()) {
        std::fprintf(stderr,
                     "core_vs_reference: no corpus files in %s%s%s\n"
                     "  make them with scripts/corpus --small, or set FLOWDEFLATE_CORPUS\n",
                     dir.c_str(), ec ? ": " : "", ec ? ec.message().c_str() : "");
        return 1;
    }
    std::sort(paths.begin(), paths.end());

    std::string ref_version;
    try {
        ref_version = flowdeflate::testing::Reference::get().version();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "core_vs_reference: %s\n", e.what());
        return 1;
    }
    std::fprintf(stderr, "core_vs_reference: reference libdeflate %s; flowdeflate %s; corpus %s\n",
                 ref_version.c_str(), flowdeflate::kVersion, dir.c_str());

    std::ostringstream files_ctx;
    for (const auto& p : paths) {
        const std::uintmax_t size = fs::file_size(p);
        if (size > kMaxFileBytes) {
            std::fprintf(stderr, "core_vs_reference: skipping %s (%ju bytes > 200 MB)\n",
                         p.filename().c_str(), size);
            continue;
        }
        auto input = std::make_unique<Input>();
        input->name = p.filename().string();
        input->path = p;
        input->size = static_cast<std::size_t>(size);
        files_ctx << (files_ctx.tellp() > 0 ? " " : "") << input->name << "=" << size;

        for (const int level : levels) {
            auto c = std::make_unique<Case>();
            c->input = input.get();
            c->level = level;
            c->used = input->size;
            if (level >= kSlowLevel && cap_mib > 0 && input->size > (cap_mib << 20)) {
                c->used = cap_mib << 20;
                c->suffix = "/first" + std::to_string(cap_mib) + "MiB";
            }
            g_out_needed = std::max({g_out_needed, flowdeflate::Compressor::bound(c->used, Format::gzip),
                                     flowdeflate::testing::Reference::get().compress_bound(c->used, Format::gzip)});
            // Registered in the order ref, ours; scripts/bench core shuffles the runs
            // (--benchmark_enable_random_interleaving).
            Case* cp = c.get();
            for (const std::string_view who : {"ref", "ours"}) {
                const std::string name = std::string(who) + "/" + c->id();
                auto* b = who == "ref"
                              ? benchmark::RegisterBenchmark(
                                    name.c_str(), [cp](benchmark::State& s) { bm_ref(s, cp); })
                              : benchmark::RegisterBenchmark(
                                    name.c_str(), [cp](benchmark::State& s) { bm_ours(s, cp); });
                b->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(min_time);
            }
            g_cases.push_back(std::move(c));
        }
        g_inputs.push_back(std::move(input));
    }

    benchmark::AddCustomContext("reference_version", ref_version);
    benchmark::AddCustomContext("flowdeflate_version", flowdeflate::kVersion);
    benchmark::AddCustomContext("corpus_dir", dir.string());
    benchmark::AddCustomContext("corpus_files", files_ctx.str());
    benchmark::AddCustomContext("slow_level_cap_bytes", std::to_string(cap_mib << 20));
#ifdef __VERSION__
    benchmark::AddCustomContext("compiler", __VERSION__);
#endif
#ifdef NDEBUG
    benchmark::AddCustomContext("assertions", "off (NDEBUG)");
#else
    benchmark::AddCustomContext("assertions", "ON (no NDEBUG): not a release build");
#endif
    benchmark::AddCustomContext("timed",
                                "in-memory gzip compression incl. header and CRC-32, no I/O, "
                                "one thread, wall clock");

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
