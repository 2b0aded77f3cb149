// tests/core/differential_test.cpp - flowdeflate vs. the reference libdeflate, byte for byte.
//
// Every test compresses the same input with flowdeflate::Compressor and with the reference
// libdeflate (>= 1.19, loaded in-process by support/reference.hpp) at the same level and
// format, requires identical bytes, and round-trips our output through the reference
// decompressor.  On a mismatch the failure names the input, level, format, both sizes and
// the first differing byte (see support/compare.hpp) instead of dumping vectors.
//
// Suites (test names read "AllLevels/GzipDifferential.Text2MiB/Level6"):
//   GzipDifferential/*      fixed inputs (sizes around block and buffer boundaries, zeros,
//                           runs, random, text, source, few-symbol alphabets, DNA, binary
//                           records, switching and mixed data) at every level 0..12, gzip.
//   OtherFormats/*          zlib and raw DEFLATE on a few inputs at every level.
//   LimitedOutput/*         the span overload with output buffers that are too small,
//                           exactly large enough, etc.: return value and bytes must match.
//   BoundMatchesReference   Compressor::bound() == libdeflate's *_compress_bound().
//   RandomDifferential      40 random cases (size 0..200 KiB, random generators, level and
//                           format).  Seed printed; override with FLOWDEFLATE_TEST_SEED=<n>
//                           (or "random" for a fresh one).
//   RealFiles/*             up to 25 real files from /usr/share and /usr/lib; skipped when
//                           none are found.  Levels 0..9 read up to 4 MiB per file, 10..12
//                           (about 10x slower) up to 1 MiB, each level within a byte budget.
//
// Runtime budget: the whole file is meant to take well under 3 minutes on 2 cores in an
// optimised build (the core being about as fast as libdeflate); the slow levels 10..12
// dominate.  Under ctest every test runs in its own process, so run ctest -j.
#include <flowdeflate/flowdeflate.hpp>

#include "support/compare.hpp"
#include "support/reference.hpp"
#include "support/test_data.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fdt = flowdeflate::testing;
using flowdeflate::Compressor;
using flowdeflate::Format;
using fdt::Bytes;

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * 1024;

// ---- reporting ---------------------------------------------------------------------------

class ReferenceEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        try {
            auto& ref = fdt::Reference::get();
            std::cout << "[ reference] libdeflate " << ref.version() << " (" << ref.path()
                      << ", " << ref.load_mode() << ")" << std::endl;
            ::testing::Test::RecordProperty("reference_version", ref.version());
        } catch (const std::exception& e) {
            // Each test will fail with the same message; say it once up front too.
            std::cout << "[ reference] NOT AVAILABLE: " << e.what() << std::endl;
        }
    }
};
[[maybe_unused]] ::testing::Environment* const kReferenceEnvironment =
    ::testing::AddGlobalTestEnvironment(new ReferenceEnvironment);

std::string level_name(const ::testing::TestParamInfo<int>& info) {
    return "Level" + std::to_string(info.param);
}

// ---- the check -----------------------------------------------------------------------------

// Compresses @p input with @p ours and with the reference at ours.level() in @p format,
// requires identical bytes and that the reference decompresses ours back to @p input.
// Returns false (after recording a failure) on any difference.
bool check_case(Compressor& ours, std::span<const std::uint8_t> input, Format format,
                std::string_view label) {
    const int level = ours.level();
    const std::string where = std::string(label) + ", " + std::to_string(input.size()) +
                              " bytes, level " + std::to_string(level) + ", " +
                              fdt::format_name(format);
    auto& ref = fdt::Reference::get();
    const Bytes mine = ours.compress(input, format);
    const Bytes theirs = ref.compress(input, level, format);
    bool ok = true;
    if (auto diff = fdt::describe_difference(mine, theirs, format, input.size())) {
        ADD_FAILURE() << "[" << where << "] " << *diff;
        ok = false;
    }
    const auto back = ref.decompress(mine, input.size(), format);
    if (!back) {
        ADD_FAILURE() << "[" << where << "] the reference cannot decompress our "
                      << mine.size() << "-byte output (invalid stream, trailing bytes, or it "
                      << "decodes to more than the input)";
        ok = false;
    } else if (auto diff = fdt::describe_data_difference(*back, input)) {
        ADD_FAILURE() << "[" << where << "] round trip through the reference: " << *diff;
        ok = false;
    }
    return ok;
}

// Fixed inputs, generated once per process.
const Bytes& text_1mib_plus() {
    static const Bytes b = fdt::text_like(MiB + 1, 101);
    return b;
}

// ---- gzip at every level -----------------------------------------------------------------

class GzipDifferential : public ::testing::TestWithParam<int> {
protected:
    int level() const { return GetParam(); }
    Compressor ours_{GetParam()};
    bool check(std::span<const std::uint8_t> input, std::string_view label) {
        return check_case(ours_, input, Format::gzip, label);
    }
};

TEST_P(GzipDifferential, Empty) { check({}, "empty"); }

TEST_P(GzipDifferential, OneByte) {
    for (std::uint8_t b : {std::uint8_t{0}, std::uint8_t{'a'}, std::uint8_t{0xFF}}) {
        const Bytes in{b};
        check(in, "one byte");
    }
}

TEST_P(GzipDifferential, TinyInputs) {
    const Bytes& text = text_1mib_plus();
    for (std::size_t n : {2, 3, 4, 5, 8, 16, 31, 32, 100, 257, 258, 259, 300}) {
        check(std::span(text).first(n), "text prefix");
        const Bytes z = fdt::zeros(n);
        check(z, "zeros");
    }
}

// Sizes around libdeflate's internal boundaries: window/hash sizes (32 KiB, 64 KiB),
// soft/hard block limits (~300000 bytes), and buffer sizes around 1 MiB.
TEST_P(GzipDifferential, SizeBoundaries) {
    const Bytes& text = text_1mib_plus();
    for (std::size_t n : {std::size_t{511}, std::size_t{512}, std::size_t{4095},
                          std::size_t{4096}, std::size_t{5000}, std::size_t{65535},
                          std::size_t{65536}, std::size_t{300000}, std::size_t{305000},
                          MiB - 1, MiB, MiB + 1}) {
        if (!check(std::span(text).first(n), "text prefix")) break;  // one report is enough
    }
    // The same Compressor again on small inputs after large ones (state must be reset).
    check(std::span(text).first(511), "text prefix after larger inputs");
    check({}, "empty after larger inputs");
}

TEST_P(GzipDifferential, Zeros1MiB) {
    static const Bytes in = fdt::zeros(MiB);
    check(in, "zeros");
}

TEST_P(GzipDifferential, Runs1MiB) {
    static const Bytes in = fdt::runs(MiB, 7);
    check(in, "runs");
}

TEST_P(GzipDifferential, Random200KiB) {
    static const Bytes in = fdt::random_bytes(200 * KiB, 3);
    check(in, "random (stored blocks)");
}

TEST_P(GzipDifferential, Text2MiB) {
    static const Bytes in = fdt::text_like(2 * MiB, 11);
    check(in, "text");
}

TEST_P(GzipDifferential, Source1MiB) {
    static const Bytes in = fdt::source_like(MiB, 13);
    check(in, "C-like source");
}

TEST_P(GzipDifferential, FewSymbols300KiB) {
    for (unsigned k = 2; k <= 8; ++k) {
        const Bytes in = fdt::few_symbols(300 * KiB, k, 17 + k);
        check(in, "alphabet of " + std::to_string(k));
    }
}

TEST_P(GzipDifferential, Dna300KiB) {
    static const Bytes in = fdt::dna(300 * KiB, 19);
    check(in, "DNA");
}

TEST_P(GzipDifferential, BinaryRecords512KiB) {
    static const Bytes in = fdt::binary_records(512 * KiB, 23);
    check(in, "binary records");
}

TEST_P(GzipDifferential, Switching1MiB) {
    static const Bytes in = fdt::switching(MiB, 29);
    check(in, "switching random/repetitive");
}

TEST_P(GzipDifferential, Mixed3MiB) {
    static const Bytes in = fdt::mixed(3 * MiB, 31);
    check(in, "mixed multi-block");
}

INSTANTIATE_TEST_SUITE_P(AllLevels, GzipDifferential,
                         ::testing::Range(flowdeflate::kMinLevel, flowdeflate::kMaxLevel + 1),
                         level_name);

// ---- zlib and raw DEFLATE ------------------------------------------------------------------

class OtherFormats : public ::testing::TestWithParam<int> {};

TEST_P(OtherFormats, ZlibAndDeflate) {
    Compressor ours(GetParam());
    static const Bytes text = fdt::text_like(100 * KiB, 41);
    static const Bytes mixed = fdt::mixed(600 * KiB, 43);
    static const Bytes random = fdt::random_bytes(70 * KiB, 47);
    static const Bytes zero = fdt::zeros(300 * KiB);
    static const Bytes one{0x42};
    for (Format f : {Format::zlib, Format::deflate}) {
        check_case(ours, {}, f, "empty");
        check_case(ours, one, f, "one byte");
        check_case(ours, text, f, "text");
        check_case(ours, mixed, f, "mixed");
        check_case(ours, random, f, "random");
        check_case(ours, zero, f, "zeros");
    }
}

INSTANTIATE_TEST_SUITE_P(AllLevels, OtherFormats,
                         ::testing::Range(flowdeflate::kMinLevel, flowdeflate::kMaxLevel + 1),
                         level_name);

// ---- output buffers of limited size ------------------------------------------------------

// libdeflate returns 0 when the output does not fit; with a large enough buffer (even one
// smaller than the bound) it must write the same bytes as always.
class LimitedOutput : public ::testing::TestWithParam<int> {};

TEST_P(LimitedOutput, SpanOverloadMatchesReference) {
    const int level = GetParam();
    Compressor ours(level);
    auto& ref = fdt::Reference::get();
    static const Bytes text = fdt::text_like(100 * KiB, 53);
    static const Bytes random = fdt::random_bytes(20 * KiB, 59);
    static const Bytes zero = fdt::zeros(50 * KiB);
    static const Bytes small = fdt::text_like(40, 61);
    struct Input {
        const char* name;
        std::span<const std::uint8_t> data;
    };
    for (const Input& in : {Input{"text", text}, Input{"random", random}, Input{"zeros", zero},
                            Input{"small text", small}, Input{"empty", {}}}) {
        for (Format f : {Format::gzip, Format::zlib, Format::deflate}) {
            const std::size_t n = ref.compress(in.data, level, f).size();
            const std::size_t bound = ref.compress_bound(in.data.size(), f);
            std::vector<std::size_t> caps = {bound, n + 8, n + 1, n, 0};
            if (n >= 1) caps.push_back(n - 1);
            if (n >= 8) caps.push_back(n - 8);
            caps.push_back(n / 2);
            for (std::size_t cap : caps) {
                Bytes mine(cap + 16, 0xA5), theirs(cap + 16, 0xA5);
                const std::size_t got =
                    ours.compress(in.data, std::span(mine).first(cap), f);
                const std::size_t want =
                    ref.compress_into(in.data, level, f, std::span(theirs).first(cap));
                const std::string where = std::string(in.name) + ", level " +
                                          std::to_string(level) + ", " + fdt::format_name(f) +
                                          ", capacity " + std::to_string(cap) +
                                          " (full size " + std::to_string(n) + ")";
                EXPECT_EQ(got, want) << "[" << where << "] return value differs";
                if (got == want && got != 0) {
                    if (auto diff = fdt::describe_difference(std::span(mine).first(got),
                                                             std::span(theirs).first(want), f,
                                                             in.data.size()))
                        ADD_FAILURE() << "[" << where << "] " << *diff;
                }
                for (std::size_t i = cap; i < mine.size(); ++i) {
                    if (mine[i] != 0xA5) {
                        ADD_FAILURE() << "[" << where << "] wrote past the end of the output "
                                      << "span (byte " << i << ")";
                        break;
                    }
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllLevels, LimitedOutput,
                         ::testing::Range(flowdeflate::kMinLevel, flowdeflate::kMaxLevel + 1),
                         level_name);

// ---- bound -----------------------------------------------------------------------------------

TEST(BoundMatchesReference, AllFormats) {
    auto& ref = fdt::Reference::get();
    for (Format f : {Format::deflate, Format::zlib, Format::gzip}) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{100},
                              std::size_t{9999}, std::size_t{10000}, std::size_t{10001},
                              std::size_t{65535}, std::size_t{65536}, std::size_t{300000},
                              MiB, 1000 * MiB, std::size_t{1} << 40}) {
            EXPECT_EQ(Compressor::bound(n, f), ref.compress_bound(n, f))
                << fdt::format_name(f) << ", " << n << " bytes";
        }
    }
}

// ---- randomised --------------------------------------------------------------------------

std::uint64_t test_seed() {
    constexpr std::uint64_t kDefaultSeed = 0x00F10DEF1A7E5EEDull;
    const char* env = std::getenv("FLOWDEFLATE_TEST_SEED");
    if (env == nullptr || *env == '\0') return kDefaultSeed;
    if (std::string_view(env) == "random") {
        std::random_device rd;
        return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }
    return std::strtoull(env, nullptr, 0);
}

TEST(RandomDifferential, FortyCases) {
    constexpr int kCases = 40;
    constexpr int kMaxFailures = 3;
    int failures = 0;
    const std::uint64_t seed = test_seed();
    std::cout << "[   seed   ] FLOWDEFLATE_TEST_SEED=" << seed << std::endl;
    RecordProperty("seed", std::to_string(seed));
    fdt::Rng rng(seed);
    for (int i = 0; i < kCases; ++i) {
        // A quarter of the cases are small (0..4 KiB), the rest up to 200 KiB.
        const std::size_t size =
            rng.chance(1, 4) ? rng.below(4 * KiB + 1) : rng.below(200 * KiB + 1);
        const int level = static_cast<int>(rng.below(flowdeflate::kMaxLevel + 1));
        const std::uint64_t fr = rng.below(10);
        const Format format = fr < 7 ? Format::gzip : fr < 9 ? Format::zlib : Format::deflate;
        // One to three segments of different generators.
        const int segments = static_cast<int>(rng.range(1, 3));
        Bytes input;
        std::string kinds;
        std::size_t left = size;
        for (int s = 0; s < segments; ++s) {
            const std::size_t len = s + 1 == segments ? left : rng.below(left + 1);
            const fdt::Kind k = fdt::kAllKinds[rng.below(std::size(fdt::kAllKinds))];
            const Bytes part = fdt::generate(k, len, rng.next());
            input.insert(input.end(), part.begin(), part.end());
            left -= len;
            if (s) kinds += '+';
            kinds += fdt::kind_name(k);
            kinds += '(';
            kinds += std::to_string(len);
            kinds += ')';
        }
        Compressor ours(level);
        const std::string label = fmt::format("random case {} of seed {}: {}", i, seed, kinds);
        if (!check_case(ours, input, format, label) && ++failures >= kMaxFailures) {
            ADD_FAILURE() << "stopping after " << kMaxFailures << " failing cases; reproduce "
                          << "with FLOWDEFLATE_TEST_SEED=" << seed;
            return;
        }
    }
    if (failures > 0)
        std::cout << "  reproduce with FLOWDEFLATE_TEST_SEED=" << seed << std::endl;
}

// ---- real files -------------------------------------------------------------------------

const std::vector<std::filesystem::path>& real_file_list() {
    static const std::vector<std::filesystem::path> files = fdt::real_files(25, 4 * MiB);
    return files;
}

class RealFiles : public ::testing::TestWithParam<int> {};

TEST_P(RealFiles, MatchReference) {
    const int level = GetParam();
    const auto& files = real_file_list();
    if (files.empty()) GTEST_SKIP() << "no readable files found under /usr/share or /usr/lib";

    // Each level takes every third file (offset by the level; level 6 takes all of them),
    // reads at most `cap` bytes of each and stops at `budget` bytes in total.  Levels
    // 10..12 are about ten times slower, hence smaller limits.
    const bool slow = level >= 10;
    const std::size_t cap = slow ? MiB : 4 * MiB;
    const std::size_t budget = slow ? 3 * MiB / 2 : level == 6 ? 12 * MiB : 5 * MiB;
    Compressor ours(level);
    std::size_t used = 0, tested = 0;
    for (std::size_t i = 0; i < files.size() && used < budget; ++i) {
        if (level != 6 && i % 3 != static_cast<std::size_t>(level) % 3) continue;
        Bytes data;
        try {
            data = fdt::read_file(files[i], std::min(cap, budget - used));
        } catch (const std::exception& e) {
            std::cout << "  skipping " << files[i] << ": " << e.what() << std::endl;
            continue;
        }
        used += data.size();
        ++tested;
        check_case(ours, data, Format::gzip, files[i].string());
    }
    RecordProperty("files", static_cast<int>(tested));
    RecordProperty("bytes", std::to_string(used));
}

INSTANTIATE_TEST_SUITE_P(AllLevels, RealFiles,
                         ::testing::Range(flowdeflate::kMinLevel, flowdeflate::kMaxLevel + 1),
                         level_name);

}  // namespace
