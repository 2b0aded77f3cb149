// index_test.cpp - seek indexes (flowdeflate/index.hpp): recorded while compressing at
// every level, thread count and chunk size with the reference's bytes unchanged, the same
// points recorded while decompressing the file, both on-disk formats read back, the file
// decoded from the index on several threads and in ranges, and every kind of index that
// does not fit refused with an IndexError.
#include <gtest/gtest.h>
#include <libdeflate.h>
#include <zlib.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "flowdeflate/compress.hpp"
#include "flowdeflate/index.hpp"
#include "graph/indexed_inflate.hpp"
#include "inflate/crc_combine.hpp"
#include "index/index_decoders.hpp"
#include "support/reference.hpp"
#include "support/test_data.hpp"

namespace flowdeflate {
namespace {

namespace fs = std::filesystem;

// A temporary file holding @p bytes, removed with the object.
class TempFile {
public:
    explicit TempFile(const Bytes& bytes) {
        static int n = 0;
        path_ = fs::temp_directory_path() / ("flowdeflate-index-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
        std::FILE* f = std::fopen(path_.c_str(), "wb");
        EXPECT_NE(f, nullptr);
        if (!bytes.empty()) {
            EXPECT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
        }
        std::fclose(f);
    }
    ~TempFile() { fs::remove(path_); }
    [[nodiscard]] const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

Bytes decompress_with(const Bytes& gz, DecompressOptions d) {
    TempFile file(gz);
    const int fd = ::open(file.path().c_str(), O_RDONLY);
    Bytes out;
    try {
        decompress_fd(fd, "test.gz", iterator_sink(std::back_inserter(out)), d);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    return out;
}

Index recorded_by_decompressing(const Bytes& gz, std::uint64_t span) {
    Index index;
    DecompressOptions d;
    d.export_index = &index;
    d.index_span = span;
    decompress_with(gz, d);
    return index;
}

Bytes decoded_with(const Bytes& gz, const Index& index, int threads) {
    DecompressOptions d;
    d.import_index = &index;
    d.threads = threads;
    return decompress_with(gz, d);
}

void expect_same_points(const Index& a, const Index& b) {
    ASSERT_EQ(a.points.size(), b.points.size());
    for (std::size_t i = 0; i < a.points.size(); ++i) {
        EXPECT_EQ(a.points[i].compressed_bit, b.points[i].compressed_bit) << "point " << i;
        EXPECT_EQ(a.points[i].uncompressed, b.points[i].uncompressed) << "point " << i;
        EXPECT_TRUE(a.points[i].window == b.points[i].window) << "window of point " << i;
    }
    EXPECT_EQ(a.compressed_size, b.compressed_size);
    EXPECT_EQ(a.uncompressed_size, b.uncompressed_size);
}

// Each point's window is the data before it, and every point after the first is
// `span` or more after the one before.
void expect_points_fit(const Index& index, const Bytes& data, std::uint64_t span) {
    ASSERT_FALSE(index.points.empty());
    EXPECT_EQ(index.points[0].uncompressed, 0u);
    for (std::size_t i = 0; i < index.points.size(); ++i) {
        const SeekPoint& p = index.points[i];
        const std::size_t n = std::size_t(std::min<std::uint64_t>(kWindowSize, p.uncompressed));
        ASSERT_EQ(p.window.size(), n) << "point " << i;
        EXPECT_TRUE(std::equal(p.window.begin(), p.window.end(), data.begin() + std::ptrdiff_t(p.uncompressed - n)))
            << "point " << i;
        if (i > 0) {
            EXPECT_GE(p.uncompressed, index.points[i - 1].uncompressed + span) << "point " << i;
        }
    }
}

// @p data compressed (level 6, @p threads threads; 0: all) with its seek points every @p span
// bytes recorded into @p index.
Bytes compressed_with_index(const Bytes& data, Index& index, std::uint64_t span, int threads = 0) {
    Options o;
    o.threads = threads;
    o.index = &index;
    o.index_span = span;
    return compress(data, o);
}

struct Case {
    int level;
    int threads;  // 0: sequential
    std::size_t chunk;
};

TEST(Index, RecordingWhileCompressingKeepsTheBytesAndMatchesTheDecompressor) {
    auto& ref = testing::Reference::get();
    const Bytes data = testing::mixed(3 << 20, 7);
    const std::uint64_t span = 256 << 10;
    for (const Case c : {Case{0, 1, 0}, Case{1, 2, 0}, Case{1, 3, 4096}, Case{6, 0, 0}, Case{6, 2, 65536},
                         Case{6, 4, 0}, Case{9, 2, 0}, Case{12, 0, 0}, Case{12, 2, 0}}) {
        SCOPED_TRACE("level " + std::to_string(c.level) + " threads " + std::to_string(c.threads) + " chunk " +
                     std::to_string(c.chunk));
        Index index;
        Options o;
        o.level = c.level;
        o.sequential = c.threads == 0;
        o.threads = std::max(c.threads, 1);
        o.chunk_size = c.chunk;
        o.index = &index;
        o.index_span = span;
        const Bytes gz = compress(data, o);
        ASSERT_TRUE(gz == ref.compress(data, c.level, Format::gzip)) << "the .gz differs from libdeflate's";
        ASSERT_TRUE(index.complete);
        EXPECT_EQ(index.compressed_size, gz.size());
        EXPECT_EQ(index.uncompressed_size, data.size());
        EXPECT_GT(index.points.size(), 3u);
        expect_points_fit(index, data, span);
        expect_same_points(index, recorded_by_decompressing(gz, span));
        for (const int threads : {1, 2, 5}) EXPECT_TRUE(decoded_with(gz, index, threads) == data) << threads << " threads";
    }
}

TEST(Index, StreamingAndFileCallsRecordTheSamePoints) {
    const Bytes data = testing::text_like(2 << 20, 3);
    Index whole, streamed;
    Options o;
    o.threads = 2;
    o.index = &whole;
    o.index_span = 100000;
    const Bytes gz = compress(data, o);
    o.index = &streamed;
    Bytes gz2;
    StreamCompressor s(o, iterator_sink(std::back_inserter(gz2)));
    for (std::size_t at = 0; at < data.size(); at += 77777)
        s.write(std::span(data).subspan(at, std::min<std::size_t>(77777, data.size() - at)));
    s.finish();
    EXPECT_TRUE(gz == gz2);
    expect_same_points(whole, streamed);
}

TEST(Index, MembersStartPointsWithoutWindows) {
    const Bytes a = testing::text_like(700000, 1), b = testing::source_like(900000, 2);
    Options o;
    o.threads = 1;
    Bytes gz = compress(a, o);
    const std::size_t second = gz.size();
    const Bytes gz_b = compress(b, o);
    gz.insert(gz.end(), gz_b.begin(), gz_b.end());
    Bytes data = a;
    data.insert(data.end(), b.begin(), b.end());
    const Index index = recorded_by_decompressing(gz, 200000);
    const auto at_b = std::find_if(index.points.begin(), index.points.end(),
                                   [&](const SeekPoint& p) { return p.uncompressed == a.size(); });
    ASSERT_NE(at_b, index.points.end()) << "no point at the second member's start";
    EXPECT_TRUE(at_b->window.empty());
    EXPECT_EQ(at_b->compressed_bit, 8 * (second + 10));
    for (const SeekPoint& p : index.points)
        if (p.uncompressed > a.size()) {
            EXPECT_LE(p.window.size(), p.uncompressed - a.size());
        }
    for (const int threads : {1, 3}) EXPECT_TRUE(decoded_with(gz, index, threads) == data);
    for (const IndexFormat f : {IndexFormat::gztool, IndexFormat::indexed_gzip})
        EXPECT_TRUE(decoded_with(gz, read_index(write_index(index, f)), 2) == data);
}

// Spans go out in order whoever decodes them: the span in front streams its pieces, those
// decoded ahead keep theirs until their turn.  Many members of every size (empty ones, ones
// inside a piece, ones across pieces and spans), spans larger and smaller than a piece, and
// more threads than cores.
TEST(Index, SpansGoOutInOrderOnAnyNumberOfThreads) {
    std::mt19937_64 rng(17);
    Bytes gz, data;
    Options o;
    o.threads = 1;
    for (int m = 0; m < 48; ++m) {
        const std::size_t n = m % 7 == 0 ? 0 : std::size_t(rng() % (m % 3 == 0 ? 700000 : 30000));
        const Bytes part = m % 2 ? testing::text_like(n, std::uint64_t(m)) : testing::binary_records(n, std::uint64_t(m));
        const Bytes member = compress(part, o);
        gz.insert(gz.end(), member.begin(), member.end());
        data.insert(data.end(), part.begin(), part.end());
    }
    for (const std::uint64_t span : {std::uint64_t(40000), std::uint64_t(300000), std::uint64_t(1) << 20}) {
        const Index index = recorded_by_decompressing(gz, span);
        ASSERT_GT(index.points.size(), 4u) << "span " << span;
        for (const int threads : {1, 2, 3, 8, 16})
            EXPECT_TRUE(decoded_with(gz, index, threads) == data) << "span " << span << ", " << threads << " threads";
    }
    // Every third point only (as other tools' indexes may have them): spans then cross
    // member boundaries, each member checked where it ends inside a span.
    Index thin = recorded_by_decompressing(gz, 40000);
    for (std::size_t i = thin.points.size() - 1; i > 0; --i)
        if (i % 3 != 0) thin.points.erase(thin.points.begin() + std::ptrdiff_t(i));
    for (const int threads : {1, 2, 3, 8}) EXPECT_TRUE(decoded_with(gz, thin, threads) == data) << threads << " threads";
}

// Twelve members of text, 150-370 KB each, and an index of points about 400 KB apart
// (every fourth recorded), so that spans cross members' ends.
struct Members {
    Bytes gz, data;
    std::vector<std::size_t> member_end, data_end;  // where each member ends in gz and in data
    Index index;

    explicit Members(std::uint64_t seed) {
        Options o;
        o.threads = 1;
        for (int m = 0; m < 12; ++m) {
            const Bytes part = testing::text_like(150000 + 20000 * std::size_t(m), seed + std::uint64_t(m));
            const Bytes member = compress(part, o);
            gz.insert(gz.end(), member.begin(), member.end());
            data.insert(data.end(), part.begin(), part.end());
            member_end.push_back(gz.size());
            data_end.push_back(data.size());
        }
        index = recorded_by_decompressing(gz, 100000);
        for (std::size_t i = index.points.size() - 1; i > 0; --i)
            if (i % 4 != 0) index.points.erase(index.points.begin() + std::ptrdiff_t(i));
    }
    /// What decoding @p bad with the index on @p threads writes before the error it must throw.
    Bytes written_before_error(const Bytes& bad, int threads) const {
        TempFile file(bad);
        const int fd = ::open(file.path().c_str(), O_RDONLY);
        EXPECT_GE(fd, 0);
        Bytes out;
        DecompressOptions d;
        d.import_index = &index;
        d.threads = threads;
        EXPECT_THROW(decompress_fd(fd, "bad.gz", iterator_sink(std::back_inserter(out)), d), Error) << threads;
        ::close(fd);
        return out;
    }
    [[nodiscard]] Bytes data_upto(std::size_t member) const {
        return {data.begin(), data.begin() + std::ptrdiff_t(data_end[member])};
    }
};

// A member whose CRC-32 is wrong ends the output where that member ends, whatever the
// thread count, also where the next member goes on in the same span.
TEST(Index, BytesBeforeACrcErrorDoNotDependOnTheThreads) {
    const Members m(100);
    for (const std::size_t bad_member : {std::size_t(0), std::size_t(5), std::size_t(11)}) {
        Bytes bad = m.gz;
        bad[m.member_end[bad_member] - 8] ^= 1;  // the trailer's CRC-32
        for (const int threads : {1, 2, 3, 8}) {
            const Bytes out = m.written_before_error(bad, threads);
            EXPECT_TRUE(out == m.data_upto(bad_member))
                << "member " << bad_member << ", " << threads << " threads: " << out.size() << " bytes written";
        }
    }
}

// The same bytes come out before an error whatever the thread count, also where a span
// decoded ahead fails while the span before it still has bytes (and a member's check) to
// give: a member with a wrong CRC-32 inside one span, and a block no decoder can read at
// the start of the next.
TEST(Index, BytesBeforeADecodingErrorDoNotDependOnTheThreads) {
    const Members m(200);
    const std::vector<SeekPoint>& points = m.index.points;
    for (const std::size_t bad_member : {std::size_t(2), std::size_t(5), std::size_t(8)}) {
        // The span the member ends in, and a block type no decoder reads (11) at the next
        // point's block header.
        std::size_t k = 0;
        while (k + 1 < points.size() && points[k + 1].uncompressed < m.data_end[bad_member]) ++k;
        ASSERT_LT(k + 1, points.size());
        ASSERT_LT(points[k].uncompressed, m.data_end[bad_member]);
        Bytes bad = m.gz;
        for (const std::uint64_t bit : {points[k + 1].compressed_bit + 1, points[k + 1].compressed_bit + 2})
            bad[std::size_t(bit / 8)] |= std::uint8_t(1u << (bit % 8));
        const Bytes one = m.written_before_error(bad, 1);
        EXPECT_EQ(one.size(), std::size_t(points[k + 1].uncompressed)) << "member " << bad_member;
        for (const int threads : {2, 3, 8, 16})
            for (int run = 0; run < 3; ++run)
                EXPECT_TRUE(m.written_before_error(bad, threads) == one)
                    << "member " << bad_member << ", " << threads << " threads";
        bad[m.member_end[bad_member] - 8] ^= 1;  // and the member's CRC-32: that error comes first
        EXPECT_TRUE(m.written_before_error(bad, 1) == m.data_upto(bad_member));
        for (const int threads : {2, 3, 8, 16})
            for (int run = 0; run < 3; ++run)
                EXPECT_TRUE(m.written_before_error(bad, threads) == m.data_upto(bad_member))
                    << "member " << bad_member << ", CRC first, " << threads << " threads";
    }
}

TEST(Index, BothFormatsReadBackTheSamePoints) {
    const Bytes data = testing::binary_records(1500000, 4);
    Index index;
    const Bytes gz = compressed_with_index(data, index, 123456);
    for (const IndexFormat f : {IndexFormat::gztool, IndexFormat::indexed_gzip}) {
        const Bytes file = write_index(index, f);
        Index back = read_index(file);
        if (f == IndexFormat::gztool) back.compressed_size = index.compressed_size;  // (gztool does not store it)
        expect_same_points(index, back);
    }
}

TEST(Index, RangesGiveTheDataAtAnyOffset) {
    const Bytes data = testing::mixed(2 << 20, 11);
    Index index;
    const Bytes gz = compressed_with_index(data, index, 64 << 10, 2);
    TempFile file(gz);
    std::mt19937_64 rng(5);
    for (int i = 0; i < 42; ++i) {
        const std::uint64_t offset = rng() % (data.size() + 10);
        // The last two: a length that runs past 2^64 ("to the end").
        const std::uint64_t length = i < 40 ? rng() % 300000 : UINT64_MAX - i;
        DecompressOptions d;
        d.import_index = &index;
        d.range = true;
        d.range_offset = offset;
        d.range_length = length;
        const Bytes got = decompress_with(gz, d);
        const std::size_t from = std::size_t(std::min<std::uint64_t>(offset, data.size()));
        const std::size_t to = std::size_t(std::min<std::uint64_t>(length > data.size() ? data.size() : offset + length, data.size()));
        ASSERT_TRUE(got == Bytes(data.begin() + std::ptrdiff_t(from), data.begin() + std::ptrdiff_t(to)))
            << "offset " << offset << " length " << length;
    }
}

// A range decodes from the last point before it up to its own end and checks the index
// as far as it decodes: a damaged window at the next point goes unseen by a range that
// ends well before it, and is an IndexError for one that reaches it.
TEST(Index, RangesCheckTheIndexAsFarAsTheyDecode) {
    const Bytes data = testing::text_like(5 << 20, 15);
    Index index;
    const Bytes gz = compressed_with_index(data, index, 1 << 20);
    ASSERT_GE(index.points.size(), 4u);
    Index bad = index;
    bad.points[2].window[bad.points[2].window.size() - 10] ^= 1;
    const auto range = [&](std::uint64_t offset, std::uint64_t length) {
        DecompressOptions d;
        d.import_index = &bad;
        d.range = true;
        d.range_offset = offset;
        d.range_length = length;
        return decompress_with(gz, d);
    };
    const std::uint64_t from = index.points[1].uncompressed;
    ASSERT_GT(index.points[2].uncompressed - from, std::uint64_t(600000));
    const Bytes got = range(from + 1000, 50000);
    EXPECT_TRUE(got == Bytes(data.begin() + std::ptrdiff_t(from + 1000), data.begin() + std::ptrdiff_t(from + 51000)));
    EXPECT_THROW(range(index.points[2].uncompressed - 1000, 2000), IndexError);
}

// A range over several spans decodes them on all threads: the same bytes, the same checks
// (a damaged window past the range's end unseen, one it reaches an IndexError) and the
// same bytes before damaged data, on any thread count.  Members' ends inside the spans.
TEST(Index, RangesAreTheSameOnAnyThreadCount) {
    const Members m(47);
    const Bytes& data = m.data;
    const std::vector<SeekPoint>& points = m.index.points;
    ASSERT_GE(points.size(), 4u);
    // What a range writes on @p threads, and whether it threw (and what).
    struct Outcome {
        Bytes out;
        std::string error;  // "" when none, "index" for an IndexError
    };
    const auto range = [&](const Bytes& gz, const Index& index, std::uint64_t offset, std::uint64_t length, int threads) {
        TempFile file(gz);
        const int fd = ::open(file.path().c_str(), O_RDONLY);
        Outcome o;
        DecompressOptions d;
        d.import_index = &index;
        d.range = true;
        d.range_offset = offset;
        d.range_length = length;
        d.threads = threads;
        try {
            decompress_fd(fd, "test.gz", iterator_sink(std::back_inserter(o.out)), d);
        } catch (const IndexError&) {
            o.error = "index";
        } catch (const Error&) {
            o.error = "data";
        }
        ::close(fd);
        return o;
    };
    const std::uint64_t size = data.size();
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges = {
        {0, size},                                                // all of it
        {points[1].uncompressed, points[3].uncompressed - points[1].uncompressed},  // whole spans
        {points[1].uncompressed - 7, points[2].uncompressed - points[1].uncompressed + 14},
        {1000, points[2].uncompressed + 5000},
        {points[2].uncompressed + 3, UINT64_MAX - 5},             // to the end
        {size - 10, 1000},                                        // past the end
    };
    for (const auto& [offset, length] : ranges)
        for (const int threads : {1, 2, 3, 8}) {
            const Outcome o = range(m.gz, m.index, offset, length, threads);
            const std::size_t from = std::size_t(std::min(offset, size));
            const std::size_t to = std::size_t(length > size - from ? size : offset + length);
            EXPECT_EQ(o.error, "") << offset << "+" << length << ", " << threads << " threads";
            EXPECT_TRUE(o.out == Bytes(data.begin() + std::ptrdiff_t(from), data.begin() + std::ptrdiff_t(to)))
                << offset << "+" << length << ", " << threads << " threads";
        }
    // Point 3's window damaged: a range ending well inside span 2 never checks it, one
    // reaching point 3 does.
    Index bad_window = m.index;
    ASSERT_FALSE(bad_window.points[3].window.empty());
    bad_window.points[3].window[bad_window.points[3].window.size() - 5] ^= 1;
    ASSERT_GT(points[3].uncompressed - points[2].uncompressed, std::uint64_t(600000));
    for (const int threads : {1, 2, 8}) {
        const Outcome before = range(m.gz, bad_window, points[1].uncompressed + 10, points[2].uncompressed - points[1].uncompressed, threads);
        EXPECT_EQ(before.error, "") << threads;
        EXPECT_EQ(before.out.size(), points[2].uncompressed - points[1].uncompressed) << threads;
        EXPECT_EQ(range(m.gz, bad_window, points[1].uncompressed, points[3].uncompressed - points[1].uncompressed + 10, threads).error,
                  "index")
            << threads;
    }
    // Damaged data inside span 2: the same bytes before the error on every thread count.
    Bytes bad = m.gz;
    const std::size_t at = std::size_t(points[2].compressed_bit / 8) + 30000;
    for (std::size_t k = 0; k < 64; ++k) bad[at + k] ^= 0x5A;
    const Outcome one = range(bad, m.index, points[0].uncompressed + 100, size, 1);
    EXPECT_NE(one.error, "");
    EXPECT_GE(one.out.size(), points[2].uncompressed - points[0].uncompressed - 100);
    for (const int threads : {2, 3, 8}) {
        const Outcome o = range(bad, m.index, points[0].uncompressed + 100, size, threads);
        EXPECT_EQ(o.error, one.error) << threads;
        EXPECT_TRUE(o.out == one.out) << threads << " threads: " << o.out.size() << " bytes against " << one.out.size();
    }
}

// Opened with an Index, or with an index file (windows inflated as reads need them).
TEST(Index, IndexedReaderReadsAnyStretch) {
    const Bytes data = testing::source_like(1500000, 13);
    Index index;
    TempFile file(compressed_with_index(data, index, 200000));
    TempFile index_file(write_index(index, IndexFormat::gztool));
    const IndexedReader with_index(file.path(), index), with_file(file.path(), index_file.path());
    for (const IndexedReader* reader : {&with_index, &with_file}) {
        EXPECT_EQ(reader->size(), data.size());
        std::mt19937_64 rng(9);
        Bytes buf(70000);
        for (int i = 0; i < 30; ++i) {
            const std::uint64_t offset = rng() % (data.size() + 100);
            const std::size_t n = reader->read_at(offset, buf);
            const std::size_t want =
                std::size_t(std::min<std::uint64_t>(buf.size(), data.size() - std::min<std::uint64_t>(offset, data.size())));
            ASSERT_EQ(n, want) << "offset " << offset;
            EXPECT_TRUE(std::equal(buf.begin(), buf.begin() + std::ptrdiff_t(n), data.begin() + std::ptrdiff_t(offset)));
        }
    }
}

// Reads one after another go on from where the last stopped (the reader keeps its spans'
// decodings, spans of ~400 KB across members' ends against its 256 KiB pieces): in pieces
// of odd sizes, a byte on each side of every point, backwards, past the end, five readers
// taking turns, and from several threads at once (a read that finds every kept decoding
// busy decodes on its own); opened with the index and with its file (windows inflated as
// reads need them).
TEST(Index, IndexedReaderReadsOneAfterAnotherAndFromThreads) {
    const Members m(41);
    const Bytes& data = m.data;
    ASSERT_GE(m.index.points.size(), 4u);
    for (std::size_t i = 1; i < m.index.points.size(); ++i)  // (each span more than one piece)
        ASSERT_GT(m.index.points[i].uncompressed - m.index.points[i - 1].uncompressed, std::uint64_t(300000));
    TempFile file(m.gz);
    TempFile index_file(write_index(m.index, IndexFormat::gztool));
    const IndexedReader with_index(file.path(), m.index), with_file(file.path(), index_file.path());
    const auto same = [&](std::uint64_t offset, const Bytes& got, std::size_t n) {
        return n == std::min<std::uint64_t>(got.size(), data.size() - std::min<std::uint64_t>(offset, data.size())) &&
               std::equal(got.begin(), got.begin() + std::ptrdiff_t(n), data.begin() + std::ptrdiff_t(offset));
    };
    for (const IndexedReader* reader : {&with_index, &with_file}) {
        ASSERT_EQ(reader->size(), data.size());
        for (const std::size_t piece : {std::size_t(70001), std::size_t(4096), std::size_t(300000)}) {
            Bytes buf(piece);
            for (std::uint64_t at = 0; at < data.size(); at += piece)
                ASSERT_TRUE(same(at, buf, reader->read_at(at, buf))) << piece << " at " << at;
        }
        Bytes one(1);
        for (const SeekPoint& p : m.index.points)
            for (const std::uint64_t at : {p.uncompressed - std::min<std::uint64_t>(p.uncompressed, 1), p.uncompressed})
                ASSERT_TRUE(same(at, one, reader->read_at(at, one))) << at;
        Bytes buf(50000);
        for (std::uint64_t at = data.size() + 1000; at >= 25000; at -= 25000)
            ASSERT_TRUE(same(at, buf, reader->read_at(at, buf))) << at;
        // Three readers taking turns inside one span (the second and third start in the
        // first's span, so each must go on from its own cursor, not another's).
        {
            std::array<std::uint64_t, 3> next{0, 100000, 250000};
            Bytes small(10000);
            for (int round = 0; round < 30; ++round)
                for (std::uint64_t& at : next) {
                    ASSERT_TRUE(same(at, small, reader->read_at(at, small))) << "round " << round << " at " << at;
                    at += small.size();
                }
        }
        // Five readers taking turns, one more than the decodings the reader keeps.
        std::array<std::uint64_t, 5> next{};
        for (std::size_t k = 0; k < next.size(); ++k) next[k] = k * data.size() / next.size();
        Bytes turn(30000);
        for (int round = 0; round < 25; ++round)
            for (std::uint64_t& at : next) {
                ASSERT_TRUE(same(at, turn, reader->read_at(at, turn))) << "round " << round << " at " << at;
                at += turn.size();
            }
        std::vector<std::thread> threads;
        std::atomic<int> wrong{0};
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                Bytes b(33333 + std::size_t(t));
                std::mt19937_64 rng{std::uint64_t(t)};
                for (int k = 0; k < 40; ++k) {
                    const std::uint64_t at = k % 2 ? rng() % data.size() : std::uint64_t(k) * 40000;
                    if (!same(at, b, reader->read_at(at, b))) ++wrong;
                }
            });
        for (std::thread& t : threads) t.join();
        EXPECT_EQ(wrong.load(), 0);
    }
}

// A span decoded by a cursor in many runs, each into a 4 KiB room of one of two receivers in
// turn, hands over the bytes and member pieces of one decode() to its end, and then checks
// the same; a cursor whose run threw is spent.
TEST(Index, SpanCursorGoesOnWhereItStopped) {
    const Members m(43);
    struct Collect final : index::SpanReceiver {
        Bytes room_bytes = Bytes(4096);
        Bytes* bytes_out;
        std::vector<index::MemberPiece>* pieces_out;
        Collect(Bytes& b, std::vector<index::MemberPiece>& p) : bytes_out(&b), pieces_out(&p) {}
        std::span<std::uint8_t> room() override { return room_bytes; }
        void bytes(std::span<const std::uint8_t> b) override { bytes_out->insert(bytes_out->end(), b.begin(), b.end()); }
        void piece(const index::MemberPiece& p) override { pieces_out->push_back(p); }
        [[nodiscard]] bool satisfied() const override { return true; }
    };
    struct Whole final : index::SpanReceiver {
        Bytes room_bytes = Bytes(1 << 16), out;
        std::vector<index::MemberPiece> pieces;
        std::span<std::uint8_t> room() override { return room_bytes; }
        void bytes(std::span<const std::uint8_t> b) override { out.insert(out.end(), b.begin(), b.end()); }
        void piece(const index::MemberPiece& p) override { pieces.push_back(p); }
    };
    const auto same_pieces = [](const std::vector<index::MemberPiece>& a, const std::vector<index::MemberPiece>& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
                   return x.crc == y.crc && x.size == y.size && x.ends_member == y.ends_member &&
                          x.trailer_crc == y.trailer_crc && x.trailer_size == y.trailer_size;
               });
    };
    const index::SpanDecoder decoder(m.gz, m.index);
    std::size_t ends = 0;
    for (std::size_t i = 0; i < m.index.points.size(); ++i) {
        Whole whole;
        decoder.decode(i, whole);
        Bytes got;
        std::vector<index::MemberPiece> pieces;
        Collect a(got, pieces), b(got, pieces);
        index::SpanCursor cursor(decoder, i);
        std::size_t runs = 0;
        while (!cursor.run(runs % 2 ? b : a)) {
            ++runs;
            ASSERT_EQ(cursor.position(), m.index.points[i].uncompressed + got.size()) << "span " << i;
        }
        EXPECT_GT(runs, 20u) << "span " << i;
        EXPECT_TRUE(cursor.done());
        EXPECT_TRUE(cursor.run(a));  // (nothing more)
        EXPECT_TRUE(got == whole.out) << "span " << i;
        EXPECT_TRUE(same_pieces(pieces, whole.pieces)) << "span " << i;
        for (const auto& p : pieces) ends += p.ends_member ? 1 : 0;
    }
    EXPECT_EQ(ends, m.member_end.size());
    // Damage inside span 2's data: the cursor's run that meets it throws, and it is spent.
    Bytes bad = m.gz;
    const std::size_t at = std::size_t(m.index.points[2].compressed_bit / 8) + 20000;
    for (std::size_t k = 0; k < 64; ++k) bad[at + k] ^= 0xA5;
    const index::SpanDecoder bad_decoder(bad, m.index);
    index::SpanCursor cursor(bad_decoder, 2);
    Bytes got;
    std::vector<index::MemberPiece> pieces;
    Collect a(got, pieces);
    const auto run_to_end = [&] {
        while (!cursor.run(a)) {
        }
    };
    EXPECT_THROW(run_to_end(), IndexError);
    EXPECT_THROW(cursor.run(a), std::logic_error);
}

// A gztool index read with its windows left packed decodes the same on any thread count
// and in ranges, writes back the same file (and the same indexed_gzip file as when read
// inflated), and a damaged window is an IndexError naming its point when decoding needs it.
TEST(Index, PackedWindowsAreInflatedWhereDecodingNeedsThem) {
    const Bytes data = testing::mixed(3 << 20, 14);
    Index made;
    const Bytes gz = compressed_with_index(data, made, 300000, 2);
    const Bytes file = write_index(made, IndexFormat::gztool);
    const Index packed = read_index(file, IndexWindows::packed);
    const Index inflated = read_index(file);
    ASSERT_EQ(packed.points.size(), made.points.size());
    ASSERT_GT(packed.points.size(), 5u);
    for (std::size_t i = 0; i < packed.points.size(); ++i) {
        EXPECT_TRUE(packed.points[i].window.empty()) << "point " << i;
        EXPECT_EQ(packed.points[i].packed_window.empty(), made.points[i].window.empty()) << "point " << i;
        EXPECT_TRUE(inflated.points[i].packed_window.empty()) << "point " << i;
    }
    for (const int threads : {1, 2, 3, 8}) EXPECT_TRUE(decoded_with(gz, packed, threads) == data) << threads << " threads";
    {  // each packed window inflated once in a whole decode, and let go after its two uses
        struct Discard final : index::SpanReceiver {
            Bytes buffer = Bytes(1 << 16);
            std::span<std::uint8_t> room() override { return buffer; }
            void bytes(std::span<const std::uint8_t>) override {}
            void piece(const index::MemberPiece&) override {}
        } discard;
        const index::SpanDecoder decoder(gz, packed);
        std::size_t windows = 0;
        for (std::size_t i = 0; i < packed.points.size(); ++i) {
            windows += packed.points[i].packed_window.empty() ? 0 : 1;
            decoder.decode(i, discard);
            EXPECT_LE(decoder.windows().held(), 1u) << "after span " << i;  // (the next span's start)
        }
        EXPECT_EQ(decoder.windows().inflated(), windows);
        EXPECT_EQ(decoder.windows().held(), 0u);
    }
    EXPECT_TRUE(write_index(packed, IndexFormat::gztool) == file);
    EXPECT_TRUE(write_index(packed, IndexFormat::indexed_gzip) == write_index(inflated, IndexFormat::indexed_gzip));
    TempFile gz_file(gz);
    const IndexedReader reader(gz_file.path(), packed);
    Bytes buf(100000);
    for (const std::uint64_t offset : {std::uint64_t(0), std::uint64_t(1234567), std::uint64_t(data.size() - 5000)}) {
        const std::size_t n = reader.read_at(offset, buf);
        EXPECT_TRUE(std::equal(buf.begin(), buf.begin() + std::ptrdiff_t(n), data.begin() + std::ptrdiff_t(offset)));
    }
    // A member's start whose window is an empty zlib stream (not no stream): written as a
    // point without a window either way.
    Index empty_stream = packed;
    ASSERT_TRUE(empty_stream.points[0].packed_window.empty());
    empty_stream.points[0].packed_window = compress(Bytes(), [] {
        Options z;
        z.format = Format::zlib;
        return z;
    }());
    Index empty_inflated = read_index(write_index(empty_stream, IndexFormat::gztool));
    EXPECT_TRUE(empty_inflated.points[0].window.empty());
    EXPECT_TRUE(write_index(empty_stream, IndexFormat::indexed_gzip) ==
                write_index(empty_inflated, IndexFormat::indexed_gzip));
    // Point 3's zlib stream damaged: reading it inflated refuses the index; packed, the
    // decoding that starts or checks there does.
    Index bad = packed;
    Bytes& zlib = bad.points[3].packed_window;
    zlib[zlib.size() / 2] ^= 0x55;
    const Bytes bad_file = write_index(bad, IndexFormat::gztool);
    EXPECT_THROW((void)read_index(bad_file), IndexError);
    const Index bad_packed = read_index(bad_file, IndexWindows::packed);
    for (const int threads : {1, 2}) {
        try {
            (void)decoded_with(gz, bad_packed, threads);
            ADD_FAILURE() << "a damaged window decoded, " << threads << " threads";
        } catch (const IndexError& e) {
            EXPECT_NE(std::string(e.what()).find("point 3"), std::string::npos) << e.what();
        }
    }
}

TEST(Index, IndexesThatDoNotFitAreRefused) {
    const Bytes data = testing::text_like(2 << 20, 9);
    Index index;
    const Bytes gz = compressed_with_index(data, index, 50000);
    ASSERT_GT(index.points.size(), 4u);
    const auto refused = [&](const Index& bad) {
        EXPECT_THROW(decoded_with(gz, bad, 2), IndexError);
        EXPECT_THROW(decoded_with(gz, bad, 1), IndexError);
    };
    {  // a window that is not the data before its point
        Index bad = index;
        bad.points[2].window[100] ^= 1;
        refused(bad);
    }
    {  // a point moved by a bit
        Index bad = index;
        bad.points[3].compressed_bit += 1;
        refused(bad);
    }
    {  // an uncompressed offset that is wrong
        Index bad = index;
        bad.points[3].uncompressed += 1;
        refused(bad);
    }
    {  // the index of another file
        Index theirs;
        (void)compressed_with_index(testing::text_like(2 << 20, 10), theirs, 50000);
        refused(theirs);
    }
    {  // the compressed size (indexed_gzip's) of another file
        Index bad = index;
        bad.compressed_size += 1;
        refused(bad);
    }
}

TEST(Index, DamagedIndexFilesAreErrorsNeverCrashes) {
    const Bytes data = testing::text_like(600000, 12);
    Index index;
    (void)compressed_with_index(data, index, 50000);
    for (const IndexFormat f : {IndexFormat::gztool, IndexFormat::indexed_gzip}) {
        const Bytes file = write_index(index, f);
        // Every cut: truncated.
        for (std::size_t n = 0; n < file.size(); n += 1 + n / 64) {
            EXPECT_THROW((void)read_index(std::span(file).first(n)), IndexError) << "cut at " << n;
        }
        // Bytes flipped: an error or an index, never a crash (the windows are checked when
        // the index is used).
        std::mt19937_64 rng(1);
        for (int i = 0; i < 300; ++i) {
            Bytes bad = file;
            bad[rng() % bad.size()] ^= std::uint8_t(1 + rng() % 255);
            try {
                (void)read_index(bad);
            } catch (const IndexError&) {
            }
        }
    }
    EXPECT_THROW((void)read_index(Bytes{'n', 'o', 't'}), IndexError);
}

TEST(Index, CrcCombineIsTheCrcOfTheJoinedPieces) {
    std::mt19937_64 rng(3);
    for (int i = 0; i < 200; ++i) {
        Bytes v(rng() % 100000);
        for (auto& b : v) b = std::uint8_t(rng());
        const std::size_t cut = v.empty() ? 0 : rng() % v.size();
        const auto crc = [](const std::uint8_t* p, std::size_t n) { return std::uint32_t(libdeflate_crc32(0, p, n)); };
        EXPECT_EQ(inflate::crc32_combine(crc(v.data(), cut), crc(v.data() + cut, v.size() - cut), v.size() - cut),
                  crc(v.data(), v.size()));
    }
}

}  // namespace
}  // namespace flowdeflate
