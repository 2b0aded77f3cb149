// parallel_inflate_test.cpp - parallel decompression (graph/parallel_inflate.hpp) of gzip
// files made by libdeflate (every block type), by zlib as pigz and gzip write them (sync and
// full flushes: empty stored blocks; fixed-code blocks only) and of members one after
// another: the output is the input, at every thread count and region size, with the main
// line using workers' stretches (wait_for_workers makes that independent of the machine's
// load) or not; damage and cuts give the verdict the one-thread decoder gives.
#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "flowdeflate/compress.hpp"
#include "graph/parallel_inflate.hpp"
#include "support/reference.hpp"
#include "support/sanitizers.hpp"
#include "support/test_data.hpp"

namespace flowdeflate {
namespace {

using testing::Kind;

struct Sample {
    std::string name;
    Bytes gz, original;
    bool worker_stretches;  // enough block starts per region that workers' stretches are expected
};

// zlib's gzip output, flushed every @p flush_every input bytes with @p flush (as pigz and
// gzip --rsyncable end their pieces), with @p strategy (Z_FIXED: fixed-code blocks only).
Bytes zlib_gzip(const Bytes& in, int level, int strategy, int flush, std::size_t flush_every) {
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, 31, 8, strategy), Z_OK);
    Bytes out(deflateBound(&z, uLong(in.size())) + in.size() / flush_every * 16 + 64);
    z.next_out = out.data();
    z.avail_out = uInt(out.size());
    for (std::size_t at = 0; at < in.size(); at += flush_every) {
        const std::size_t n = std::min(flush_every, in.size() - at);
        z.next_in = const_cast<Bytef*>(in.data() + at);
        z.avail_in = uInt(n);
        const bool last = at + n == in.size();
        EXPECT_EQ(::deflate(&z, last ? Z_FINISH : flush), last ? Z_STREAM_END : Z_OK);
    }
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

const std::vector<Sample>& samples() {
    static const std::vector<Sample> all = [] {
        std::vector<Sample> v;
        // A third of the size under sanitizers (ThreadSanitizer ran these tests for 150 s):
        // 4 KiB regions still give hundreds of them, so every check below still applies.
        constexpr std::size_t kShrink = FLOWDEFLATE_SANITIZED ? 3 : 1;
        const Bytes text = testing::generate(Kind::text, 3'000'000 / kShrink, 21);
        const Bytes mixed = testing::generate(Kind::mixed, 2'000'000 / kShrink, 22);
        const Bytes random = testing::generate(Kind::random, 700'000 / kShrink, 23);
        auto& ref = testing::Reference::get();
        v.push_back({"libdeflate -6 text", ref.compress(text, 6, Format::gzip), text, true});
        v.push_back({"libdeflate -1 mixed", ref.compress(mixed, 1, Format::gzip), mixed, true});
        v.push_back({"libdeflate -12 mixed", ref.compress(mixed, 12, Format::gzip), mixed, true});
        // Stored blocks of 64 KiB: about one block start per region, often none a worker can
        // start from and end after (so no stretch is expected).
        v.push_back({"libdeflate -0 random (stored)", ref.compress(random, 0, Format::gzip), random, false});
        v.push_back({"zlib sync flushes (pigz)", zlib_gzip(text, 6, Z_DEFAULT_STRATEGY, Z_SYNC_FLUSH, 128 << 10), text, true});
        v.push_back({"zlib full flushes (pigz -i)", zlib_gzip(mixed, 9, Z_DEFAULT_STRATEGY, Z_FULL_FLUSH, 96 << 10), mixed, true});
        v.push_back({"zlib fixed blocks only", zlib_gzip(mixed, 6, Z_FIXED, Z_NO_FLUSH, 1 << 20), mixed, false});
        // Members one after another, some small enough to sit inside one region.
        Sample members{"members", {}, {}, true};
        for (int i = 0; i < 6; ++i) {
            const Bytes part = testing::generate(i % 2 ? Kind::source : Kind::text, 50'000 + 400'000 * (i % 3), 30 + i);
            const Bytes gz = ref.compress(part, 1 + 2 * i, Format::gzip);
            members.gz.insert(members.gz.end(), gz.begin(), gz.end());
            members.original.insert(members.original.end(), part.begin(), part.end());
        }
        v.push_back(std::move(members));
        return v;
    }();
    return all;
}

// Aborts the process, saying what it was doing, when a run takes more than a minute: a
// hang then fails with its input named instead of at ctest's timeout.
class Deadline {
public:
    explicit Deadline(std::string what) : what_(std::move(what)), thread_([this] { watch(); }) {}
    ~Deadline() {
        {
            std::lock_guard lock(mutex_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

private:
    void watch() {
        std::unique_lock lock(mutex_);
        if (!cv_.wait_for(lock, std::chrono::seconds(60), [&] { return done_; })) {
            std::fprintf(stderr, "parallel decompression hangs: %s\n", what_.c_str());
            std::abort();
        }
    }
    std::string what_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

Bytes run(const Bytes& gz, const graph::ParallelInflateOptions& o, graph::ParallelInflateStats* stats = nullptr,
          const std::string& what = "") {
    const Deadline deadline(what.empty() ? std::to_string(gz.size()) + " bytes" : what);
    Bytes out;
    const Result r = graph::parallel_gunzip(gz, iterator_sink(std::back_inserter(out)), o, stats);
    EXPECT_EQ(r.out_bytes, out.size());
    EXPECT_EQ(r.in_bytes, gz.size());
    return out;
}

TEST(ParallelInflate, EveryThreadCountAndRegionSizeGivesTheInput) {
    std::uint64_t stops = 0, failed = 0, takeovers = 0;
    for (const Sample& s : samples()) {
        std::uint64_t used_waiting = 0;  // stretches used while the main line waited for workers
        std::string unused;              // the waiting runs that used none
        for (const int threads : {2, 3, 5})
            for (const std::size_t region : {std::size_t(4) << 10, std::size_t(64) << 10, std::size_t(1) << 20})
                for (const bool wait : {true, false}) {
                    graph::ParallelInflateOptions o;
                    o.threads = threads;
                    o.region_bytes = region;
                    o.wait_for_workers = wait;
                    graph::ParallelInflateStats stats;
                    const std::string what = s.name + ", " + std::to_string(threads) + " threads, regions of " +
                                             std::to_string(region) + (wait ? ", waiting for workers" : "");
                    const Bytes out = run(s.gz, o, &stats, what);
                    EXPECT_TRUE(out == s.original) << what;
                    if (wait && stats.regions > 8) {
                        used_waiting += stats.used;
                        if (stats.used == 0) unused += "\n  " + what;
                    }
                    stops += stats.used + stats.failed_stops;
                    failed += stats.failed_stops;
                    takeovers += stats.takeovers;  // not waiting: stretches ended early
                }
        // Waiting, workers' stretches are written.  (Not every run need use one: a stop
        // fails where a false block start decoded a whole small region, and one run under
        // ASan and a loaded machine once used none; all of them using none is a bug.)
        if (s.worker_stretches) {
            EXPECT_GT(used_waiting, 0u) << s.name << ": no run used a worker's stretch";
            if (!unused.empty()) std::printf("%s: runs that used no stretch:%s\n", s.name.c_str(), unused.c_str());
        }
    }
    EXPECT_LT(failed * 20, stops) << failed << " of " << stops << " stops at workers' stretches failed";
    std::printf("stretches ended early by the main line (takeovers): %llu\n", static_cast<unsigned long long>(takeovers));
}

// The parallel decoder judges damaged files as the one-thread decoder does.
TEST(ParallelInflate, DamageAndCutsGiveTheOneThreadVerdict) {
    const Sample& s = samples().front();
    graph::ParallelInflateOptions o;
    o.region_bytes = 16 << 10;
    o.wait_for_workers = true;
    const auto verdict = [&](const Bytes& gz, const std::string& what) {
        bool one_ok = true, par_ok = true;
        Bytes one, par;
        try {
            one = decompress(gz);
        } catch (const Error&) {
            one_ok = false;
        }
        try {
            par = run(gz, o, nullptr, what);
        } catch (const Error&) {
            par_ok = false;
        }
        EXPECT_EQ(one_ok, par_ok) << what;
        if (one_ok && par_ok) {
            EXPECT_TRUE(one == par) << what;
        }
    };
    for (std::size_t i = 0; i < 40; ++i) {
        Bytes damaged = s.gz;
        const std::size_t at = 10 + (damaged.size() - 20) * i / 40;
        damaged[at] ^= std::uint8_t(1u << (i % 8));
        verdict(damaged, "bit flipped at byte " + std::to_string(at));
    }
    for (const std::size_t cut : {std::size_t(5), std::size_t(20), s.gz.size() / 3, s.gz.size() - 9, s.gz.size() - 1})
        verdict(Bytes(s.gz.begin(), s.gz.begin() + std::ptrdiff_t(cut)), "cut at " + std::to_string(cut));
    Bytes trailing = s.gz;
    trailing.push_back(0);
    verdict(trailing, "a byte after the member");
    verdict({}, "empty");
}

// Through the public call: a gzip file on several threads.
TEST(ParallelInflate, DecompressFdOfAFileUsesThreads) {
    const Sample& s = samples().back();
    const std::filesystem::path path = std::filesystem::temp_directory_path() / ("flowdeflate-pi-" + std::to_string(::getpid()));
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(s.gz.data()), std::streamsize(s.gz.size()));
    for (const int threads : {1, 2, 4}) {
        FILE* f = std::fopen(path.c_str(), "rb");
        ASSERT_NE(f, nullptr);
        Bytes out;
        const Result r = decompress_fd(fileno(f), path.string(), iterator_sink(std::back_inserter(out)), Format::gzip, threads);
        std::fclose(f);
        EXPECT_TRUE(out == s.original) << threads << " threads";
        EXPECT_EQ(r.out_bytes, s.original.size());
    }
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace flowdeflate
