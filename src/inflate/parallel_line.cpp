// parallel_line.cpp - see parallel_line.hpp.
#include "inflate/parallel_line.hpp"

#include <isa-l/crc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "core/framing.hpp"
#include "inflate/crc_combine.hpp"
#include "inflate/gzip_header.hpp"
#include "inflate/isal_line.hpp"
#include "inflate/markers.hpp"
#include "inflate/speculative_chunk.hpp"
#include "inflate/window.hpp"
#include "io/large_array.hpp"
#include "io/release_behind.hpp"

namespace flowdeflate::inflate {
namespace {

using u8 = std::uint8_t;

// A token stretch ends at the first block boundary past this many output bytes (the line
// decodes the rest of the region), and a worker gives up past a quarter more (a block of very
// compressible data longer than that): what bounds a region's memory.
constexpr std::size_t kMaxRegionOutput = std::size_t(8) << 20;
// Regions whose expected output is this many times a stretch's are the main line's alone
// (runs of 1000:1): a worker would do a sliver of each.
constexpr std::size_t kSkipFactor = 16;
// The line's own output held back behind stretches being completed, at most.
constexpr std::size_t kMaxHeld = std::size_t(4) << 20;
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
    TokenChunk tokens;                       // the stretch as LZ77 tokens (tokens form)
    MarkedChunk marked;                      // or as marked symbols, then bytes (markers form)
    std::size_t expected_output = 0;         // the output's size as guessed from the file so far
    double seconds = 0;                      // the worker's time on the region (read once done)
    bool orphaned = false;  // dropped by the line while a worker had it (under returned_mutex_)

    // Completing a marked stretch, once the line has met it: its markers resolved against
    // `history` (the window before it) in place, and its CRC-32.  Whoever claims it first
    // (a worker's task, or the line when it needs the bytes) does it.
    Window history;
    std::atomic<bool> claimed{false};
    std::atomic<bool> completed{false};
    bool resolved_ok = false;
    std::uint32_t crc = 0;
    double complete_seconds = 0;

    [[nodiscard]] std::uint64_t end_bit(bool markers) const { return markers ? marked.end_bit : tokens.end_bit; }
    [[nodiscard]] bool final_block_ended(bool markers) const {
        return markers ? marked.final_block_ended : tokens.final_block_ended;
    }
    [[nodiscard]] std::size_t size(bool markers) const { return markers ? marked.size() : tokens.size(); }
    // The resolved bytes of the marked part: in the front half of the symbols' storage.
    [[nodiscard]] std::span<const u8> resolved() const {
        const std::span<const std::uint16_t> symbols = marked.marked_symbols();
        return {reinterpret_cast<const u8*>(symbols.data()), symbols.size()};
    }
};
using SlotPtr = std::shared_ptr<Slot>;

// Output of the line's own decoding held back behind stretches still being completed, in
// pieces of a fixed size (pooled: their memory is bounded by kMaxHeld).
struct HeldBytes {
    static constexpr std::size_t kCapacity = IsalLine::kOutputPiece;
    std::unique_ptr<u8[]> data = std::make_unique_for_overwrite<u8[]>(kCapacity);
    std::size_t size = 0;
};

// The output queue's entries, in order: a marked stretch (written once completed) or bytes
// the line decoded after it.
struct Pending {
    SlotPtr stretch;
    std::unique_ptr<HeldBytes> held;
};

// The whole file's ratio of output to input as the last member's trailer says (ISIZE, the
// size modulo 4 GiB: a guess, right for the usual one-member file of under 4 GiB); 4
// where it says nothing plausible.
double initial_ratio(std::span<const u8> input) {
    if (input.size() < 64) return 4;
    const double ratio = double(core::get_le32(input.data() + input.size() - 4)) / double(input.size());
    return ratio >= 0.5 && ratio <= 1032 ? ratio : 4;  // (stored blocks: a little under 1)
}

// Marked stretches take two bytes a symbol and live until written: all the live ones (one
// per worker and one more) together stay within kMarkedBudget.  Each ends at the first
// block boundary past marked_cap() symbols (the line decodes the rest of its region), and
// regions are cut so that one holds half of that on average.
constexpr std::size_t kMarkedBudget = std::size_t(16) << 20;
constexpr std::size_t kMinMarkedCap = std::size_t(1) << 20;
constexpr std::size_t kMinRegion = std::size_t(128) << 10;

std::size_t marked_cap(int workers) {
    return std::max(kMinMarkedCap, kMarkedBudget / 2 / (std::size_t(workers) + 1));
}

// Compressed bytes per region: the option's, or less for marked stretches as above (never
// below kMinRegion: the block search and the first block weigh on small regions).
std::size_t region_size(const ParallelLineOptions& o, int workers, bool markers, double ratio) {
    std::size_t bytes = std::max<std::size_t>(o.region_bytes, 256);
    if (markers)
        bytes = std::min(bytes, std::max(kMinRegion, std::size_t(double(marked_cap(workers)) / (2 * ratio))));
    return bytes;
}

class MainLine {
public:
    MainLine(std::span<const u8> input, const Sink& sink, const ParallelLineOptions& o, RegionRunner& runner,
             ParallelLineStats& stats)
        : in_(input),
          sink_(sink),
          o_(o),
          workers_(std::max(1, o.threads - 1)),
          markers_(o.form == ParallelLineOptions::Form::markers ||
                   (o.form == ParallelLineOptions::Form::automatic &&
                    o.threads >= ParallelLineOptions::kMarkersFromThreads)),
          ratio_(initial_ratio(input)),
          region_bytes_(region_size(o, workers_, markers_, ratio_)),
          stretch_output_(markers_ ? marked_cap(workers_) : kMaxRegionOutput),
          stats_(stats),
          regions_((input.size() + region_bytes_ - 1) / region_bytes_),
          release_(input, o.release_input),
          runner_(runner) {
        stats_.regions = regions_;
        stats_.markers = markers_;
    }

    // Workers may still be decoding regions the main line no longer needs, or completing
    // stretches an error left unwritten; this thread joins them to finish.
    ~MainLine() { runner_.wait(); }

    Result run() {
        const std::uint64_t cpu0 = core::thread_cpu_ns();
        std::size_t pos = 0;
        Result result;
        while (pos < in_.size() || members_ == 0) {
            const std::size_t body = gzip_header_end(in_, pos, members_);
            const std::size_t end = member(body * 8);
            write_all_pending();
            if (end + 8 > in_.size()) throw_corrupt(Format::gzip, members_);
            const std::uint8_t* trailer = in_.data() + end;
            if (core::get_le32(trailer) != crc_ || core::get_le32(trailer + 4) != std::uint32_t(isize_))
                throw_corrupt(Format::gzip, members_);
            pos = end + 8;
            ++members_;
        }
        result.in_bytes = in_.size();
        result.out_bytes = out_bytes_;
        stats_.main_line_ns = core::thread_cpu_ns() - cpu0;
        stats_.own_decode_ns = own_decode_ns_ - std::min(own_decode_ns_, own_in_order_ns_);
        stats_.workers_ns = workers_ns_.load(std::memory_order_relaxed);
        return result;
    }

private:
    // Output in order: the window, the member's size, and then, unless stretches before it
    // are still being completed, its CRC-32 and the sink; else held back behind them.
    void emit(std::span<const u8> b) {
        window_.append(b);
        isize_ += b.size();
        out_bytes_ += b.size();
        if (!pending_.empty()) write_ready();
        if (pending_.empty()) {
            write(b);
            return;
        }
        while (!b.empty()) {
            if (!pending_.back().held || pending_.back().held->size == HeldBytes::kCapacity)
                pending_.push_back({nullptr, take_held()});
            HeldBytes& held = *pending_.back().held;
            const std::size_t n = std::min(b.size(), HeldBytes::kCapacity - held.size);
            std::memcpy(held.data.get() + held.size, b.data(), n);
            held.size += n;
            held_bytes_ += n;
            b = b.subspan(n);
        }
        // Bounded: past kMaxHeld the line writes the queue's front, completing a stretch
        // itself when no worker has started on it.
        while (held_bytes_ > kMaxHeld && !pending_.empty()) write_front();
    }

    void write(std::span<const u8> b) {
        const InOrderTime in_order(*this);  // even inside the line's own decoding
        crc_ = crc32_gzip_refl(crc_, b.data(), b.size());
        sink_(b);
    }

    // Decodes one member's DEFLATE stream from @p bit; returns the byte after it.
    //
    // The main line decodes the regions no worker has, up to the next region a worker
    // has; there it runs to the stretch's first block boundary (as soon as the worker
    // knows it), asks a worker still decoding to stop at its next block end (a takeover),
    // takes the stretch (tokens: replayed and written; markers: its window resolved, the
    // rest completed by a worker) and starts ISA-L again after it.  A region whose task no
    // worker has started yet is taken back and decoded here; a stretch that cannot be used
    // (no start found, or not met exactly) is dropped.
    std::size_t member(std::uint64_t bit) {
        crc_ = 0;
        isize_ = 0;
        window_.clear();
        line_.start(in_, bit, {});
        bool at_boundary = true;  // the line stands exactly at a block boundary
        for (;;) {
            if (line_.ended()) return line_.end_byte();
            release_behind();
            write_ready();
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
                bool there = false;
                own_decoding(pos, [&] { there = line_.run_to_boundary(start, [this](std::span<const u8> b) { emit(b); }); });
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
            await_flag(s.done);
            schedule(region);  // the worker is free: its next region before this one's replay
            if (s.start_bit != pos) {  // the hinted candidate failed later on
                if (!s.start_bit || *s.start_bit < pos) recycle(s.region);
                continue;
            }
            SlotPtr slot = std::move(next->second);
            slots_.erase(next);
            const std::uint64_t end_bit = slot->end_bit(markers_);
            const bool final_block = slot->final_block_ended(markers_);
            if (markers_) {
                take_marked(std::move(slot));
            } else {
                use_tokens(*slot);
                free_slots_.push_back(std::move(slot));
            }
            if (final_block) return std::size_t((end_bit + 7) / 8);
            line_.start(in_, end_bit, window_.view());
            at_boundary = true;
        }
    }

    // The main line's own decoding from @p pos towards byte @p end, in pieces.
    void decode_own(std::uint64_t pos, std::size_t end) {
        const std::size_t piece = std::max<std::size_t>(region_bytes_ / kOwnPieceDivisor, kNear * 4);
        std::size_t limit = std::min(end, std::size_t(pos / 8) + piece);
        const auto out = [this](std::span<const u8> b) { emit(b); };
        own_decoding(pos, [&] {
            for (;;) {
                line_.run_until(limit, out);
                if (line_.ended() || line_.bit_position() != pos) break;
                // Nothing moved: with all the input given, the stream is cut short; else a
                // symbol needs more than was given (a region that a worker has, so close that
                // its stretch cannot be met, is then decoded here).
                if (limit >= in_.size()) throw_corrupt(Format::gzip, members_);
                limit += piece;
            }
        });
    }

    // Runs @p decode, the line's own ISA-L decoding from bit @p pos, and counts its time:
    // CPU (main_line_decode_ns, less the in-order work done inside it: InOrderTime) and
    // wall time per input bit (gap()).
    template <class F>
    void own_decoding(std::uint64_t pos, F&& decode) {
        const auto t0 = Clock::now();
        const std::uint64_t cpu0 = core::thread_cpu_ns();
        in_own_ = true;
        decode();
        in_own_ = false;
        own_decode_ns_ += core::thread_cpu_ns() - cpu0;
        main_bits_ += line_.bit_position() - pos;
        main_seconds_ += seconds_since(t0);
    }

    // Times in-order work (writing, completing a stretch the line needs) that happens inside
    // the line's own decoding (from emit()), so that it counts as in-order work, once.
    class InOrderTime {
    public:
        explicit InOrderTime(MainLine& line) : line_(line), on_(line.in_own_ && !line.timing_in_order_) {
            if (!on_) return;
            line_.timing_in_order_ = true;
            cpu0_ = core::thread_cpu_ns();
        }
        ~InOrderTime() {
            if (!on_) return;
            line_.own_in_order_ns_ += core::thread_cpu_ns() - cpu0_;
            line_.timing_in_order_ = false;
        }
        InOrderTime(const InOrderTime&) = delete;
        InOrderTime& operator=(const InOrderTime&) = delete;

    private:
        MainLine& line_;
        const bool on_;
        std::uint64_t cpu0_ = 0;
    };

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
            // Waiting, the main line joins the workers, so the region is decoded even when
            // no worker thread is free to take it.
            runner_.wait();
        }
        const auto t0 = Clock::now();
        while ((hint = s.start_hint.load(std::memory_order_acquire)) == kUnknown)
            s.start_hint.wait(kUnknown, std::memory_order_acquire);
        stats_.wait_seconds += seconds_since(t0);
        return hint;
    }

    // Waits until a worker sets @p flag (a region done, a stretch completed), counted.
    void await_flag(const std::atomic<bool>& flag) {
        if (flag.load(std::memory_order_acquire)) return;
        const auto t0 = Clock::now();
        ++stats_.waits;
        while (!flag.load(std::memory_order_acquire)) flag.wait(false, std::memory_order_acquire);
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

    // A token stretch, met by the main line exactly at its start: its tokens replayed
    // against the window and written (the window after it kept for ISA-L's restart).
    void use_tokens(const Slot& slot) {
        const auto t0 = Clock::now();
        const TokenChunk& c = slot.tokens;
        const auto window = window_.view();
        const std::size_t need = kWindowSize + c.size() + kReplaySlack;
        if (replay_.size() < need) replay_ = io::LargeArray<u8>(need + need / 4);
        u8* const out = replay_.get() + kWindowSize;
        std::copy(window.begin(), window.end(), out - window.size());
        if (!replay_tokens(c, out, window.size())) throw Error("invalid compressed data");
        emit({out, c.size()});
        count_stretch(slot, seconds_since(t0));
    }

    void count_stretch(const Slot& slot, double line_seconds) {
        ++stats_.used;
        stats_.worker_output += slot.size(markers_);
        worker_bits_ += slot.end_bit(markers_) - *slot.start_bit;
        worker_seconds_ += slot.seconds;
        replay_seconds_ += line_seconds;
    }

    // A marked stretch, met exactly at its start: the line resolves only its last 32 KiB
    // (the window after it, which ISA-L or the next stretch starts from); the rest is
    // resolved and checked by a worker, and written in order once done.
    void take_marked(SlotPtr slot) {
        const auto t0 = Clock::now();
        const MarkedChunk& c = slot->marked;
        slot->history.clear();
        slot->history.append(window_.view());
        const std::span<const std::uint16_t> symbols = c.marked_symbols();
        const std::span<const u8> plain = c.plain_bytes();
        if (plain.size() < kWindowSize && !symbols.empty()) {
            const std::size_t n = std::min(symbols.size(), kWindowSize - plain.size());
            u8 tail[kWindowSize];
            if (!resolve_markers(symbols.last(n), slot->history.view(), {tail, n}))
                throw Error("invalid compressed data");
            window_.append({tail, n});
        }
        window_.append(plain);
        isize_ += c.size();
        out_bytes_ += c.size();
        slot->claimed.store(false, std::memory_order_relaxed);
        slot->completed.store(false, std::memory_order_relaxed);
        pending_.push_back({slot, nullptr});
        runner_.complete([this, slot] { complete(*slot, true); });
        count_stretch(*slot, seconds_since(t0));
        while (pending_.size() > std::size_t(workers_) + 1) write_front();
    }

    // Resolves a marked stretch in place and computes its CRC-32 (once, by whoever claims it).
    void complete(Slot& s, bool on_worker) {
        if (s.claimed.exchange(true, std::memory_order_acq_rel)) return;
        const auto t0 = Clock::now();
        const std::uint64_t cpu0 = on_worker ? core::thread_cpu_ns() : 0;
        const std::span<const std::uint16_t> symbols = s.marked.marked_symbols();
        u8* const bytes = const_cast<u8*>(reinterpret_cast<const u8*>(symbols.data()));
        s.resolved_ok = resolve_markers(symbols, s.history.view(), {bytes, symbols.size()});
        std::uint32_t crc = crc32_gzip_refl(0, bytes, symbols.size());
        const std::span<const u8> plain = s.marked.plain_bytes();
        s.crc = crc32_gzip_refl(crc, plain.data(), plain.size());
        s.complete_seconds = seconds_since(t0);
        if (on_worker) workers_ns_.fetch_add(core::thread_cpu_ns() - cpu0, std::memory_order_relaxed);
        s.completed.store(true, std::memory_order_release);
        s.completed.notify_all();
    }

    // Writes the queue's completed entries from its front.
    void write_ready() {
        while (!pending_.empty() &&
               (pending_.front().held || pending_.front().stretch->completed.load(std::memory_order_acquire)))
            write_front();
    }

    void write_all_pending() {
        while (!pending_.empty()) write_front();
    }

    // Writes the queue's first entry; a stretch not completed yet is completed here when no
    // worker has taken it, else awaited.
    void write_front() {
        const InOrderTime in_order(*this);  // (called from emit() inside the line's own decoding too)
        Pending p = std::move(pending_.front());
        pending_.pop_front();
        if (p.held) {
            write({p.held->data.get(), p.held->size});
            held_bytes_ -= p.held->size;
            p.held->size = 0;
            spare_held_.push_back(std::move(p.held));
            return;
        }
        Slot& s = *p.stretch;
        complete(s, false);
        await_flag(s.completed);
        if (!s.resolved_ok) throw Error("invalid compressed data");
        const std::span<const u8> resolved = s.resolved(), plain = s.marked.plain_bytes();
        crc_ = crc32_combine(crc_, s.crc, resolved.size() + plain.size());
        if (!resolved.empty()) sink_(resolved);
        if (!plain.empty()) sink_(plain);
        worker_seconds_ += s.complete_seconds;
        s.marked.marked.release_unused_pages();
        s.marked.plain.release_unused_pages();
        free_slots_.push_back(std::move(p.stretch));
    }

    std::unique_ptr<HeldBytes> take_held() {
        if (spare_held_.empty()) return std::make_unique<HeldBytes>();
        std::unique_ptr<HeldBytes> h = std::move(spare_held_.back());
        spare_held_.pop_back();
        return h;
    }

    // Takes region @p r's slot out, for reuse: now, or, when a worker still has it (asked to
    // stop at its next block end), once the worker is done with it.
    void recycle(std::size_t r) {
        const auto it = slots_.find(r);
        if (it == slots_.end()) return;
        Slot& s = *it->second;
        {
            std::lock_guard lock(returned_mutex_);
            if (s.done.load(std::memory_order_acquire)) {
                free_slots_.push_back(std::move(it->second));
            } else {
                s.orphaned = true;
                s.stop.store(true, std::memory_order_relaxed);
            }
        }
        slots_.erase(it);
    }

    // A slot to decode a region into: a free one, or a new one while there are fewer than
    // max_slots_ (the memory bound: being decoded, met and written, or orphaned, all count).
    SlotPtr take_slot() {
        if (free_slots_.empty()) {
            std::lock_guard lock(returned_mutex_);
            free_slots_.insert(free_slots_.end(), std::make_move_iterator(returned_.begin()),
                               std::make_move_iterator(returned_.end()));
            returned_.clear();
        }
        if (free_slots_.empty()) {
            if (slots_made_ >= max_slots_) return nullptr;
            ++slots_made_;
            return std::make_shared<Slot>();
        }
        SlotPtr slot = std::move(free_slots_.back());
        free_slots_.pop_back();
        slot->done.store(false, std::memory_order_relaxed);
        slot->stop.store(false, std::memory_order_relaxed);
        slot->phase.store(Slot::kWaiting, std::memory_order_relaxed);
        slot->start_hint.store(kUnknown, std::memory_order_relaxed);
        slot->start_bit.reset();
        slot->orphaned = false;
        return slot;
    }

    // A region's output as the file so far suggests, with a quarter more: what a worker's
    // buffers are sized for (growing them later means copying into memory touched for the
    // first time).
    std::size_t expected_region_output() const {
        return std::size_t(std::min(double(region_bytes_) * ratio() * 1.25, double(std::size_t(1) << 40)));
    }

    // Output over input: as decoded so far, or at the start as the trailer says.
    double ratio() const {
        const std::uint64_t in = line_.bit_position() / 8;
        return in > (std::uint64_t(64) << 10) ? double(out_bytes_) / double(in) : ratio_;
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
        // Data so compressible that a worker's stretch would be a sliver of its region (runs
        // of 1000:1) is the main line's alone.
        const std::size_t expected = expected_region_output();
        if (expected / kSkipFactor > stretch_output_) return;
        while (running_.load(std::memory_order_acquire) < workers_ && next_ < regions_) {
            SlotPtr slot = take_slot();
            if (!slot) break;
            slot->region = next_++;
            // The workers take `workers_` regions in a row, then the line's next `gap_`
            // are skipped: a worker that finishes early goes on past them.
            if (++group_ == std::size_t(workers_)) {
                group_ = 0;
                gap_ = gap();
                stats_.gap = gap_;
                next_ += gap_;
            }
            slot->expected_output = std::min(std::max(expected, region_bytes_), region_max_output_);
            slots_[slot->region] = slot;
            running_.fetch_add(1, std::memory_order_acq_rel);
            ++stats_.speculated;
            runner_.decode([this, slot] { work(slot); });
        }
    }

    void work(const SlotPtr& slot) {
        Slot& s = *slot;
        int waiting = Slot::kWaiting;
        if (s.phase.compare_exchange_strong(waiting, Slot::kRunning, std::memory_order_acq_rel)) {
            const auto t0 = Clock::now();
            const std::uint64_t cpu0 = core::thread_cpu_ns();
            std::unique_ptr<DeflateDecoder> decoder = take_decoder();
            try {
                const std::uint64_t begin = std::uint64_t(s.region) * region_bytes_ * 8;
                const std::uint64_t end =
                    std::min<std::uint64_t>(begin + region_bytes_ * 8, std::uint64_t(in_.size()) * 8);
                DecodeLimits limits;
                limits.stop_after_output = stretch_output_;
                limits.max_output = region_max_output_;
                limits.expected_output = s.expected_output;
                limits.first_block_decoded = &s.start_hint;
                limits.stop_requested = &s.stop;
                s.start_bit = markers_ ? speculate(*decoder, in_, begin, end, limits, s.marked)
                                       : speculate(*decoder, in_, begin, end, limits, s.tokens);
            } catch (...) {
                s.start_bit.reset();  // the main line decodes the region itself
            }
            give_decoder(std::move(decoder));
            s.seconds = seconds_since(t0);
            workers_ns_.fetch_add(core::thread_cpu_ns() - cpu0, std::memory_order_relaxed);
        }
        s.start_hint.store(s.start_bit ? *s.start_bit : kNoStart, std::memory_order_release);
        s.start_hint.notify_all();
        {
            std::lock_guard lock(returned_mutex_);
            s.done.store(true, std::memory_order_release);
            if (s.orphaned) returned_.push_back(slot);
        }
        s.done.notify_all();
        running_.fetch_sub(1, std::memory_order_acq_rel);
    }

    // The workers' decoders (their tables: 22 KiB each), one per region being decoded.
    std::unique_ptr<DeflateDecoder> take_decoder() {
        {
            std::lock_guard lock(decoders_mutex_);
            if (!decoders_.empty()) {
                std::unique_ptr<DeflateDecoder> d = std::move(decoders_.back());
                decoders_.pop_back();
                return d;
            }
        }
        return std::make_unique<DeflateDecoder>();
    }
    void give_decoder(std::unique_ptr<DeflateDecoder> d) {
        std::lock_guard lock(decoders_mutex_);
        decoders_.push_back(std::move(d));
    }

    // Gives back the input pages the main line has passed (less 64 KiB: a restart may
    // read a few bytes before its position); no worker reads behind the line.
    void release_behind() {
        const std::size_t pos = std::size_t(line_.bit_position() / 8);
        release_.upto(pos > (64u << 10) ? pos - (64u << 10) : 0);
    }

    std::span<const u8> in_;
    const Sink& sink_;
    const ParallelLineOptions o_;
    const int workers_;
    const bool markers_;
    const double ratio_;  // output bytes per input byte, as the last trailer suggests
    const std::size_t region_bytes_;
    const std::size_t stretch_output_;  // symbols after which a worker's stretch ends at a block end
    const std::size_t region_max_output_ = stretch_output_ + stretch_output_ / 4;  // past it, it fails
    const std::size_t max_slots_ = std::size_t(workers_) + 1;  // slots made at most
    ParallelLineStats& stats_;
    const std::size_t regions_;
    io::ReleaseBehind release_;
    RegionRunner& runner_;

    IsalLine line_;
    Window window_;              // the member's last 32 KiB: a stretch's history, ISA-L's restart
    io::LargeArray<u8> replay_;  // a token stretch's window and bytes, reused
    std::vector<SlotPtr> free_slots_;  // slots to reuse
    std::size_t slots_made_ = 0;
    std::mutex returned_mutex_;        // guards Slot::orphaned, returned_ and free_slots_'s intake
    std::vector<SlotPtr> returned_;    // orphaned slots their workers are done with
    std::deque<Pending> pending_;      // output not written yet, in order
    std::vector<std::unique_ptr<HeldBytes>> spare_held_;
    std::size_t held_bytes_ = 0;  // the line's own output held back in pending_
    std::uint32_t crc_ = 0;    // of the member's bytes written so far
    std::uint64_t isize_ = 0;  // the member's bytes decoded so far
    std::uint64_t out_bytes_ = 0;
    std::uint64_t members_ = 0;
    std::uint64_t own_decode_ns_ = 0;    // the line's own decoding, in-order work inside it included
    std::uint64_t own_in_order_ns_ = 0;  // of which in-order work (InOrderTime)
    bool in_own_ = false;                // the line is decoding a region itself
    bool timing_in_order_ = false;       // an InOrderTime is counting
    // Speeds, per bit of input: the main line's own decoding, the workers' stretches and
    // the line's time on them.
    std::uint64_t main_bits_ = 0, worker_bits_ = 0;
    double main_seconds_ = 0, worker_seconds_ = 0, replay_seconds_ = 0;
    std::size_t gap_ = 1;
    double gap_credit_ = 0;
    std::size_t group_ = 0;  // regions given to workers since the last gap

    std::map<std::size_t, SlotPtr> slots_;
    std::size_t next_ = 0;
    std::atomic<int> running_{0};  // regions being decoded by workers
    std::atomic<std::uint64_t> workers_ns_{0};
    std::mutex decoders_mutex_;
    std::vector<std::unique_ptr<DeflateDecoder>> decoders_;
};

}  // namespace

Result parallel_gunzip(std::span<const std::uint8_t> input, const Sink& sink, const ParallelLineOptions& options,
                       RegionRunner& runner, ParallelLineStats* stats) {
    ParallelLineStats local;
    MainLine line(input, sink, options, runner, stats ? *stats : local);
    return line.run();
}

}  // namespace flowdeflate::inflate
