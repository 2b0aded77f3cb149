// parallel_inflate.cpp - see parallel_inflate.hpp.
#include "graph/parallel_inflate.hpp"

#include "graph/arena.hpp"

#include <isa-l/crc.h>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "core/framing.hpp"
#include "inflate/gzip_header.hpp"
#include "inflate/isal_line.hpp"
#include "io/large_array.hpp"
#include "io/release_behind.hpp"
#include "inflate/markers.hpp"
#include "inflate/speculative_chunk.hpp"
#include "inflate/window.hpp"

namespace flowdeflate::graph {
namespace {

using u8 = std::uint8_t;
using inflate::IsalLine;

// A worker gives up on a region past this many output bytes (very compressible data: the
// main line decodes it at ISA-L's speed anyway); it bounds a region's memory.
constexpr std::size_t kMaxRegionOutput = std::size_t(8) << 20;
// Regions the main line decodes itself between two of the workers' at most (see gap()).
constexpr std::size_t kMaxGap = 8;
// The main line decodes in pieces of this many compressed bytes at most, so that it hands
// out regions to workers that have finished soon after they have.
constexpr std::size_t kOwnPieceDivisor = 4;
// The main line within this many bytes of a region that a worker has stops there: the
// worker's stretch starts at the first block boundary at or after the region's start.
constexpr std::size_t kNear = 64;
// Slot::start_hint before the worker knows where its stretch starts, and when it has none.
constexpr std::uint64_t kUnknown = ~std::uint64_t(0);
constexpr std::uint64_t kNoStart = kUnknown - 1;
// await_start(): the main line took the region back before a worker started on it.
constexpr std::uint64_t kCancelled = kUnknown - 2;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// One region given to a worker; written by the worker, read by the main line once done.
// A worker claims it (kWaiting -> kRunning) when its task starts; the main line, arriving
// at a region whose task has not started (every worker busy), takes it back (kWaiting ->
// kCancelled) and decodes it itself.  start_hint tells the main line early where the
// stretch will start (once its first block has decoded), so that it can run to that
// boundary while the worker finishes.  Slots are recycled, buffers and all, so that a run
// page-faults its buffers once.
struct Slot {
    std::size_t region = 0;
    enum Phase : int { kWaiting, kRunning, kCancelled };
    std::atomic<int> phase{kWaiting};
    std::atomic<bool> done{false};
    std::atomic<bool> stop{false};  // the main line has caught up: end at the next block boundary
    std::atomic<std::uint64_t> start_hint{kUnknown};
    std::optional<std::uint64_t> start_bit;  // where the stretch starts; none: no stretch
    inflate::TokenChunk decoded;             // the stretch as LZ77 tokens
    std::size_t expected_output = 0;         // the output's size as guessed from the file so far
    double seconds = 0;                      // the worker's time on the region (read once done)
};
using SlotPtr = std::shared_ptr<Slot>;

class MainLine {
public:
    MainLine(std::span<const u8> input, const Sink& sink, const ParallelInflateOptions& o, ParallelInflateStats& stats)
        : in_(input),
          sink_(sink),
          o_(o),
          region_bytes_(std::max<std::size_t>(o.region_bytes, 256)),
          workers_(std::max(1, o.threads - 1)),
          stats_(stats),
          regions_((input.size() + region_bytes_ - 1) / region_bytes_),
          release_(input, o.release_input),
          arena_(workers_ + 1, 1) {  // a slot kept for the main line: try_put never waits for one
        stats_.regions = regions_;
        initialize_arena(arena_);  // under the lock that our TBB controls are made under
        // A graph runs its tasks in the arena it is made in.
        arena_.execute([&] {
            graph_.emplace();
            node_.emplace(*graph_, std::size_t(workers_), [this](const SlotPtr& s) {
                work(*s);
                return tbb::flow::continue_msg{};
            });
        });
    }

    ~MainLine() {
        // Workers may still be decoding regions the main line no longer needs; this thread
        // joins them to finish.
        arena_.execute([&] { graph_->wait_for_all(); });
    }

    Result run() {
        const std::uint64_t cpu0 = core::thread_cpu_ns();
        std::size_t pos = 0;
        Result result;
        while (pos < in_.size() || members_ == 0) {
            const std::size_t body = inflate::gzip_header_end(in_, pos, members_);
            const std::size_t end = member(body * 8);
            if (end + 8 > in_.size()) inflate::throw_corrupt(Format::gzip, members_);
            const std::uint8_t* trailer = in_.data() + end;
            if (core::get_le32(trailer) != crc_ || core::get_le32(trailer + 4) != std::uint32_t(isize_))
                inflate::throw_corrupt(Format::gzip, members_);
            pos = end + 8;
            ++members_;
        }
        result.in_bytes = in_.size();
        result.out_bytes = out_bytes_;
        stats_.main_line_ns = core::thread_cpu_ns() - cpu0;
        stats_.workers_ns = workers_ns_.load(std::memory_order_relaxed);
        return result;
    }

private:
    // Output in order: the window, the member's CRC-32 and size, and the sink.
    void emit(std::span<const u8> b) {
        window_.append(b);
        crc_ = crc32_gzip_refl(crc_, b.data(), b.size());
        isize_ += b.size();
        out_bytes_ += b.size();
        sink_(b);
    }

    // Decodes one member's DEFLATE stream from @p bit; returns the byte after it.
    //
    // The main line decodes the regions no worker has, up to the next region a worker
    // has; there it runs to the stretch's first block boundary (as soon as the worker
    // knows it), asks a worker still decoding to stop at its next block end (a takeover),
    // replays the stretch's tokens against the window, writes it and starts ISA-L again
    // after it.  A region whose task no worker has
    // started yet is taken back and decoded here; a stretch that cannot be used (no start
    // found, or not met exactly) is dropped.
    std::size_t member(std::uint64_t bit) {
        crc_ = 0;
        isize_ = 0;
        window_.clear();
        line_.start(in_, bit, {});
        bool at_boundary = true;  // the line stands exactly at a block boundary
        for (;;) {
            if (line_.ended()) return line_.end_byte();
            release_behind();
            const std::uint64_t pos = line_.bit_position();
            const std::size_t region = std::size_t(pos / 8 / region_bytes_);
            schedule(region);
            const auto next = slots_.lower_bound(region);
            const std::size_t own_end =
                next == slots_.end() ? (region + 1) * region_bytes_ : next->first * region_bytes_;
            if (next == slots_.end() || pos / 8 + kNear < own_end) {
                decode_own(pos, own_end);
                at_boundary = false;
                continue;
            }
            Slot& s = *next->second;
            const std::uint64_t start = await_start(s);
            if (start == kCancelled || start == kNoStart || start < pos) {
                recycle(s.region);
                continue;
            }
            if (!at_boundary || start != pos) {
                const auto t0 = Clock::now();
                const bool there = line_.run_to_boundary(start, [this](std::span<const u8> b) { emit(b); });
                main_bits_ += line_.bit_position() - pos;
                main_seconds_ += seconds_since(t0);
                if (line_.ended()) return line_.end_byte();
                at_boundary = there;
                if (!there) {
                    ++stats_.failed_stops;
                    recycle(s.region);
                }
                continue;
            }
            // Caught up with a worker still decoding: it ends its stretch at its next block
            // boundary and the line decodes the rest of the region, rather than wait.
            if (!o_.wait_for_workers && !s.done.load(std::memory_order_acquire)) {
                s.stop.store(true, std::memory_order_relaxed);
                ++stats_.takeovers;
            }
            await_done(s);
            schedule(region);  // the worker is free: its next region before this one's replay
            if (s.start_bit != pos) {  // the hinted candidate failed later on
                if (!s.start_bit || *s.start_bit < pos) recycle(s.region);
                continue;
            }
            SlotPtr slot = std::move(next->second);
            slots_.erase(next);
            use_stretch(*slot);
            free_slots_.push_back(slot);
            if (slot->decoded.final_block_ended) return std::size_t((slot->decoded.end_bit + 7) / 8);
            line_.start(in_, slot->decoded.end_bit, window_.view());
            at_boundary = true;
        }
    }

    // The main line's own decoding from @p pos towards byte @p end, in pieces.
    void decode_own(std::uint64_t pos, std::size_t end) {
        const auto t0 = Clock::now();
        const std::size_t piece = std::max<std::size_t>(region_bytes_ / kOwnPieceDivisor, kNear * 4);
        std::size_t limit = std::min(end, std::size_t(pos / 8) + piece);
        const auto out = [this](std::span<const u8> b) { emit(b); };
        for (;;) {
            line_.run_until(limit, out);
            if (line_.ended() || line_.bit_position() != pos) break;
            // Nothing moved: with all the input given, the stream is cut short; else a
            // symbol needs more than was given (a region that a worker has, so close that
            // its stretch cannot be met, is then decoded here).
            if (limit >= in_.size()) inflate::throw_corrupt(Format::gzip, members_);
            limit += piece;
        }
        main_bits_ += line_.bit_position() - pos;
        main_seconds_ += seconds_since(t0);
    }

    // Where @p s's stretch starts, as soon as its worker knows (kNoStart: nowhere); or
    // kCancelled when no worker has started on it and the main line took it back.
    std::uint64_t await_start(Slot& s) {
        std::uint64_t hint = s.start_hint.load(std::memory_order_acquire);
        if (hint != kUnknown) return hint;
        if (!o_.wait_for_workers) {
            int waiting = Slot::kWaiting;
            if (s.phase.compare_exchange_strong(waiting, Slot::kCancelled, std::memory_order_acq_rel)) {
                ++stats_.cancelled;
                return kCancelled;
            }
        } else if (s.phase.load(std::memory_order_acquire) == Slot::kWaiting) {
            // Waiting, the main line joins the workers' arena, so the region is decoded
            // even when no worker thread is free to take it.
            arena_.execute([&] { graph_->wait_for_all(); });
        }
        const auto t0 = Clock::now();
        while ((hint = s.start_hint.load(std::memory_order_acquire)) == kUnknown)
            s.start_hint.wait(kUnknown, std::memory_order_acquire);
        stats_.wait_seconds += seconds_since(t0);
        return hint;
    }

    void await_done(Slot& s) {
        if (s.done.load(std::memory_order_acquire)) return;
        const auto t0 = Clock::now();
        ++stats_.waits;
        while (!s.done.load(std::memory_order_acquire)) s.done.wait(false, std::memory_order_acquire);
        stats_.wait_seconds += seconds_since(t0);
    }

    // How many regions the main line decodes itself before the workers' next ones, each
    // time it has caught up with them: a worker's time per input bit, less the main line's
    // time to replay it, over the main line's time to decode a bit itself, so that a
    // worker's region is done about when the main line gets there.  The ratio is rarely whole: the
    // gaps follow it on average (1.4 gives 1, 1, 2, 1, 2, ...; 0.8 gives 0, 1, 1, 1, 1, ...:
    // a worker then takes two regions in a row).
    std::size_t gap() {
        double ratio = 1;
        if (main_seconds_ > 0 && main_bits_ > 0 && worker_bits_ > 0) {
            // Per bit of input: a stretch the line took over is shorter than its region.
            const double main_per_bit = main_seconds_ / double(main_bits_);
            const double worker_per_bit = (worker_seconds_ - replay_seconds_) / double(worker_bits_);
            ratio = std::max(0.0, worker_per_bit) / main_per_bit;
        }
        gap_credit_ += std::min(ratio, double(kMaxGap));
        const std::size_t gap = std::min<std::size_t>(std::size_t(gap_credit_), kMaxGap);
        gap_credit_ = std::max(0.0, gap_credit_ - double(gap));
        return gap;
    }

    // A worker's stretch, met by the main line exactly at its start: its tokens replayed
    // against the window, written, and the window after it kept for ISA-L's restart.
    void use_stretch(const Slot& slot) {
        const auto t0 = Clock::now();
        const inflate::TokenChunk& c = slot.decoded;
        const auto window = window_.view();
        const std::size_t need = inflate::kWindowSize + c.size() + inflate::kReplaySlack;
        if (replay_.size() < need) replay_ = io::LargeArray<u8>(need + need / 4);
        u8* const out = replay_.get() + inflate::kWindowSize;
        std::copy(window.begin(), window.end(), out - window.size());
        if (!inflate::replay_tokens(c, out, window.size())) throw Error("invalid compressed data");
        emit({out, c.size()});
        ++stats_.used;
        stats_.worker_output += c.size();
        worker_bits_ += c.end_bit - *slot.start_bit;
        worker_seconds_ += slot.seconds;
        replay_seconds_ += seconds_since(t0);
    }

    // Takes region @p r's slot out; keeps it for reuse unless a worker still has it.
    void recycle(std::size_t r) {
        const auto it = slots_.find(r);
        if (it == slots_.end()) return;
        if (it->second->done.load(std::memory_order_acquire)) free_slots_.push_back(std::move(it->second));
        slots_.erase(it);
    }

    // A region's output as the file so far suggests, with a quarter more: what a worker's
    // buffers are sized for (growing them later means copying into memory touched for the
    // first time).
    std::size_t expected_region_output() const {
        const std::uint64_t in = line_.bit_position() / 8;
        const double ratio = in > (std::uint64_t(64) << 10) ? double(out_bytes_) / double(in) : 4.0;
        return std::clamp<std::size_t>(std::size_t(double(region_bytes_) * ratio * 1.25), region_bytes_,
                                       kMaxRegionOutput);
    }

    // Drops the regions behind the line and starts workers on regions ahead of it.
    void schedule(std::size_t region) {
        while (!slots_.empty() && slots_.begin()->first < region) recycle(slots_.begin()->first);
        if (next_ <= region) {  // the line has caught up with every region given out
            group_ = 0;
            gap_ = std::max<std::size_t>(1, gap());  // the line is inside `region`
            stats_.gap = gap_;
            next_ = region + gap_;
        }
        // Live slots (being decoded, or decoded and not met yet) at most one per worker and
        // one more: the memory bound.
        while (running_.load(std::memory_order_acquire) < workers_ && next_ < regions_ &&
               slots_.size() <= std::size_t(workers_)) {
            SlotPtr slot;
            if (free_slots_.empty()) {
                slot = std::make_shared<Slot>();
            } else {
                slot = std::move(free_slots_.back());
                free_slots_.pop_back();
                slot->done.store(false, std::memory_order_relaxed);
                slot->stop.store(false, std::memory_order_relaxed);
                slot->phase.store(Slot::kWaiting, std::memory_order_relaxed);
                slot->start_hint.store(kUnknown, std::memory_order_relaxed);
                slot->start_bit.reset();
            }
            slot->region = next_++;
            // The workers take `workers_` regions in a row, then the line's next `gap_`
            // are skipped: a worker that finishes early goes on past them.
            if (++group_ == std::size_t(workers_)) {
                group_ = 0;
                gap_ = gap();
                stats_.gap = gap_;
                next_ += gap_;
            }
            slot->expected_output = expected_region_output();
            slots_[slot->region] = slot;
            running_.fetch_add(1, std::memory_order_acq_rel);
            ++stats_.speculated;
            arena_.execute([&] { node_->try_put(slot); });
        }
    }

    void work(Slot& s) {
        int waiting = Slot::kWaiting;
        if (s.phase.compare_exchange_strong(waiting, Slot::kRunning, std::memory_order_acq_rel)) {
            const auto t0 = Clock::now();
            const std::uint64_t cpu0 = core::thread_cpu_ns();
            try {
                const std::uint64_t begin = std::uint64_t(s.region) * region_bytes_ * 8;
                const std::uint64_t end =
                    std::min<std::uint64_t>(begin + region_bytes_ * 8, std::uint64_t(in_.size()) * 8);
                inflate::DecodeLimits limits;
                limits.max_output = kMaxRegionOutput;
                limits.expected_output = s.expected_output;
                limits.first_block_decoded = &s.start_hint;
                limits.stop_requested = &s.stop;
                s.start_bit = inflate::speculate(decoders_.local(), in_, begin, end, limits, s.decoded);
            } catch (...) {
                s.start_bit.reset();  // the main line decodes the region itself
            }
            s.seconds = seconds_since(t0);
            workers_ns_.fetch_add(core::thread_cpu_ns() - cpu0, std::memory_order_relaxed);
        }
        s.start_hint.store(s.start_bit ? *s.start_bit : kNoStart, std::memory_order_release);
        s.start_hint.notify_all();
        s.done.store(true, std::memory_order_release);
        s.done.notify_all();
        running_.fetch_sub(1, std::memory_order_acq_rel);
    }

    // Gives back the input pages the main line has passed (less 64 KiB: a restart may
    // read a few bytes before its position); no worker reads behind the line.
    void release_behind() {
        const std::size_t pos = std::size_t(line_.bit_position() / 8);
        release_.upto(pos > (64u << 10) ? pos - (64u << 10) : 0);
    }

    std::span<const u8> in_;
    const Sink& sink_;
    const ParallelInflateOptions o_;
    const std::size_t region_bytes_;
    const int workers_;
    ParallelInflateStats& stats_;
    const std::size_t regions_;

    inflate::IsalLine line_;
    inflate::Window window_;  // the member's last 32 KiB: a stretch's history, ISA-L's restart
    io::LargeArray<u8> replay_;  // a stretch's window and bytes, reused
    std::vector<SlotPtr> free_slots_;  // slots to reuse
    std::uint32_t crc_ = 0;
    std::uint64_t isize_ = 0, out_bytes_ = 0;
    io::ReleaseBehind release_;
    std::uint64_t members_ = 0;
    // Speeds, per bit of input: the main line's own decoding, the workers' stretches and
    // their replay here.
    std::uint64_t main_bits_ = 0, worker_bits_ = 0;
    double main_seconds_ = 0, worker_seconds_ = 0, replay_seconds_ = 0;
    std::size_t gap_ = 1;
    double gap_credit_ = 0;
    std::size_t group_ = 0;  // regions given to workers since the last gap

    std::map<std::size_t, SlotPtr> slots_;
    std::size_t next_ = 0;
    std::atomic<int> running_{0};  // regions being decoded by workers
    std::atomic<std::uint64_t> workers_ns_{0};
    tbb::enumerable_thread_specific<inflate::DeflateDecoder> decoders_;
    tbb::task_arena arena_;
    std::optional<tbb::flow::graph> graph_;
    std::optional<tbb::flow::function_node<SlotPtr>> node_;
};

}  // namespace

Result parallel_gunzip(std::span<const std::uint8_t> input, const Sink& sink, const ParallelInflateOptions& options,
                       ParallelInflateStats* stats) {
    ParallelInflateStats local;
    // TBB caps its workers at the number of cores unless told otherwise.
    std::optional<AllowParallelism> allow_more;
    if (options.threads > tbb::info::default_concurrency()) allow_more.emplace(std::size_t(options.threads));
    MainLine line(input, sink, options, stats ? *stats : local);
    return line.run();
}

}  // namespace flowdeflate::graph
