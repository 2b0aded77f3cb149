// parallel_inflate.cpp - see parallel_inflate.hpp.
#include "graph/parallel_inflate.hpp"

#include <isa-l/crc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
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
// How many regions ahead of the main line a worker starts: its marked decoding runs at
// about a third of ISA-L's speed, so a region started this far ahead is done when the main
// line arrives.
constexpr std::size_t kLead = 4;
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
// Once the main line has met it, the stretch's markers are resolved by whoever gets to it
// first: a resolution task (run by a worker), or the main line when it must write it.
// Slots are recycled, buffers and all, so that a run page-faults its buffers once.
struct Slot {
    std::size_t region = 0;
    std::atomic<bool> done{false};
    std::optional<std::uint64_t> start_bit;  // where the stretch starts; none: no stretch
    inflate::MarkedChunk decoded;

    enum : int { kQueued, kClaimed, kResolved };
    std::atomic<int> resolve_state{kQueued};
    std::vector<u8> window;    // the 32 KiB before the stretch
    inflate::LargeArray<u8> resolved;  // the marked part's bytes (resolved_size of them)
    std::size_t resolved_size = 0;
    bool resolved_ok = false;
    std::atomic<int> tasks{0};  // resolution tasks still holding it: not reusable till 0

    // Resolves the markers unless someone else has claimed that; true when it did.
    bool resolve() {
        int queued = kQueued;
        if (!resolve_state.compare_exchange_strong(queued, kClaimed, std::memory_order_acq_rel)) return false;
        const auto marked = decoded.marked_symbols();
        if (resolved.size() < marked.size()) resolved = inflate::LargeArray<u8>(marked.size() + marked.size() / 4);
        resolved_size = marked.size();
        resolved_ok = inflate::resolve_markers(marked, window, {resolved.get(), resolved_size});
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
        arena_.execute([&] {
            graph_->wait_for_all();
            resolutions_.wait();
        });
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
                    if (s.resolve()) ++stats_.main_resolved;
                    else
                        for (int st; (st = s.resolve_state.load(std::memory_order_acquire)) != Slot::kResolved;)
                            s.resolve_state.wait(st, std::memory_order_acquire);
                }
                if (!s.resolved_ok) throw Error("invalid compressed data");
                write({s.resolved.get(), s.resolved_size});
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
    std::size_t member(std::uint64_t bit) {
        crc_ = 0;
        isize_ = 0;
        window_.clear();
        line_.start(in_, bit, {});
        bool at_boundary = true;  // the line stands exactly at a block boundary
        const auto out = [this](std::span<const u8> b) { emit(b); };
        for (;;) {
            if (line_.ended()) return line_.end_byte();
            release_behind();
            drain(false);
            const std::uint64_t pos = line_.bit_position();
            const std::size_t region = std::size_t(pos / 8 / region_bytes_);
            schedule(region);
            if (Slot* s = usable(region, pos)) {
                const std::uint64_t start = *s->start_bit;
                const bool there = (at_boundary && start == pos) || line_.run_to_boundary(start, out);
                if (line_.ended()) return line_.end_byte();
                if (!there) {
                    ++stats_.failed_stops;
                    at_boundary = false;
                    recycle(s->region);
                    continue;
                }
                SlotPtr slot = std::move(slots_[s->region]);
                slots_.erase(slot->region);
                use_stretch(slot);
                if (slot->decoded.final_block_ended) return std::size_t((slot->decoded.end_bit + 7) / 8);
                line_.start(in_, slot->decoded.end_bit, window_.view());
                at_boundary = true;
                continue;
            }
            // No stretch ready: decode through the next region.
            const std::uint64_t written = out_bytes_;
            const std::size_t limit = (region + 2) * region_bytes_;
            line_.run_until(limit, out);
            at_boundary = false;
            // All the input given, nothing read or written, and no end: it is cut short.
            if (!line_.ended() && limit >= in_.size() && written == out_bytes_ && line_.bit_position() == pos)
                inflate::throw_corrupt(Format::gzip, members_);
        }
    }

    // A worker's stretch, met by the main line: its markers are resolved off the main line
    // (the window before it goes with it), and the main line goes on with the window after
    // it, which needs at most its last 32 KiB resolved.
    void use_stretch(const SlotPtr& slot) {
        const inflate::MarkedChunk& c = slot->decoded;
        const auto window = window_.view();
        slot->window.assign(window.begin(), window.end());
        const auto marked = c.marked_symbols();
        const auto plain = c.plain_bytes();
        if (plain.size() < inflate::kWindowSize) {
            const auto tail = marked.last(std::min(marked.size(), inflate::kWindowSize - plain.size()));
            tail_.resize(tail.size());
            if (!inflate::resolve_markers(tail, window, tail_)) throw Error("invalid compressed data");
            window_.append(tail_);
        }
        window_.append(plain);
        pending_.push_back(Pending{slot, {}});
        if (marked.size() <= kResolveInline) {
            // A short marked part costs less to resolve here than to queue the main line's
            // output behind it.
            slot->resolve();
        } else {
            slot->tasks.fetch_add(1, std::memory_order_acq_rel);
            arena_.execute([&] {
                resolutions_.run([slot] {
                    slot->resolve();
                    slot->tasks.fetch_sub(1, std::memory_order_acq_rel);
                });
            });
        }
        ++stats_.used;
        stats_.worker_output += c.size();
        drain(false);
    }

    // The stretch to use next: that of this region or the next, done and starting at or
    // after the line's position.
    Slot* usable(std::size_t region, std::uint64_t pos) {
        for (std::size_t r = region; r <= region + 1; ++r) {
            const auto it = slots_.find(r);
            if (it == slots_.end()) continue;
            // Waiting, the main line joins the workers' arena, so the region is decoded
            // even when no worker thread is free to take it.
            if (o_.wait_for_workers && !it->second->done.load(std::memory_order_acquire))
                arena_.execute([&] { graph_->wait_for_all(); });
            if (!it->second->done.load(std::memory_order_acquire)) continue;
            Slot& s = *it->second;
            if (s.start_bit && *s.start_bit >= pos) return &s;
        }
        return nullptr;
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
        next_ = std::max(next_, region + kLead);
        // Live slots (being decoded, or decoded and not met yet) at most one per worker and
        // one more: the memory bound.
        while (running_.load(std::memory_order_acquire) < workers_ && next_ < regions_ &&
               slots_.size() <= std::size_t(workers_)) {
            // Written stretches whose resolution task has finished can be reused.
            std::erase_if(retired_, [&](SlotPtr& r) {
                if (r->tasks.load(std::memory_order_acquire) != 0) return false;
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
                slot->resolve_state.store(Slot::kQueued, std::memory_order_relaxed);
                slot->start_bit.reset();
            }
            slot->region = next_++;
            slots_[slot->region] = slot;
            running_.fetch_add(1, std::memory_order_acq_rel);
            ++stats_.speculated;
            arena_.execute([&] { node_->try_put(slot); });
        }
    }

    void work(Slot& s) {
        try {
            const std::uint64_t begin = std::uint64_t(s.region) * region_bytes_ * 8;
            const std::uint64_t end = std::min<std::uint64_t>(begin + region_bytes_ * 8, std::uint64_t(in_.size()) * 8);
            s.start_bit = inflate::speculate(decoders_.local(), in_, begin, end, kMaxRegionOutput, s.decoded);
        } catch (...) {
            s.start_bit.reset();  // the main line decodes the region itself
        }
        s.done.store(true, std::memory_order_release);
        s.done.notify_all();
        running_.fetch_sub(1, std::memory_order_acq_rel);
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
    std::uint32_t crc_ = 0;
    std::uint64_t isize_ = 0, out_bytes_ = 0;
    std::size_t released_ = 0;
    std::uint64_t members_ = 0;

    std::map<std::size_t, SlotPtr> slots_;
    std::size_t next_ = 0;
    std::atomic<int> running_{0};  // regions being decoded by workers
    tbb::enumerable_thread_specific<inflate::DeflateDecoder> decoders_;
    tbb::task_arena arena_;
    std::optional<tbb::flow::graph> graph_;
    std::optional<tbb::flow::function_node<SlotPtr>> node_;
    tbb::task_group resolutions_;  // resolution tasks (run in arena_)
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
