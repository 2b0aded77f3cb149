// indexed_inflate.cpp - see indexed_inflate.hpp.
#include "graph/indexed_inflate.hpp"

#include <tbb/info.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "graph/arena.hpp"
#include "graph/pinning.hpp"
#include "index/index_decoders.hpp"
#include "io/large_array.hpp"
#include "io/release_behind.hpp"

namespace flowdeflate::graph {
namespace {

using u8 = std::uint8_t;

// Decoded spans go out in order, and the span in front streams: its decoder writes each
// piece as soon as ISA-L has made it, in one reused piece.  A span decoded ahead of the
// front keeps its pieces (from a pool) until its turn.  Whole-span buffers cost a fresh
// process a page fault per page of every buffer live at once (threads + 1 spans of 4 MiB),
// which on 2-vCPU hosts was a third of a -d -p2 run on an 11 MB file.
//
// Everything that goes out in order is an Item: bytes of a piece, the end of a member's
// part in a span (its CRC-32 and size checked against the trailer where the member ends),
// or a piece given back.  A span's decoder applies its items itself while its span is in
// front and nothing of it waits; otherwise they wait in the span's queue, and the span
// before it drains them when it is done.  Items are applied one at a time: a decoder
// applies only while its span is in front and no drain runs, and each change of who
// applies is made under the mutex.
class OrderedWriter {
public:
    static constexpr std::size_t kPiece = std::size_t(1) << 18;

    /// Spans from @p first on go out; @p check_members: each member's CRC-32 and size are
    /// checked where it ends (not for a range, which holds parts of members).
    OrderedWriter(const Sink& sink, std::size_t slots, std::size_t first, bool check_members)
        : sink_(sink), queues_(slots), front_(first), check_members_(check_members) {}

    struct Item {
        u8* piece = nullptr;  // bytes [from, to) of it; given back when `give_back`
        std::uint32_t from = 0, to = 0;
        bool give_back = false;
        bool member = false;  // the end of a member's part (then `end`)
        index::MemberPiece end{};
    };

    /// Applies @p item now if span @p i is in front and nothing of it waits (true), else
    /// queues it (false).
    bool put(std::size_t i, const Item& item) {
        {
            std::lock_guard lock(mutex_);
            if (i != front_ || draining_ || !queue(i).empty()) {
                queue(i).push_back(item);
                return false;
            }
        }
        direct_ns_.fetch_add(apply(item), std::memory_order_relaxed);
        return true;
    }

    /// Span @p i (in front) is decoded: applies what of it waits, then, unless its decoding
    /// failed (@p hand_on false), hands the front to span i + 1 and applies what of that
    /// waits.
    void finish(std::size_t i, bool hand_on = true) {
        std::vector<Item> batch;
        std::unique_lock lock(mutex_);
        draining_ = true;
        for (;;) {
            batch.swap(queue(front_));
            if (batch.empty()) {
                if (front_ != i || !hand_on) break;
                ++front_;
                continue;
            }
            lock.unlock();
            for (const Item& item : batch) drained_ns_ += apply(item);
            batch.clear();
            lock.lock();
        }
        draining_ = false;
    }

    /// A piece for a decoder's room (from the pool, or made).
    u8* take_piece() {
        std::lock_guard lock(mutex_);
        if (free_.empty()) {
            // Made 8 at a time: one 2 MiB mapping on a huge page (io::LargeArray).
            slabs_.emplace_back(8 * kPiece);
            for (std::size_t k = 0; k < 8; ++k) free_.push_back(slabs_.back().get() + k * kPiece);
        }
        u8* p = free_.back();
        free_.pop_back();
        return p;
    }

    [[nodiscard]] std::uint64_t written() const { return written_; }
    /// CPU time of the writing and member checks: those a decoder made as it went (inside
    /// its decoding's time) and those made by finish().
    [[nodiscard]] std::uint64_t direct_ns() const { return direct_ns_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::uint64_t drained_ns() const { return drained_ns_; }

private:
    std::vector<Item>& queue(std::size_t i) { return queues_[i % queues_.size()]; }

    // Returns its CPU time.
    std::uint64_t apply(const Item& item) {
        const std::uint64_t cpu0 = core::thread_cpu_ns();
        if (item.to > item.from) {
            sink_({item.piece + item.from, std::size_t(item.to - item.from)});
            written_ += item.to - item.from;
        }
        if (item.member && check_members_) members_.add(item.end);
        if (item.give_back) {
            std::lock_guard lock(mutex_);
            free_.push_back(item.piece);
        }
        return core::thread_cpu_ns() - cpu0;
    }

    const Sink& sink_;
    std::mutex mutex_;
    std::vector<std::vector<Item>> queues_;  // by span, modulo the spans live
    std::size_t front_;
    const bool check_members_;
    bool draining_ = false;
    std::vector<io::LargeArray<u8>> slabs_;
    std::vector<u8*> free_;
    // Touched only by whoever applies (one at a time, handed over under the mutex).
    index::MemberCheck members_;
    std::uint64_t written_ = 0;
    std::atomic<std::uint64_t> direct_ns_{0};
    std::uint64_t drained_ns_ = 0;  // finish() runs in span order, one at a time
};

// One span's decoding into an OrderedWriter: while the span is in front its bytes go out
// from one piece, reused; before that they fill pieces that wait.
class OrderedSpan final : public index::SpanReceiver {
public:
    /// @p wanted: the span's bytes that are wanted (a range's last span); its decoding
    /// stops at the end of the room that reaches them.
    OrderedSpan(OrderedWriter& writer, std::size_t span, std::uint64_t wanted = UINT64_MAX)
        : writer_(writer), span_(span), wanted_(wanted) {}
    OrderedSpan(const OrderedSpan&) = delete;
    OrderedSpan& operator=(const OrderedSpan&) = delete;

    std::span<u8> room() override {
        // A piece all of whose items went out is reused; one that waits is given back
        // when its last item has gone out.
        if (piece_ && !all_out_) close();
        if (!piece_) piece_ = writer_.take_piece();
        from_ = to_ = 0;
        return {piece_, OrderedWriter::kPiece};
    }
    void bytes(std::span<const u8> b) override {
        decoded_ += b.size();
        to_ += std::uint32_t(b.size());
        // Out at once where it can go; once something waits, the rest of the piece is
        // handed on as one item when it is full or a member ends.
        if (all_out_) push(item());
    }
    void piece(const index::MemberPiece& p) override {
        OrderedWriter::Item end = item();
        end.member = true;
        end.end = p;
        push(end);
    }
    [[nodiscard]] bool satisfied() const override { return decoded_ >= wanted_; }
    /// The span is decoded (or its decoding failed): what is left of it goes out or waits,
    /// and its piece with it.
    void finish() {
        if (piece_) close();
    }
    /// Whether an error came from the writing (the sink, or a member's check), not the
    /// decoding.  Such an error is in order: the writer applies a span's items only in front.
    [[nodiscard]] bool writer_failed() const { return writing_; }

private:
    // The bytes not handed on yet, as an item.
    OrderedWriter::Item item() {
        OrderedWriter::Item i;
        i.piece = piece_;
        i.from = from_;
        i.to = from_ = to_;
        return i;
    }
    void push(const OrderedWriter::Item& item) {
        writing_ = true;
        all_out_ = writer_.put(span_, item);
        writing_ = false;
    }
    void close() {
        OrderedWriter::Item last = item();
        last.give_back = true;
        push(last);
        piece_ = nullptr;
    }

    OrderedWriter& writer_;
    std::size_t span_;
    std::uint64_t wanted_, decoded_ = 0;
    u8* piece_ = nullptr;
    std::uint32_t from_ = 0, to_ = 0;  // bytes of the piece not handed on: [from_, to_)
    bool all_out_ = true;              // every item of this span so far has gone out
    bool writing_ = false;             // inside the writer (left set when it throws)
};

}  // namespace

namespace {

// What decode_spans() decodes and how.
struct SpanRun {
    std::size_t first = 0, end = 0;  // spans [first, end)
    std::uint64_t last_wanted = UINT64_MAX;  // bytes wanted of span end - 1
    bool check_members = true;               // a whole decode (not a range)
    bool release_input = false;
    bool pin_threads = false;
};

struct SpanTimes {
    std::uint64_t decode_ns = 0, direct_ns = 0, drained_ns = 0;

    /// Into @p stats: @p spans decoded to @p out bytes on @p threads threads.
    void record(DecompressStats& stats, int threads, std::size_t spans, std::uint64_t out) const {
        stats.threads = threads;
        stats.regions = stats.worker_regions = spans;
        stats.worker_bytes = out;
        // Writing (and the member checks) is the in-order part, wherever it ran.
        stats.main_line_ns = direct_ns + drained_ns;
        stats.workers_ns = decode_ns - std::min(decode_ns, direct_ns);
    }
};

// Once the spans before point @p point are decoded: no span reads the input before it.
void release_to_point(io::ReleaseBehind& release, const Index& index, std::size_t point) {
    if (point < index.points.size()) release.upto(std::size_t(index.points[point].compressed_bit / 8));
}

// Decodes spans [run.first, run.end) of @p in on @p threads threads and hands their bytes to
// @p sink in order; returns the bytes handed.  See indexed_gunzip().
std::uint64_t decode_spans(std::span<const u8> in, const Index& index, const Sink& sink, int threads, const SpanRun& run,
                           SpanTimes& times) {
    std::atomic<std::uint64_t> decode_ns{0};
    const index::SpanDecoder decoder(in, index);
    const std::size_t spans = run.end - run.first;
    // At most `live` spans are in the pipeline, so span i and span i + live never wait at
    // once and the writer's queues are kept modulo `live`.
    const std::size_t live = threads <= 1 ? 1 : std::size_t(threads) + 1;
    OrderedWriter writer(sink, live, run.first, run.check_members);
    io::ReleaseBehind release(in, run.release_input);
    // Decodes span i, then (in order) hands the front on: a member's bytes are written
    // before its CRC-32 is checked, as every decoder here does, so the same bytes come out
    // before an error whatever the decoder.  A span whose decoding fails keeps its error
    // until its turn: what it decoded, and every span before it, goes out first, as on
    // one thread.
    std::vector<std::exception_ptr> failed(live);  // by span, modulo the spans live
    const auto decode = [&](std::size_t i) {
        const std::uint64_t cpu0 = core::thread_cpu_ns();
        OrderedSpan out(writer, i, i + 1 == run.end ? run.last_wanted : UINT64_MAX);
        try {
            decoder.decode(i, out);
        } catch (...) {
            if (out.writer_failed()) throw;
            failed[i % live] = std::current_exception();
        }
        out.finish();
        decode_ns.fetch_add(core::thread_cpu_ns() - cpu0, std::memory_order_relaxed);
    };
    const auto finish = [&](std::size_t i) {
        if (std::exception_ptr error = std::exchange(failed[i % live], nullptr)) {
            writer.finish(i, false);
            std::rethrow_exception(error);
        }
        writer.finish(i);
        release_to_point(release, index, i + 1);
    };
    if (threads <= 1 || spans == 1) {
        for (std::size_t i = run.first; i < run.end; ++i) {
            decode(i);
            finish(i);
        }
    } else {
        // TBB caps its workers at the number of cores unless told otherwise.
        std::optional<AllowParallelism> allow_more;
        if (threads > tbb::info::default_concurrency()) allow_more.emplace(std::size_t(threads));
        tbb::task_arena arena(threads);
        initialize_arena(arena);
        const PinnedThreads pinned(arena, run.pin_threads);
        std::size_t next = run.first;
        arena.execute([&] {
            tbb::parallel_pipeline(
                live,
                tbb::make_filter<void, std::size_t>(tbb::filter_mode::serial_in_order,
                                                    [&](tbb::flow_control& fc) -> std::size_t {
                                                        if (next == run.end) fc.stop();
                                                        return next < run.end ? next++ : 0;
                                                    }) &
                    tbb::make_filter<std::size_t, std::size_t>(tbb::filter_mode::parallel,
                                                               [&](std::size_t i) {
                                                                   pinned.here();
                                                                   decode(i);
                                                                   return i;
                                                               }) &
                    tbb::make_filter<std::size_t, void>(tbb::filter_mode::serial_in_order, finish));
        });
    }
    times.decode_ns = decode_ns.load();
    times.direct_ns = writer.direct_ns();
    times.drained_ns = writer.drained_ns();
    return writer.written();
}

}  // namespace

Result indexed_gunzip(std::span<const std::uint8_t> in, const Index& index, const Sink& sink, int threads,
                      DecompressStats* stats, bool release_input, bool pin_threads) {
    const std::uint64_t wall0 = core::now_ns();
    index::check_index_fits(index, in);
    SpanRun run;
    run.end = index.points.size();
    run.release_input = release_input;
    run.pin_threads = pin_threads;
    SpanTimes times;
    const std::uint64_t out = decode_spans(in, index, sink, threads, run, times);
    if (index.uncompressed_size != 0 && out != index.uncompressed_size)
        throw IndexError("the index says the data has " + std::to_string(index.uncompressed_size) + " bytes; it has " +
                    std::to_string(out));
    if (stats) {
        stats->decoder = "indexed";
        times.record(*stats, threads, run.end, out);
        stats->wall_ns = core::now_ns() - wall0;
    }
    return {in.size(), out};
}

namespace {

// The bytes of a range [offset, end) of the data, from bytes handed over in order from
// offset `at` on.
struct RangeTrim {
    std::uint64_t at, offset, end;
    std::uint64_t written = 0;
    void put(const Sink& sink, std::span<const u8> b) {
        const std::uint64_t from = std::max(at, offset), to = std::min(at + b.size(), end);
        if (to > from) {
            sink(b.subspan(std::size_t(from - at), std::size_t(to - from)));
            written += to - from;
        }
        at += b.size();
    }
};

// A range's spans decoded one after another, to a sink.
class RangeOut final : public index::SpanReceiver {
public:
    RangeOut(const Sink& sink, const RangeTrim& trim) : trim(trim), sink_(sink) {}
    std::span<u8> room() override { return {piece_.get(), piece_.size()}; }
    void bytes(std::span<const u8> b) override { trim.put(sink_, b); }
    void piece(const index::MemberPiece&) override {}
    /// The range's end is decoded.
    [[nodiscard]] bool satisfied() const override { return trim.at >= trim.end; }

    RangeTrim trim;

private:
    const Sink& sink_;
    io::LargeArray<u8> piece_{OrderedWriter::kPiece};
};

}  // namespace

std::uint64_t read_range(std::span<const std::uint8_t> in, const Index& index, std::uint64_t offset,
                         std::uint64_t length, const Sink& sink, int threads, bool pin_threads, DecompressStats* stats,
                         bool release_input) {
    index::check_index_fits(index, in);
    if (stats) {
        stats->decoder = "range";
        stats->threads = 1;
    }
    if (length == 0) return 0;
    const std::uint64_t end = length > UINT64_MAX - offset ? UINT64_MAX : offset + length;  // (a length "to the end")
    const std::size_t first = index::span_at(index, offset);
    const std::size_t last = end > offset ? index::span_at(index, end - 1) : first;
    const RangeTrim trim{index.points[first].uncompressed, offset, end};
    if (threads > 1 && last > first) {
        // Its spans on all threads, in order, the last one stopped where the range ends
        // (at the end of the same room as below: the same checks on any thread count).
        RangeTrim parallel = trim;
        const Sink trimmed = [&](std::span<const u8> b) { parallel.put(sink, b); };
        SpanRun run;
        run.first = first;
        run.end = last + 1;
        run.last_wanted = end - index.points[last].uncompressed;  // (past the data: never reached)
        run.check_members = false;
        run.pin_threads = pin_threads;
        run.release_input = release_input;
        SpanTimes times;
        decode_spans(in, index, trimmed, threads, run, times);
        if (stats) times.record(*stats, threads, run.end - run.first, parallel.written);
        return parallel.written;
    }
    const index::SpanDecoder decoder(in, index);
    RangeOut out(sink, trim);
    io::ReleaseBehind release(in, release_input);
    for (std::size_t i = first; i < index.points.size() && !out.satisfied(); ++i) {
        decoder.decode(i, out);
        release_to_point(release, index, i + 1);
    }
    return out.trim.written;
}

}  // namespace flowdeflate::graph
