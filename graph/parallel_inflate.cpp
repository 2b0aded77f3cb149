// parallel_inflate.cpp - see parallel_inflate.hpp.
#include "graph/parallel_inflate.hpp"

#include <isa-l/crc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tbb/concurrent_queue.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/framing.hpp"
#include "inflate/gzip_header.hpp"
#include "inflate/isal_line.hpp"
#include "inflate/large_array.hpp"
#include "inflate/markers.hpp"
#include "inflate/speculative_chunk.hpp"

namespace flowdeflate::graph {
namespace {

using u8 = std::uint8_t;
using inflate::IsalLine;

// A worker gives up on a region past this many output symbols (very compressible data:
// the main line decodes it at ISA-L's speed anyway); it bounds a region's memory.
constexpr std::size_t kMaxRegionOutput = std::size_t(8) << 20;
// How many regions ahead of the main line a worker starts (see MainLine::lead()): one
// when a worker decodes a region as fast as the main line, more when it is slower (text,
// whose markers never die out), up to this many.
constexpr std::size_t kMaxLead = 8;
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
// The main line's output queued behind stretches being resolved: in pieces of this size,
// and at most this much before the main line resolves the oldest stretch itself.
constexpr std::size_t kPendingPiece = std::size_t(1) << 20;
constexpr std::size_t kMaxPendingBytes = std::size_t(8) << 20;
// Marked parts up to this many symbols are resolved by the main line at once (most
// stretches of binary data and of archives: their markers die out within a block or two).
constexpr std::size_t kResolveInline = std::size_t(512) << 10;

// The last 32 KiB of a member's output: the window for the next stretch's markers and for
// restarting ISA-L after a stretch.
class Window {
public:
    void clear() { size_ = 0; }
    void append(std::span<const u8> b) {
        if (b.size() >= bytes_.size()) {
            std::copy(b.end() - std::ptrdiff_t(bytes_.size()), b.end(), bytes_.begin());
            size_ = bytes_.size();
            return;
        }
        const std::size_t keep = std::min(size_, bytes_.size() - b.size());
        std::copy(bytes_.begin() + std::ptrdiff_t(size_ - keep), bytes_.begin() + std::ptrdiff_t(size_), bytes_.begin());
        std::copy(b.begin(), b.end(), bytes_.begin() + std::ptrdiff_t(keep));
        size_ = keep + b.size();
    }
    [[nodiscard]] std::span<const u8> view() const { return {bytes_.data(), size_}; }

private:
    std::vector<u8> bytes_ = std::vector<u8>(inflate::kWindowSize);
    std::size_t size_ = 0;
};

// One region given to a worker; written by the worker, read by the main line once done.
// A worker claims it (kWaiting -> kRunning) when its task starts; the main line, arriving
// at a region whose task has not started (every worker busy), takes it back (kWaiting ->
// kCancelled) and decodes it itself.  start_hint tells the main line early where the
// stretch will start (the first block decoded), so that it can run to that boundary while
// the worker finishes.  Once the main line has met the stretch, its markers are resolved
// by whoever gets to it first: a resolution task (run by a worker), or the main line when
// it must write it.  Slots are recycled, buffers and all, so that a run page-faults its
// buffers once.
struct Slot {
    std::size_t region = 0;
    enum Phase : int { kWaiting, kRunning, kCancelled };
    std::atomic<int> phase{kWaiting};
    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> start_hint{kUnknown};
    std::optional<std::uint64_t> start_bit;  // where the stretch starts; none: no stretch
    inflate::MarkedChunk decoded;
    inflate::WindowOffer offer;  // the window, once the main line has met the stretch early
    std::size_t expected_output = 0;  // the output's size as guessed from the file so far
    double seconds = 0;          // the worker's time on the region (read once done)
    double resolve_seconds = 0;  // the resolution's (read once resolved)

    enum : int { kQueued, kClaimed, kResolved };
    std::atomic<int> resolve_state{kQueued};
    std::vector<u8> window;    // the 32 KiB before the stretch
    std::size_t resolved_size = 0;  // the marked part's bytes, in place of its symbols
    bool resolved_ok = false;
    std::atomic<int> queued{0};  // entries in the resolution queue: not reusable till 0

    // The marked part's bytes once resolved (they overwrite its symbols' storage).
    [[nodiscard]] std::span<const u8> resolved() const noexcept {
        return {reinterpret_cast<const u8*>(decoded.marked_symbols().data()), resolved_size};
    }

    // Resolves the markers unless someone else has claimed that; true when it did.
    bool resolve() {
        int queued = kQueued;
        if (!resolve_state.compare_exchange_strong(queued, kClaimed, std::memory_order_acq_rel)) return false;
        const auto marked = decoded.marked_symbols();
        resolved_size = marked.size();
        const auto t0 = Clock::now();
        // In place: the symbols are not needed again, and a second buffer of several MiB
        // per slot would be memory touched for the first time (page faults) on every run.
        u8* const bytes = reinterpret_cast<u8*>(decoded.marked.begin() + decoded.marked.history_size());
        resolved_ok = inflate::resolve_markers(marked, window, {bytes, resolved_size});
        resolve_seconds = seconds_since(t0);
        resolve_state.store(kResolved, std::memory_order_release);
        resolve_state.notify_all();
        return true;
    }
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
          arena_(workers_ + 1, 1) {  // a slot kept for the main line: try_put never waits for one
        stats_.regions = regions_;
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
        // Workers may still be decoding regions the main line no longer needs, or resolving
        // stretches it has written itself; this thread joins them to finish.
        arena_.execute([&] { graph_->wait_for_all(); });
        for (SlotPtr s; to_resolve_.try_pop(s);) s->queued.fetch_sub(1, std::memory_order_acq_rel);
    }

    Result run() {
        std::size_t pos = 0;
        Result result;
        while (pos < in_.size() || members_ == 0) {
            const std::size_t body = header_end(pos, members_);
            const std::size_t end = member(body * 8);
            drain(true);
            if (end + 8 > in_.size()) inflate::throw_corrupt(Format::gzip, members_);
            const std::uint8_t* trailer = in_.data() + end;
            if (core::get_le32(trailer) != crc_ || core::get_le32(trailer + 4) != std::uint32_t(isize_))
                inflate::throw_corrupt(Format::gzip, members_);
            pos = end + 8;
            ++members_;
        }
        result.in_bytes = in_.size();
        result.out_bytes = out_bytes_;
        return result;
    }

private:
    // The byte after the gzip header at @p pos.
    std::size_t header_end(std::size_t pos, std::uint64_t members) const {
        inflate::GzipHeaderParser header;
        for (std::size_t i = pos; i < in_.size(); ++i) switch (header.feed(in_[i])) {
                case inflate::HeaderStatus::need_more: break;
                case inflate::HeaderStatus::invalid: inflate::throw_corrupt(Format::gzip, members);
                case inflate::HeaderStatus::done: return i + 1;
            }
        inflate::throw_corrupt(Format::gzip, members);
    }

    // The main line's own output: the window follows it; it is written at once unless
    // stretches wait for their markers, then queued behind them.
    void emit(std::span<const u8> b) {
        decoded_bytes_ += b.size();
        window_.append(b);
        if (pending_.empty()) return write(b);
        if (pending_.back().stretch || pending_.back().bytes.size() >= kPendingPiece) {
            pending_.emplace_back();
            if (!free_bytes_.empty()) {
                pending_.back().bytes = std::move(free_bytes_.back());
                free_bytes_.pop_back();
            }
            pending_.back().bytes.reserve(kPendingPiece + IsalLine::kOutputPiece);
        }
        pending_.back().bytes.insert(pending_.back().bytes.end(), b.begin(), b.end());
        pending_bytes_ += b.size();
        if (pending_bytes_ > kMaxPendingBytes) drain(true);
    }

    // Output in order: the member's CRC-32 and size, and the sink.
    void write(std::span<const u8> b) {
        crc_ = crc32_gzip_refl(crc_, b.data(), b.size());
        isize_ += b.size();
        out_bytes_ += b.size();
        sink_(b);
    }

    // Writes what is ready at the front of the queue; with @p wait, everything (the main
    // line resolves a stretch itself when no worker has started on it).
    void drain(bool wait) {
        while (!pending_.empty()) {
            Pending& p = pending_.front();
            if (p.stretch) {
                Slot& s = *p.stretch;
                if (s.resolve_state.load(std::memory_order_acquire) != Slot::kResolved) {
                    if (!wait) return;
                    // The queue is in stretch order: its front is usually this one.
                    while (s.resolve_state.load(std::memory_order_acquire) == Slot::kQueued && resolve_one()) {
                    }
                    if (s.resolve()) ++stats_.main_resolved;
                    else
                        for (int st; (st = s.resolve_state.load(std::memory_order_acquire)) != Slot::kResolved;)
                            s.resolve_state.wait(st, std::memory_order_acquire);
                }
                if (!s.resolved_ok) throw Error("invalid compressed data");
                worker_seconds_ += s.resolve_seconds;
                write(s.resolved());
                write(s.decoded.plain_bytes());
                retired_.push_back(std::move(p.stretch));
            } else {
                write(p.bytes);
                pending_bytes_ -= p.bytes.size();
                p.bytes.clear();
                free_bytes_.push_back(std::move(p.bytes));
            }
            pending_.pop_front();
        }
    }

    // Decodes one member's DEFLATE stream from @p bit; returns the byte after it.
    //
    // The main line decodes the regions no worker has, up to the next region a worker
    // has; there it runs to the stretch's first block boundary (as soon as the worker
    // knows it), waits for the worker to finish, writes the stretch and starts again after
    // it.  A region whose task no worker has started yet is taken back and decoded here; a
    // stretch that cannot be used (no start found, or not met exactly) is dropped.
    std::size_t member(std::uint64_t bit) {
        crc_ = 0;
        isize_ = 0;
        window_.clear();
        line_.start(in_, bit, {});
        bool at_boundary = true;  // the line stands exactly at a block boundary
        for (;;) {
            if (line_.ended()) return line_.end_byte();
            release_behind();
            drain(false);
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
            await_done(s, pos);
            if (s.start_bit != pos) {  // the hinted candidate failed later on
                if (!s.start_bit || *s.start_bit < pos) recycle(s.region);
                continue;
            }
            SlotPtr slot = std::move(next->second);
            slots_.erase(next);
            worker_bits_ += slot->decoded.end_bit - pos;
            worker_seconds_ += slot->seconds;
            use_stretch(slot);
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
            if (!resolve_one()) s.start_hint.wait(kUnknown, std::memory_order_acquire);
        stats_.wait_seconds += seconds_since(t0);
        return hint;
    }

    // Waits for @p s's worker, the line standing at the stretch's start @p pos.  The worker
    // is given the window, so that it decodes the rest in plain mode; once its marked part
    // is final, the main line resolves it meanwhile.
    void await_done(Slot& s, std::uint64_t pos) {
        if (s.done.load(std::memory_order_acquire)) return;
        const auto window = window_.view();
        s.window.assign(window.begin(), window.end());
        s.offer.bytes = s.window;
        s.offer.start_bit.store(pos, std::memory_order_release);
        ++stats_.offers;
        const auto t0 = Clock::now();
        ++stats_.waits;
        while (!s.done.load(std::memory_order_acquire)) {
            if (!s.offer.marked_part_final.load(std::memory_order_acquire)) {
                if (!resolve_one()) s.offer.marked_part_final.wait(false, std::memory_order_acquire);
            } else if (!s.resolve() && !resolve_one()) {
                s.done.wait(false, std::memory_order_acquire);
            }
        }
        stats_.wait_seconds += seconds_since(t0);
    }

    // How many regions the main line decodes itself before the workers' next ones, each
    // time it has caught up with them: the main line's speed over a worker's (per region,
    // resolution included), so that a worker's region is done about when the main line,
    // decoding those in between, gets there.  The ratio is rarely whole: the gaps follow
    // it on average (1.4 gives 1, 1, 2, 1, 2, ...).
    std::size_t gap() {
        double ratio = 1;
        if (main_seconds_ > 0 && worker_seconds_ > 0 && worker_bits_ > 0)
            ratio = (double(main_bits_) / main_seconds_) / (double(worker_bits_) / worker_seconds_);
        gap_credit_ += std::min(ratio, double(kMaxLead));
        const std::size_t gap = std::clamp<std::size_t>(std::size_t(gap_credit_), 1, kMaxLead);
        gap_credit_ = std::max(0.0, gap_credit_ - double(gap));
        return gap;
    }

    // A worker's stretch, met by the main line: its markers are resolved off the main line
    // (the window before it goes with it), and the main line goes on with the window after
    // it, which needs at most its last 32 KiB resolved.
    void use_stretch(const SlotPtr& slot) {
        const inflate::MarkedChunk& c = slot->decoded;
        const auto window = window_.view();
        const auto marked = c.marked_symbols();
        const auto plain = c.plain_bytes();
        if (slot->resolve_state.load(std::memory_order_acquire) == Slot::kResolved) {
            // Resolved while the worker decoded its plain part (the window was offered).
            if (!slot->resolved_ok) throw Error("invalid compressed data");
            const auto bytes = slot->resolved();
            window_.append(bytes.last(std::min(bytes.size(), inflate::kWindowSize)));
        } else {
            slot->window.assign(window.begin(), window.end());
            if (plain.size() < inflate::kWindowSize) {
                const auto tail = marked.last(std::min(marked.size(), inflate::kWindowSize - plain.size()));
                tail_.resize(tail.size());
                if (!inflate::resolve_markers(tail, window, tail_)) throw Error("invalid compressed data");
                window_.append(tail_);
            }
        }
        window_.append(plain);
        pending_.push_back(Pending{slot, {}});
        if (marked.size() <= kResolveInline) {
            // A short marked part costs less to resolve here than to queue the main line's
            // output behind it.
            slot->resolve();
        } else {
            slot->queued.fetch_add(1, std::memory_order_acq_rel);
            to_resolve_.push(slot);
        }
        ++stats_.used;
        stats_.worker_output += c.size();
        decoded_bytes_ += c.size();
        drain(false);
    }

    // A region's output as the file so far suggests, with a quarter more: what a worker's
    // buffers are sized for (growing them later means copying into memory touched for the
    // first time).
    std::size_t expected_region_output() const {
        const std::uint64_t in = line_.bit_position() / 8;
        const double ratio = in > (std::uint64_t(64) << 10) ? double(decoded_bytes_) / double(in) : 4.0;
        return std::clamp<std::size_t>(std::size_t(double(region_bytes_) * ratio * 1.25), region_bytes_,
                                       kMaxRegionOutput);
    }

    // Takes region @p r's slot out; keeps it for reuse unless a worker still has it.
    void recycle(std::size_t r) {
        const auto it = slots_.find(r);
        if (it == slots_.end()) return;
        if (it->second->done.load(std::memory_order_acquire)) free_slots_.push_back(std::move(it->second));
        slots_.erase(it);
    }

    // Drops the regions behind the line and starts workers on regions ahead of it.
    void schedule(std::size_t region) {
        while (!slots_.empty() && slots_.begin()->first < region) recycle(slots_.begin()->first);
        if (next_ <= region) {
            gap_ = gap();
            stats_.lead = gap_;
        }
        next_ = std::max(next_, region + gap_);
        // Live slots (being decoded, or decoded and not met yet) at most one per worker and
        // one more: the memory bound.
        while (running_.load(std::memory_order_acquire) < workers_ && next_ < regions_ &&
               slots_.size() <= std::size_t(workers_)) {
            // Written stretches whose resolution task has finished can be reused.
            std::erase_if(retired_, [&](SlotPtr& r) {
                if (r->queued.load(std::memory_order_acquire) != 0) return false;
                free_slots_.push_back(std::move(r));
                return true;
            });
            SlotPtr slot;
            if (free_slots_.empty()) {
                slot = std::make_shared<Slot>();
            } else {
                slot = std::move(free_slots_.back());
                free_slots_.pop_back();
                slot->done.store(false, std::memory_order_relaxed);
                slot->phase.store(Slot::kWaiting, std::memory_order_relaxed);
                slot->start_hint.store(kUnknown, std::memory_order_relaxed);
                slot->offer.start_bit.store(inflate::kNoStopBit, std::memory_order_relaxed);
                slot->offer.marked_part_final.store(false, std::memory_order_relaxed);
                slot->resolve_state.store(Slot::kQueued, std::memory_order_relaxed);
                slot->start_bit.reset();
            }
            slot->region = next_++;
            slot->expected_output = expected_region_output();
            slots_[slot->region] = slot;
            running_.fetch_add(1, std::memory_order_acq_rel);
            unstarted_.fetch_add(1, std::memory_order_acq_rel);
            ++stats_.speculated;
            arena_.execute([&] { node_->try_put(slot); });
        }
    }

    void work(Slot& s) {
        unstarted_.fetch_sub(1, std::memory_order_acq_rel);
        int waiting = Slot::kWaiting;
        if (s.phase.compare_exchange_strong(waiting, Slot::kRunning, std::memory_order_acq_rel)) {
            const auto t0 = Clock::now();
            try {
                const std::uint64_t begin = std::uint64_t(s.region) * region_bytes_ * 8;
                const std::uint64_t end =
                    std::min<std::uint64_t>(begin + region_bytes_ * 8, std::uint64_t(in_.size()) * 8);
                inflate::DecodeLimits limits;
                limits.max_output = kMaxRegionOutput;
                limits.expected_output = s.expected_output;
                limits.first_block_decoded = &s.start_hint;
                limits.window_offer = &s.offer;
                s.start_bit = inflate::speculate(decoders_.local(), in_, begin, end, limits, s.decoded);
            } catch (...) {
                s.start_bit.reset();  // the main line decodes the region itself
            }
            s.seconds = seconds_since(t0);
        }
        s.start_hint.store(s.start_bit ? *s.start_bit : kNoStart, std::memory_order_release);
        s.start_hint.notify_all();
        s.offer.marked_part_final.store(true, std::memory_order_release);  // it is now, in any case
        s.offer.marked_part_final.notify_all();
        s.done.store(true, std::memory_order_release);
        s.done.notify_all();
        running_.fetch_sub(1, std::memory_order_acq_rel);
        // Decoding regions comes first; between them a worker resolves stretches.
        while (unstarted_.load(std::memory_order_acquire) == 0 && resolve_one()) {
        }
    }

    // Resolves the oldest stretch in the queue (unless someone has claimed it); false when
    // the queue is empty.  Run by workers between regions, and by the main line while it
    // waits for a worker or needs the stretch written.
    bool resolve_one() {
        SlotPtr s;
        if (!to_resolve_.try_pop(s)) return false;
        s->resolve();
        s->queued.fetch_sub(1, std::memory_order_acq_rel);
        return true;
    }

    // Gives back the input pages the main line has passed (less 64 KiB: a restart may
    // read a few bytes before its position), and that no worker reads, 4 MiB at a time.
    void release_behind() {
        if (!o_.release_input) return;
        static const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
        const std::size_t pos = std::size_t(line_.bit_position() / 8);
        const std::size_t upto = pos > (64u << 10) ? (pos - (64u << 10)) / page * page : 0;
        if (upto < released_ + (std::size_t(4) << 20)) return;  // in batches: a call costs
        const auto base = reinterpret_cast<std::uintptr_t>(in_.data());
        const std::uintptr_t first = (base + released_ + page - 1) / page * page;
        const std::uintptr_t last = (base + upto) / page * page;
        if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
        released_ = std::max(released_, upto);
    }

    std::span<const u8> in_;
    const Sink& sink_;
    const ParallelInflateOptions o_;
    const std::size_t region_bytes_;
    const int workers_;
    ParallelInflateStats& stats_;
    const std::size_t regions_;

    inflate::IsalLine line_;
    Window window_;
    std::vector<u8> tail_;  // a stretch's last 32 KiB, resolved for the window
    // Output waiting behind a stretch whose markers are not resolved yet.
    struct Pending {
        SlotPtr stretch;
        std::vector<u8> bytes;
    };
    std::deque<Pending> pending_;
    std::size_t pending_bytes_ = 0;
    std::vector<SlotPtr> free_slots_;              // slots to reuse
    std::vector<SlotPtr> retired_;                 // written, maybe still held by a task
    std::vector<std::vector<u8>> free_bytes_;      // written pending pieces, for reuse
    std::uint64_t decoded_bytes_ = 0;  // by the main line or in the stretches it used
    std::uint32_t crc_ = 0;
    std::uint64_t isize_ = 0, out_bytes_ = 0;
    std::size_t released_ = 0;
    std::uint64_t members_ = 0;
    // Speeds: the main line's own decoding, and the workers' stretches (bits of input).
    std::uint64_t main_bits_ = 0, worker_bits_ = 0;
    double main_seconds_ = 0, worker_seconds_ = 0;
    std::size_t gap_ = 1;
    double gap_credit_ = 0;

    std::map<std::size_t, SlotPtr> slots_;
    std::size_t next_ = 0;
    std::atomic<int> running_{0};  // regions being decoded by workers
    tbb::enumerable_thread_specific<inflate::DeflateDecoder> decoders_;
    tbb::task_arena arena_;
    std::optional<tbb::flow::graph> graph_;
    std::optional<tbb::flow::function_node<SlotPtr>> node_;
    // Stretches whose markers wait for resolution, oldest first (see resolve_one()).
    tbb::concurrent_queue<SlotPtr> to_resolve_;
    std::atomic<int> unstarted_{0};  // regions handed to the workers and not started yet
};

}  // namespace

Result parallel_gunzip(std::span<const std::uint8_t> input, const Sink& sink, const ParallelInflateOptions& options,
                       ParallelInflateStats* stats) {
    ParallelInflateStats local;
    // TBB caps its workers at the number of cores unless told otherwise.
    std::optional<tbb::global_control> allow_more;
    if (options.threads > tbb::info::default_concurrency())
        allow_more.emplace(tbb::global_control::max_allowed_parallelism, std::size_t(options.threads));
    MainLine line(input, sink, options, stats ? *stats : local);
    return line.run();
}

}  // namespace flowdeflate::graph
