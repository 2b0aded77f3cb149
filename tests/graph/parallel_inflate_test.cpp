// parallel_inflate_test.cpp - parallel decompression (graph/parallel_inflate.hpp) of gzip
// files made by libdeflate (every block type), by zlib as pigz and gzip write them (sync and
// full flushes: empty stored blocks; fixed-code blocks only) and of members one after
// another: the output is the input, at every thread count and region size, with the main
// line using workers' stretches (wait_for_workers makes that independent of the machine's
// load) or not; damage and cuts give the verdict the one-thread decoder gives.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
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
#include "inflate/deflate_decoder.hpp"
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

using Form = graph::ParallelInflateOptions::Form;

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
        std::uint64_t used_waiting[2] = {};  // stretches used while the main line waited, per form
        std::string unused;              // the waiting runs that used none
        for (const int threads : {2, 3, 5})
            for (const std::size_t region : {std::size_t(4) << 10, std::size_t(64) << 10, std::size_t(1) << 20})
                for (const bool wait : {true, false})
                    for (const Form form : {Form::tokens, Form::markers}) {
                        graph::ParallelInflateOptions o;
                        o.threads = threads;
                        o.region_bytes = region;
                        o.wait_for_workers = wait;
                        o.form = form;
                        graph::ParallelInflateStats stats;
                        const std::string what = s.name + ", " + std::to_string(threads) + " threads, regions of " +
                                                 std::to_string(region) + (wait ? ", waiting for workers" : "") +
                                                 (form == Form::markers ? ", marked stretches" : ", token stretches");
                        const Bytes out = run(s.gz, o, &stats, what);
                        EXPECT_TRUE(out == s.original) << what;
                        EXPECT_EQ(stats.markers, form == Form::markers) << what;
                        if (wait && stats.regions > 8) {
                            used_waiting[form == Form::markers] += stats.used;
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
            EXPECT_GT(used_waiting[0], 0u) << s.name << ": no run used a worker's token stretch";
            EXPECT_GT(used_waiting[1], 0u) << s.name << ": no run used a worker's marked stretch";
            if (!unused.empty()) std::printf("%s: runs that used no stretch:%s\n", s.name.c_str(), unused.c_str());
        }
    }
    EXPECT_LT(failed * 20, stops) << failed << " of " << stops << " stops at workers' stretches failed";
    std::printf("stretches ended early by the main line (takeovers): %llu\n", static_cast<unsigned long long>(takeovers));
}

// The parallel decoder's verdict on @p gz (regions of 16 KiB, waiting for workers, so
// that damage inside a worker's region reaches a worker) is the one-thread decoder's, and
// so are the bytes where both accept it.
void expect_one_thread_verdict(const Bytes& gz, const std::string& what) {
    bool one_ok = true;
    Bytes one;
    try {
        one = decompress(gz);
    } catch (const Error&) {
        one_ok = false;
    }
    for (const Form form : {Form::tokens, Form::markers}) {
        graph::ParallelInflateOptions o;
        o.region_bytes = 16 << 10;
        o.wait_for_workers = true;
        o.form = form;
        bool par_ok = true;
        Bytes par;
        try {
            par = run(gz, o, nullptr, what);
        } catch (const Error&) {
            par_ok = false;
        }
        const std::string how = what + (form == Form::markers ? " (marked stretches)" : " (token stretches)");
        EXPECT_EQ(one_ok, par_ok) << how;
        if (one_ok && par_ok) {
            EXPECT_TRUE(one == par) << how;
        }
    }
}

// The parallel decoder judges damaged files as the one-thread decoder does.
TEST(ParallelInflate, DamageAndCutsGiveTheOneThreadVerdict) {
    const Sample& s = samples().front();
    for (std::size_t i = 0; i < 40; ++i) {
        Bytes damaged = s.gz;
        const std::size_t at = 10 + (damaged.size() - 20) * i / 40;
        damaged[at] ^= std::uint8_t(1u << (i % 8));
        expect_one_thread_verdict(damaged, "bit flipped at byte " + std::to_string(at));
    }
    for (const std::size_t cut : {std::size_t(5), std::size_t(20), s.gz.size() / 3, s.gz.size() - 9, s.gz.size() - 1})
        expect_one_thread_verdict(Bytes(s.gz.begin(), s.gz.begin() + std::ptrdiff_t(cut)), "cut at " + std::to_string(cut));
    Bytes trailing = s.gz;
    trailing.push_back(0);
    expect_one_thread_verdict(trailing, "a byte after the member");
    expect_one_thread_verdict({}, "empty");
}

// Damage aimed at each part of the file rather than spread evenly: the gzip header's
// fields, the header of dynamic blocks in the middle of the stream (BFINAL, BTYPE, HLIT,
// HDIST, HCLEN, the precode, the run-length coded code lengths), a block's data, a stored
// block's LEN/NLEN, and the trailer's CRC-32 and ISIZE.  Blocks in the middle lie in
// workers' regions, so the worker meets the damage first.
TEST(ParallelInflate, DamageInEachPartOfTheFileGivesTheOneThreadVerdict) {
    for (const Sample* s : {&samples().front(), &samples()[3]}) {  // dynamic blocks; stored blocks
        const Bytes& gz = s->gz;
        const auto flipped = [&](std::uint64_t bit, const std::string& part) {
            Bytes damaged = gz;
            damaged[bit / 8] ^= std::uint8_t(1u << (bit % 8));
            expect_one_thread_verdict(damaged, s->name + ": " + part + ", bit " + std::to_string(bit) + " flipped");
        };
        // The gzip header: ID1, ID2, CM, FLG, MTIME, XFL, OS (libdeflate writes 10 bytes).
        for (const std::uint64_t byte : {0, 1, 2, 3, 4, 8, 9}) flipped(byte * 8 + byte % 8, "gzip header");
        // The trailer: CRC-32, then ISIZE.
        flipped((gz.size() - 8) * 8 + 3, "CRC-32");
        flipped((gz.size() - 1) * 8, "ISIZE");

        inflate::DeflateDecoder decoder;
        const std::span<const std::uint8_t> body(gz.data() + 10, gz.size() - 18);
        const inflate::PlainChunk all = decoder.decode_plain(body, 0, {});
        ASSERT_TRUE(all.ok()) << s->name;
        const auto& blocks = all.boundaries;
        // (Under sanitizers the samples are a third of the size: five blocks of text.)
        ASSERT_GE(blocks.size(), 3u) << s->name;
        for (std::size_t i : {blocks.size() / 4, blocks.size() / 2, blocks.size() * 3 / 4}) {
            i = std::clamp<std::size_t>(i, 1, blocks.size() - 2);  // a block with one after it
            const std::uint64_t header = 80 + blocks[i].bit_offset;
            const std::uint64_t next = 80 + blocks[i + 1].bit_offset;
            const std::string at = "block " + std::to_string(i) + " of " + std::to_string(blocks.size());
            flipped(header, at + " BFINAL");
            flipped(header + 1, at + " BTYPE");
            flipped(header + 2, at + " BTYPE");
            if (blocks[i].type == inflate::BlockType::dynamic_huffman) {
                flipped(header + 3 + 2, at + " HLIT");
                flipped(header + 8 + 4, at + " HDIST");
                flipped(header + 13 + 1, at + " HCLEN");
                for (const std::uint64_t k : {0, 3, 7}) flipped(header + 17 + 3 * k + 1, at + " precode");
                for (const std::uint64_t k : {80, 130, 200}) flipped(header + k, at + " code lengths");
            } else if (blocks[i].type == inflate::BlockType::stored) {
                const std::uint64_t len = (header + 3 + 7) / 8 * 8;  // LEN after the padding
                flipped(len + 5, at + " LEN");
                flipped(len + 16 + 9, at + " NLEN");
            }
            flipped((header + next) / 2, at + " data");
            flipped(next - 3, at + " end of data");
        }
    }
}

// What a peer tool writes for the file @p in: `command` reads standard input and writes
// the gzip file to standard output.  Empty when the tool is not installed.
Bytes made_by(const std::string& command, const std::filesystem::path& in, const testing::TempDir& dir) {
    const std::string tool = command.substr(0, command.find(' '));
    if (std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) != 0) return {};
    const auto out = dir.path / "out";
    const std::string line = command + " < '" + in.string() + "' > '" + out.string() + "'";
    EXPECT_EQ(std::system(line.c_str()), 0) << line;
    return testing::read_file(out);
}

// Files written by the tools users have, not by zlib calls that imitate them: pigz (its
// default pieces end in sync flushes; -i: independent pieces; --rsyncable), GNU gzip (also
// --rsyncable), igzip (ISA-L's levels 0-3: its own block shapes) and all of them one after
// another as members of one file.  scripts/setup installs the tools; a missing one fails.
TEST(ParallelInflate, FilesMadeByPeerToolsGiveTheInput) {
    constexpr std::size_t kShrink = FLOWDEFLATE_SANITIZED ? 3 : 1;
    Bytes input = testing::generate(Kind::text, 1'500'000 / kShrink, 41);
    const Bytes mixed = testing::generate(Kind::mixed, 1'000'000 / kShrink, 42);
    input.insert(input.end(), mixed.begin(), mixed.end());
    const testing::TempDir dir("peers");
    const auto in = dir.path / "in";
    std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(input.data()), std::streamsize(input.size()));
    Bytes all_gz, all_original;
    for (const std::string maker : {"pigz -6 -c", "pigz -6 -i -c", "pigz -9 --rsyncable -c", "gzip -6 -c",
                                    "gzip -6 --rsyncable -c", "igzip -0 -c", "igzip -1 -c", "igzip -3 -c"}) {
        const Bytes gz = made_by(maker, in, dir);
        if (gz.empty()) {
            ADD_FAILURE() << maker << ": the tool is not installed (scripts/setup installs pigz, gzip and isal)";
            continue;
        }
        all_gz.insert(all_gz.end(), gz.begin(), gz.end());
        all_original.insert(all_original.end(), input.begin(), input.end());
        for (const int threads : {2, 3})
            for (const std::size_t region : {std::size_t(16) << 10, std::size_t(256) << 10})
                for (const bool wait : {true, false}) {
                    graph::ParallelInflateOptions o;
                    o.threads = threads;
                    o.region_bytes = region;
                    o.wait_for_workers = wait;
                    o.form = threads == 3 ? Form::markers : Form::tokens;
                    const std::string what = maker + ", " + std::to_string(threads) + " threads, regions of " +
                                             std::to_string(region) + (wait ? ", waiting for workers" : "") +
                                             (threads == 3 ? ", marked stretches" : "");
                    EXPECT_TRUE(run(gz, o, nullptr, what) == input) << what;
                }
    }
    for (const int threads : {2, 4}) {  // (4: marked stretches, the form chosen from 4 threads on)
        graph::ParallelInflateOptions o;
        o.threads = threads;
        o.region_bytes = 64 << 10;
        const std::string what = "every maker's file as one member after another, " + std::to_string(threads) + " threads";
        EXPECT_TRUE(run(all_gz, o, nullptr, what) == all_original) << what;
    }
}

// Data of a few hundred lines repeated (logs): a region decodes to more than a worker's
// stretch may hold, so each stretch ends at the first block boundary past that limit and the
// line decodes the rest of the region; stretches are still used, in both forms.
TEST(ParallelInflate, VeryCompressibleRegionsGiveShorterStretches) {
    std::vector<std::string> lines;
    for (int i = 0; i < 200; ++i)
        lines.push_back("2026-12-05 host" + std::to_string(i % 7) + " service" + std::to_string(i * 37 % 101) +
                        " request " + std::to_string(i * 7919 % 10007) + " status=200\n");
    Bytes original;
    std::uint64_t x = 88172645463325252ull;
    while (original.size() < (std::size_t(32) << 20)) {  // (not shrunk under sanitizers: regions must pass 8 MiB)
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const std::string& l = lines[x % lines.size()];
        original.insert(original.end(), l.begin(), l.end());
    }
    const Bytes gz = testing::Reference::get().compress(original, 6, Format::gzip);
    // Regions of 1 MiB: each decodes past a token stretch's 8 MiB; two or more of them.
    ASSERT_GT(original.size() / gz.size(), 10u) << "not compressible enough to pass a stretch's limit";
    ASSERT_GE(gz.size(), std::size_t(2) << 20) << "fewer than two regions: none for a worker";
    for (const Form form : {Form::tokens, Form::markers}) {
        graph::ParallelInflateOptions o;
        o.threads = form == Form::markers ? 4 : 2;
        o.region_bytes = std::size_t(1) << 20;  // (marked: cut to the budget's size)
        o.wait_for_workers = true;
        o.form = form;
        graph::ParallelInflateStats stats;
        const std::string what = form == Form::markers ? "marked stretches" : "token stretches";
        EXPECT_TRUE(run(gz, o, &stats, what) == original) << what;
        EXPECT_GT(stats.used, 0u) << what;
        EXPECT_GT(stats.worker_output, 0u) << what;
    }
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
