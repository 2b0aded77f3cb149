// stream_test.cpp - the streaming compressor (input arriving while it is compressed,
// output in segments) writes exactly the whole-buffer output, at every level.
//
// The input stream here is the stingiest one allowed: it reveals only what the compressor
// asked for, never more, until the end.  If any decision of any parser looked further
// ahead than input_stream.hpp says, or peeked at bytes not yet present, the output would
// differ (or ASan would object: bytes not yet revealed are not readable here).
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/deflate_compressor.hpp"
#include "support/core_streams.hpp"
#include "support/test_data.hpp"

namespace flowdeflate::core {
namespace {

// Input in an address range where only the revealed prefix is readable (the rest is
// PROT_NONE), released input is made unreadable again.
class StingyInput : public InputStream {
public:
    explicit StingyInput(const std::vector<u8>& data) : size_(data.size()) {
        page_ = std::size_t(sysconf(_SC_PAGESIZE));
        reserved_ = round_up(size_ + 2 * page_);
        void* p = mmap(nullptr, reserved_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
        base_ = static_cast<u8*>(p);
        mprotect(base_, round_up(size_), PROT_READ | PROT_WRITE);
        if (size_) std::memcpy(base_, data.data(), size_);
        mprotect(base_, reserved_, PROT_NONE);
    }
    ~StingyInput() override { munmap(base_, reserved_); }

    const u8* begin() const override { return base_; }
    const u8* ensure(const u8* need) override {
        max_asked_ = std::max(max_asked_, need);
        const std::size_t want = std::size_t(std::max<std::ptrdiff_t>(need - base_, 0));
        const std::size_t upto = std::min(want, size_);
        if (upto > revealed_) {
            // Reveal whole pages (the compressor may read up to 8 bytes past what it asked
            // for only through lz_extend's word loads, which never pass max_len).
            const std::size_t from = round_down(revealed_);
            mprotect(base_ + from, round_up(upto) - from, PROT_READ);
            revealed_ = upto;
        }
        ++calls_;
        return want >= size_ ? base_ + size_ : base_ + upto;
    }
    void release_before(const u8* p) override {
        if (p <= base_) return;
        const std::size_t upto = round_down(std::min<std::size_t>(std::size_t(p - base_), revealed_));
        if (upto > released_) {
            mprotect(base_ + released_, upto - released_, PROT_NONE);
            released_ = upto;
        }
    }
    std::size_t calls() const { return calls_; }

private:
    std::size_t round_up(std::size_t n) const { return (n + page_ - 1) / page_ * page_; }
    std::size_t round_down(std::size_t n) const { return n / page_ * page_; }
    std::size_t size_, page_ = 4096, reserved_ = 0, revealed_ = 0, released_ = 0, calls_ = 0;
    u8* base_ = nullptr;
    const u8* max_asked_ = nullptr;
};

using flowdeflate::testing::CollectSegments;

class Streaming : public ::testing::TestWithParam<int> {};

TEST_P(Streaming, StingyStreamEqualsWholeBuffer) {
    const int level = GetParam();
    DeflateCompressor whole(level), streamed(level);
    std::uint64_t seed = 500 + level;
    const bool slow = level >= 10;
    struct Case {
        testing::Kind kind;
        std::size_t size;
    };
    const std::vector<Case> cases = {
        {testing::Kind::text, 0},
        {testing::Kind::text, 1},
        {testing::Kind::text, 51},
        {testing::Kind::random, 65535},
        {testing::Kind::random, 65536},
        {testing::Kind::switching, slow ? 700000u : 2500000u},
        {testing::Kind::source, slow ? 400000u : 1500000u},
        {testing::Kind::dna, slow ? 300000u : 1048576u},
        {testing::Kind::zeros, 1048576 + 1},
        {testing::Kind::mixed, slow ? 500000u : 2000000u},
    };
    for (const Case& c : cases) {
        const std::vector<u8> data = testing::generate(c.kind, c.size, ++seed);
        SCOPED_TRACE(::testing::Message() << testing::kind_name(c.kind) << " " << c.size << " bytes");
        for (Format f : {Format::gzip, Format::deflate}) {
            std::vector<u8> want(DeflateCompressor::deflate_bound(data.size()) + 18);
            want.resize(f == Format::gzip ? whole.compress(data, want, Format::gzip) : whole.deflate(data, want));
            StingyInput in(data);
            CollectSegments out;
            const std::size_t segment = 64 * 1024;  // small, so boundaries fall everywhere
            const std::uint64_t n = streamed.compress_stream(in, out, f, segment);
            EXPECT_EQ(n, data.size());
            ASSERT_EQ(out.bytes.size(), want.size());
            ASSERT_TRUE(out.bytes == want) << "first difference at "
                                           << (std::mismatch(out.bytes.begin(), out.bytes.end(), want.begin()).first -
                                               out.bytes.begin());
            for (std::size_t i = 0; i + 1 < out.sizes.size(); ++i) ASSERT_GE(out.sizes[i], segment);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllLevels, Streaming, ::testing::Range(0, 13),
                         [](const ::testing::TestParamInfo<int>& i) { return "Level" + std::to_string(i.param); });

}  // namespace
}  // namespace flowdeflate::core
