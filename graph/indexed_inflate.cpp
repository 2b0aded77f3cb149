// indexed_inflate.cpp - see indexed_inflate.hpp.
#include "graph/indexed_inflate.hpp"

#include <tbb/info.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "graph/arena.hpp"
#include "index/index_decoders.hpp"
#include "io/release_behind.hpp"

namespace flowdeflate::graph {

Result indexed_gunzip(std::span<const std::uint8_t> in, const Index& index, const Sink& sink, int threads,
                      DecompressStats* stats, bool release_input) {
    const std::uint64_t wall0 = core::now_ns();
    index::check_index_fits(index, in);
    std::atomic<std::uint64_t> decode_ns{0};
    std::uint64_t write_ns = 0;
    const index::SpanDecoder decoder(in);
    index::MemberCheck members;
    std::uint64_t out = 0;
    std::size_t next = 0;
    const std::size_t spans = index.points.size();
    io::ReleaseBehind release(in, release_input);
    // A member's bytes are written before its CRC-32 is checked, as every decoder here
    // does: the same bytes come out before an error, whatever the decoder.
    const auto write = [&](const index::SpanOutput& span, std::size_t i) {
        const std::uint64_t cpu0 = core::thread_cpu_ns();
        std::size_t at = 0;
        for (const index::MemberPiece& piece : span.pieces) {
            if (piece.size != 0) sink({span.bytes.data() + at, std::size_t(piece.size)});
            at += std::size_t(piece.size);
            members.add(piece);
        }
        out += at;
        // The spans after this one read from their own points on.
        if (i + 1 < spans) release.upto(std::size_t(index.points[i + 1].compressed_bit / 8));
        write_ns += core::thread_cpu_ns() - cpu0;
    };
    const auto decode = [&](std::size_t i, index::SpanOutput& span) {
        const std::uint64_t cpu0 = core::thread_cpu_ns();
        decoder.decode(index, i, span);
        decode_ns.fetch_add(core::thread_cpu_ns() - cpu0, std::memory_order_relaxed);
    };
    if (threads <= 1 || spans == 1) {
        index::SpanOutput span;
        for (std::size_t i = 0; i < spans; ++i) {
            decode(i, span);
            write(span, i);
        }
    } else {
        // Span buffers are recycled: at most `live` spans are in the pipeline and they leave
        // it in order, so span i + live starts only after span i is written and buffer
        // i % live is free.  (A fresh buffer per span made its pages fault in each time;
        // only indexes pass between the filters, so a pipeline an error stops owns nothing.)
        const std::size_t live = std::size_t(threads) + 1;
        std::vector<index::SpanOutput> buffers(live);
        // TBB caps its workers at the number of cores unless told otherwise.
        std::optional<AllowParallelism> allow_more;
        if (threads > tbb::info::default_concurrency()) allow_more.emplace(std::size_t(threads));
        tbb::task_arena arena(threads);
        arena.execute([&] {
            tbb::parallel_pipeline(
                live,
                tbb::make_filter<void, std::size_t>(tbb::filter_mode::serial_in_order,
                                                    [&](tbb::flow_control& fc) -> std::size_t {
                                                        if (next == spans) fc.stop();
                                                        return next < spans ? next++ : 0;
                                                    }) &
                    tbb::make_filter<std::size_t, std::size_t>(tbb::filter_mode::parallel,
                                                               [&](std::size_t i) {
                                                                   decode(i, buffers[i % live]);
                                                                   return i;
                                                               }) &
                    tbb::make_filter<std::size_t, void>(tbb::filter_mode::serial_in_order,
                                                        [&](std::size_t i) { write(buffers[i % live], i); }));
        });
    }
    if (index.uncompressed_size != 0 && out != index.uncompressed_size)
        throw IndexError("the index says the data has " + std::to_string(index.uncompressed_size) + " bytes; it has " +
                    std::to_string(out));
    if (stats) {
        stats->decoder = "indexed";
        stats->threads = threads;
        stats->regions = stats->worker_regions = spans;
        stats->worker_bytes = out;
        stats->workers_ns = decode_ns.load();
        stats->main_line_ns = write_ns;
        stats->wall_ns = core::now_ns() - wall0;
    }
    return {in.size(), out};
}

std::uint64_t read_range(std::span<const std::uint8_t> in, const Index& index, std::uint64_t offset,
                         std::uint64_t length, const Sink& sink) {
    index::check_index_fits(index, in);
    const index::SpanDecoder decoder(in);
    // The last point at or before the offset.
    const auto after = std::upper_bound(index.points.begin(), index.points.end(), offset,
                                        [](std::uint64_t o, const SeekPoint& p) { return o < p.uncompressed; });
    std::size_t i = std::size_t(after - index.points.begin()) - 1;
    std::uint64_t written = 0;
    index::SpanOutput span;
    for (; i < index.points.size() && written < length; ++i) {
        decoder.decode(index, i, span);
        const std::uint64_t start = index.points[i].uncompressed;
        const std::uint64_t end = start + span.bytes.size();
        if (end <= offset) continue;
        const std::uint64_t from = std::max(offset, start) - start;
        const std::uint64_t n = std::min<std::uint64_t>(span.bytes.size() - from, length - written);
        sink(std::span<const std::uint8_t>(span.bytes.data(), span.bytes.size()).subspan(std::size_t(from), std::size_t(n)));
        written += n;
    }
    return written;
}

}  // namespace flowdeflate::graph
