// parallel.cpp - see parallel.hpp.
#include "core/parallel.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <cassert>
#include <deque>
#include <sys/mman.h>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/block_split.hpp"
#include "core/clock.hpp"
#include "core/framing.hpp"
#include "core/input_stream.hpp"
#include "core/parser_fastest.hpp"
#include "core/parser_lazy.hpp"

namespace flowdeflate::core {
namespace {

// ---- track items ------------------------------------------------------------------
// One u32 per literal or match:
//   bit 31      the step ends after this item
//   bits 24-30  the step's mask: bit m - 3 is set when the step is what a parse with
//               min match length m makes there (levels 2-9; 0 at level 1, where steps do
//               not depend on it).  See HcMatchFinder::SharedMatch::step().
//   bits 15-23  match length, or 0 for a literal
//   bits 0-14   match offset - 1
constexpr u32 kStepEnd = 1u << 31;
constexpr u32 kMaskShift = 24;
constexpr u32 kLenShift = 15;

[[gnu::always_inline]] inline u32 item_len(u32 item) { return (item >> kLenShift) & 0x1FF; }
[[gnu::always_inline]] inline u32 item_offset(u32 item) { return (item & 0x7FFF) + 1; }
/// Does a step mask (or the AND of several) hold @p min_len?
[[gnu::always_inline]] inline bool mask_fits(u32 mask, u32 min_len) { return (mask >> (min_len - kMinMatchLen)) & 1; }
/// Is the step that begins with @p item the one a parse with @p min_len makes?
[[gnu::always_inline]] inline bool item_fits(u32 item, u32 min_len) { return mask_fits(item >> kMaskShift, min_len); }
[[gnu::always_inline]] inline u32 match_item(u32 len, u32 offset) { return (len << kLenShift) | (offset - 1); }

// One item at @p p into @p out (literal(p) or match(p, len, offset)); returns the position
// after it.
template <class Out>
[[gnu::always_inline]] inline const u8* apply_item(u32 item, const u8* p, Out& out) {
    const u32 len = item_len(item);
    if (len == 0) {
        out.literal(p);
        return p + 1;
    }
    out.match(p, len, item_offset(item));
    return p + len;
}

// Appends items without a capacity check per item: the buffer is sized up front for the
// worst case, one item per byte of the track's extent (a step that starts before `stop`
// covers at most 258 + 2 bytes); only the pages written become resident.  A match always
// ends its step; a literal ends it unless the lazy look-ahead deferred it.
struct ItemWriter {
    ItemBuffer& items;
    u32* first;
    u32* next;
    ItemWriter(ItemBuffer& v, const u8* begin, const u8* stop) : items(v) {
        v.clear();
        v.reserve(std::size_t(stop - begin) + 2 * kMaxMatchLen + 64);
        first = next = v.data();
    }
    [[gnu::always_inline]] void literal(u32 mask, bool step_end) {
        *next++ = (mask << kMaskShift) | (step_end ? kStepEnd : 0);
    }
    [[gnu::always_inline]] void match(u32 mask, u32 len, u32 offset) {
        *next++ = kStepEnd | (mask << kMaskShift) | match_item(len, offset);
    }
    /// Ends the step at the last item (a parse that only says where steps begin).
    void end_step() {
        if (next != first) next[-1] |= kStepEnd;
    }
    void finish() { items.set_size(std::size_t(next - first)); }
};

// The mask of a step parsed with @p min_len that records no other (TrackPlan::step_masks).
[[gnu::always_inline]] inline u32 own_min_len_mask(u32 min_len) { return 1u << (min_len - kMinMatchLen); }

// Records a parse as a track: the Trace of the history track, the Out of level 1's.
// kMasks: with each step's mask from the search (TrackPlan::step_masks), else with its own
// min_len alone.
template <bool kMasks>
struct TrackRecorder : NoTrace {
    static constexpr bool kSteps = true;
    static constexpr bool kStepMask = kMasks;
    ItemWriter out;
    const u8* stop_at;
    const u8* end;  // position after the last item
    u32 mask = 0;   // the step's (0 at level 1)

    TrackRecorder(ItemBuffer& items, const u8* begin, const u8* stop)
        : out(items, begin, stop), stop_at(stop), end(begin) {}
    bool stop(const u8* p) const { return p >= stop_at; }
    [[gnu::always_inline]] void on_step_begin(const u8*, u32 min_len) {
        out.end_step();
        if constexpr (!kMasks) mask = min_len ? own_min_len_mask(min_len) : 0;
    }
    [[gnu::always_inline]] void on_step_mask(u32 m, const HcMatchFinder::SharedMatch&) { mask = m; }
    [[gnu::always_inline]] void on_literal(const u8* p) {
        out.literal(mask, false);
        end = p + 1;
    }
    [[gnu::always_inline]] void on_match(const u8* p, u32 len, u32 offset) {
        out.match(mask, len, offset);
        end = p + len;
    }
    [[gnu::always_inline]] void literal(const u8* p) { on_literal(p); }
    [[gnu::always_inline]] void match(const u8* p, u32 len, u32 offset) { on_match(p, len, offset); }
    void finish() {
        out.end_step();
        out.finish();
    }
};

// The parses with other min match lengths beside the history track (Track::alts).  Where
// a track step's mask leaves out one of TrackPlan::alt_min_lens, the parse with that
// min_len makes another step there; it is replayed from that step on, a few positions
// behind the track, over the track's own match finder (HcMatchFinder::search_past()),
// until it begins a step where the track begins one (from there on the two are the same
// parse again, as far as the masks hold) or gives up: after kMaxBytes, near the end of
// the data, or where the finder no longer knows its past.  Its completed steps go to the
// track as an Alt.  A state machine replaying LazyParser::step().  On text a branch
// begins every ~15 bytes and lasts ~3, and the resolver takes about one in twenty (where
// the true min_len is the branch's): the search costs +18-35% at level 6, so branches are
// searched only where the resolver is the bottleneck (Resolver::plan()).  Armed
// (TrackPlan::arm_margin, arm()), only min_lens that another block start could have
// chosen branch off: +9-28% at level 6, +4-9% at level 9.
template <LazyMode kMode>
class AltParses {
public:
    static constexpr std::size_t kMaxAlts = 4;
    static constexpr std::ptrdiff_t kMaxBytes = 4096;
    static constexpr u32 kFar3 = LazyParser<kMode>::kFar3;

    u32 idle = 0;    ///< mask bits of the min_lens not branched off now
    u32 active = 0;  ///< how many are
    u32 armed = ~0u;  ///< mask bits of the min_lens that may branch off now (see arm())

    /// The track chose its min_len from @p num_used literals: from here on, branch only to
    /// the min_lens a count within TrackPlan::arm_margin of it gives.  The true parse
    /// counts over another stretch (its block began elsewhere), but on the same data:
    /// where the track's count is far from a threshold of choose_min_match_len(), the
    /// true min_len is nearly always the track's own, and a branch there would never be
    /// taken.
    void arm(u32 num_used, u32 depth) {
        if (margin_ != TrackPlan::kAnyMargin) armed = min_lens_near(num_used, depth, margin_);
    }

    void setup(Track& t, const TrackPlan& plan, const LevelParams& params, const u8* in_begin,
               const u8* data_end) {
        const std::vector<u32>& min_lens = plan.alt_min_lens;
        margin_ = plan.arm_margin;
        track_ = &t;
        armed = ~0u;
        n_ = 0;
        for (u32 m : min_lens)
            if (n_ < kMaxAlts && m >= kMinMatchLen && m <= kMinMatchLen + 6) { alts_[n_] = Alt{}; alts_[n_++].min_len = m; }
        idle = 0;
        for (std::size_t i = 0; i < n_; ++i) idle |= own_min_len_mask(alts_[i].min_len);
        depth_ = params.max_search_depth;
        nice_ = std::min(params.nice_match_length, kMaxMatchLen);
        in_begin_ = in_begin;
        last_ = data_end - std::ptrdiff_t(2 * kMaxMatchLen);
    }
    void watch(const HcMatchFinder& mf) { mf_ = &mf; }

    /// The track's step at @p at has @p mask and found @p found there: those of the idle
    /// min_lens it leaves out branch off there, taking their first step from the same
    /// search where it says enough (it walked the chain, or min_len <= 4 needs no walk).
    void branch(const u8* at, u32 mask, const HcMatchFinder::SharedMatch& found) {
        if (at <= in_begin_ || at >= last_) return;
        for (std::size_t i = 0; i < n_; ++i) {
            Alt& a = alts_[i];
            const u32 bit = own_min_len_mask(a.min_len);
            if (!(idle & armed & bit) || (mask & bit)) continue;
            idle &= ~bit;
            active++;
            a.active = true;
            a.phase = 0;
            a.next = at;
            a.items.clear();
            a.done = 0;
            track_->alts.push_back(Track::Alt{u32(at - track_->begin), u32(at - track_->begin), 0, 0, a.min_len});
            a.alt = track_->alts.size() - 1;
            if (found.chain_walked || a.min_len < 5) take(a, at, found);
        }
    }

    /// The track is at a step start @p now (the finder holds the positions before it):
    /// every branch goes as far as the finder allows, and those that begin a step at now
    /// meet the track.
    void advance(const u8* now) {
        for (std::size_t i = 0; i < n_; ++i) {
            Alt& a = alts_[i];
            while (a.active) {
                if (a.phase == 0 && a.next >= now) {
                    if (a.next == now) end(a);
                    break;
                }
                if (a.next > now) break;
                if (a.next - (track_->begin + track_->alts[a.alt].begin) > kMaxBytes || a.next >= last_ ||
                    !position(a, now)) {
                    end(a);
                    break;
                }
            }
        }
    }

    /// The track ends: every branch keeps its completed steps.
    void finish() {
        for (std::size_t i = 0; i < n_; ++i)
            if (alts_[i].active) end(alts_[i]);
        std::erase_if(track_->alts, [](const Track::Alt& a) { return a.items == 0; });
    }

private:
    struct Alt {
        u32 min_len = 0;
        bool active = false;
        u8 phase = 0;  // 0: step start; 1, 2: the lazy look-ahead at +1, +2
        const u8* next = nullptr;
        const u8* match_pos = nullptr;
        u32 cur_len = 0, cur_offset = 0;
        u32 mask = 0;
        std::size_t alt = 0;   // its Track::Alt
        std::vector<u32> items;  // its items (branches run at once: each its own)
        std::size_t done = 0;    // ... of its completed steps
    };

    void item(Alt& a, u32 v) { a.items.push_back(v); }
    void literal(Alt& a, bool step_end) { item(a, (a.mask << kMaskShift) | (step_end ? kStepEnd : 0)); }
    // The step ends at @p end (with the held match when @p with_match).
    void finish_step(Alt& a, const u8* end, bool with_match) {
        if (with_match) item(a, kStepEnd | (a.mask << kMaskShift) | match_item(a.cur_len, a.cur_offset));
        track_->alts[a.alt].end = u32(end - track_->begin);
        a.done = a.items.size();
        a.phase = 0;
        a.next = end;
    }
    void hold(Alt& a, const u8* p) {
        if (a.cur_len >= nice_) {
            finish_step(a, a.match_pos + a.cur_len, true);
        } else {
            a.phase = 1;
            a.next = p;
        }
    }
    // The branch's search at a.next; false: gave up.
    bool position(Alt& a, const u8* now) {
        HcMatchFinder::SharedMatch found;
        const u32 depth = a.phase == 0 ? depth_ : a.phase == 1 ? depth_ >> 1 : depth_ >> 2;
        if (!mf_->search_past(a.next, now, kMaxMatchLen, nice_, depth, found)) return false;
        take(a, a.next, found);
        return true;
    }
    // What the branch's step does with @p found, its search at @p q.
    void take(Alt& a, const u8* q, const HcMatchFinder::SharedMatch& found) {
        u32 offset = 0;
        if (a.phase == 0) {
            const u32 len = found.step(a.min_len, kFar3, offset, [&](u32 mask) { a.mask = mask; });
            if (len == 0) {
                literal(a, true);
                finish_step(a, q + 1, false);
                return;
            }
            a.match_pos = q;
            a.cur_len = len;
            a.cur_offset = offset;
            if constexpr (kMode == LazyMode::greedy)
                finish_step(a, q + len, true);
            else
                hold(a, q + 1);
            return;
        }
        const bool first = a.phase == 1;
        const u32 next_len = found.result(a.cur_len - 1, offset);
        if (lazy_prefers_next(a.cur_len, a.cur_offset, next_len, offset, first ? 2 : 6)) {
            if (!first) literal(a, false);
            literal(a, false);
            a.match_pos = q;
            a.cur_len = next_len;
            a.cur_offset = offset;
            hold(a, q + 1);
        } else if (first && kMode == LazyMode::lazy2) {
            a.phase = 2;
            a.next = q + 1;
        } else {
            finish_step(a, a.match_pos + a.cur_len, true);
        }
    }
    // Stops a branch: its completed steps go to the track (a branch without any is
    // dropped at finish()), its unfinished step is dropped.
    void end(Alt& a) {
        Track::Alt& t = track_->alts[a.alt];
        t.first_item = u32(track_->alt_items.size());
        t.items = u32(a.done);
        track_->alt_items.append(a.items.data(), a.done);
        a.active = false;
        active--;
        idle |= own_min_len_mask(a.min_len);
    }

    Track* track_ = nullptr;
    const HcMatchFinder* mf_ = nullptr;
    Alt alts_[kMaxAlts];
    std::size_t n_ = 0;
    u32 depth_ = 0, nice_ = 0;
    u32 margin_ = TrackPlan::kAnyMargin;
    const u8* in_begin_ = nullptr;
    const u8* last_ = nullptr;
};

// The history track's recorder at levels 2-9: also marks its strides (Track::LazyStride)
// from the parse's own block-split statistics, which count every item: the observations
// of a stride are the difference of the running totals at its two ends.  (Counting steps
// here, not in the parse's locals, cost the search 5%.)
template <bool kMasks, LazyMode kMode, bool kBranch = false>
struct LazyTrackRecorder : TrackRecorder<kMasks> {
    static_assert(kMasks || !kBranch, "branches follow the step masks");
    static constexpr bool kBranches = kBranch;
    using Base = TrackRecorder<kMasks>;
    static constexpr std::size_t kStrideSteps = Track::kLazyStride;
    std::vector<Track::LazyStride>& strides;
    const u8* begin;
    u32 base[BlockSplitStats::kTypes] = {};  // totals of the track's finished blocks
    u32 last[BlockSplitStats::kTypes] = {};  // running totals at the last stride's end
    std::size_t base_matches = 0, last_matches = 0;
    u32 last_item = 0;
    // The AND of the masks of the stride's steps so far, each folded in at the next step's
    // begin (a pass over the stride's items at its end cost the search 1%).
    u32 stride_mask = HcMatchFinder::kAllMinLens;

    LazyTrackRecorder(Track& t, const u8* stop) : Base(t.items, t.begin, stop), strides(t.strides), begin(t.begin) {
        strides.clear();
        this->mask = HcMatchFinder::kAllMinLens;  // no step before the first
    }
    void stride_end(const u8* p, const BlockSplitStats& split, std::size_t matches) {
        Track::LazyStride s;
        for (u32 type = 0; type < BlockSplitStats::kTypes; ++type) {
            const u32 total = base[type] + split.observations[type] + split.new_observations[type];
            s.observations[type] = u8(total - last[type]);
            last[type] = total;
        }
        s.matches = u16(base_matches + matches - last_matches);
        last_matches = base_matches + matches;
        s.item_end = u32(this->out.next - this->out.first);
        s.offset = u32(p - begin);
        s.mask = s.item_end - last_item <= Track::kMaxStrideItems ? u8(stride_mask) : 0;
        stride_mask = HcMatchFinder::kAllMinLens;
        last_item = s.item_end;
        strides.push_back(s);
    }
    // The branches (kBranch): see AltParses; without them, nothing.
    struct NoBranches {
        void watch(const HcMatchFinder&) {}
    };
    [[no_unique_address]] std::conditional_t<kBranch, AltParses<kMode>, NoBranches> alts;
    const u8* step_at = nullptr;
    void watch(const HcMatchFinder& mf) { alts.watch(mf); }
    [[gnu::always_inline]] void on_step_begin(const u8* p, u32 min_len) {
        stride_mask &= this->mask;  // the step before this one's
        Base::on_step_begin(p, min_len);
        if constexpr (kBranch) {
            step_at = p;
            if (alts.active) [[unlikely]]
                alts.advance(p);
        }
    }
    [[gnu::always_inline]] void on_step_mask(u32 m, const HcMatchFinder::SharedMatch& found) {
        Base::on_step_mask(m, found);
        if constexpr (kBranch)
            if (~m & alts.idle & alts.armed) [[unlikely]]
                alts.branch(step_at, m, found);
    }
    void on_used_literals(u32 num_used, u32 depth) {
        if constexpr (kBranch) alts.arm(num_used, depth);
    }
    void finish() {
        Base::finish();
        if constexpr (kBranch) alts.finish();
    }
    void on_block_end(const BlockSplitStats& split, std::size_t matches) {
        for (u32 type = 0; type < BlockSplitStats::kTypes; ++type)
            base[type] += split.observations[type] + split.new_observations[type];
        base_matches += matches;
    }
};

// libdeflate's block logic between two steps (levels 1-9): where a block ends and, at the
// lazy levels, which min match length the next step uses.  The resolver runs it for the
// true parse; the history track runs it as if a block began at its chunk's start.
template <class Parser>
struct BlockLogic {
    static constexpr bool kFastest = std::is_same_v<Parser, FastestParser>;
    static constexpr bool kRecalc =
        std::is_same_v<Parser, LazyParser<LazyMode::lazy>> || std::is_same_v<Parser, LazyParser<LazyMode::lazy2>>;

    const u8* block_begin = nullptr;
    const u8* in_end = nullptr;  ///< the end assumed for this block (see input_stream.hpp)
    const u8* max_block_end = nullptr;
    const u8* next_recalc = nullptr;
    u32 min_len = 0;
    u32 num_matches = 0;
    u32 seq_limit = 0;
    BlockSplitStats split{};

    void begin(const u8* q, const u8* end, u32 depth) {
        block_begin = q;
        in_end = end;
        num_matches = 0;
        if constexpr (kFastest) {
            max_block_end = choose_max_block_end(q, end, kFastSoftMaxBlockLength);
            seq_limit = kFastSeqStoreLength;
        } else {
            max_block_end = choose_max_block_end(q, end, kSoftMaxBlockLength);
            seq_limit = kSeqStoreLength;
            next_recalc = q + std::min<std::size_t>(end - q, 10000);
            split.reset();
            min_len = calculate_min_match_len(q, max_block_end - q, depth);
        }
    }
    /// Before each step at @p q: the lazy levels recalculate min_len from the block's
    /// literal counts @p litlen now and then.
    void before_step(const u8* q, const u32* litlen, u32 depth) {
        if constexpr (kRecalc) {
            if (q >= next_recalc) {
                min_len = recalculate_min_match_len(litlen, depth);
                next_recalc += std::min<std::size_t>(in_end - next_recalc, q - block_begin);
            }
        }
    }
    [[gnu::always_inline]] void literal(u8 c) {
        if constexpr (!kFastest) split.observe_literal(c);
    }
    [[gnu::always_inline]] void match(u32 len) {
        if constexpr (!kFastest) split.observe_match(len);
        ++num_matches;
    }
    /// After a step that ended at @p q: does the block go on?
    [[nodiscard]] bool continues(const u8* q) {
        bool more = q < max_block_end && num_matches < seq_limit;
        if constexpr (!kFastest) more = more && !split.should_end_block(block_begin, q, in_end);
        return more;
    }
};

// Pages past what a track wrote go back to the system: a recycled item buffer must not
// keep the largest extent it ever had resident.
void release_unwritten_pages(ItemBuffer& v) {
    const auto page = std::uintptr_t(4096);
    const auto from = (reinterpret_cast<std::uintptr_t>(v.data() + v.size()) + page - 1) & ~(page - 1);
    const auto to = reinterpret_cast<std::uintptr_t>(v.data() + v.capacity()) & ~(page - 1);
    if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

// Storage of finished tracks (item buffers, branch records), for the next ones: a few are
// kept with their capacity, the rest are freed.
template <class V>
class Pool {
public:
    static Pool& instance() {
        static Pool pool;
        return pool;
    }
    V take() {
        std::lock_guard lock(mutex_);
        if (free_.empty()) return {};
        V v = std::move(free_.back());
        free_.pop_back();
        return v;
    }
    void give(V&& v) {
        if (v.capacity() == 0) return;
        if constexpr (std::is_same_v<V, ItemBuffer>) release_unwritten_pages(v);
        v.clear();
        std::lock_guard lock(mutex_);
        if (free_.size() < kMaxFree) free_.push_back(std::move(v));
    }

private:
    static constexpr std::size_t kMaxFree = 4;  // resident memory, kept for speed
    std::mutex mutex_;
    std::vector<V> free_;
};
using ItemPool = Pool<ItemBuffer>;
using AltPool = Pool<std::vector<Track::Alt>>;
}  // namespace

Track::Track() : items(ItemPool::instance().take()) {}
Track::~Track() {
    ItemPool::instance().give(std::move(items));
    ItemPool::instance().give(std::move(alt_items));
    AltPool::instance().give(std::move(alts));
}


std::size_t chunk_overlap(std::size_t chunk_size) { return std::clamp<std::size_t>(chunk_size / 16, 512, 4096); }

std::size_t chunk_lookahead(std::size_t chunk_size) {
    return chunk_overlap(chunk_size) + 2 * kMaxMatchLen + kStreamLookahead;
}

Chunker::Chunker(const u8* in_begin, std::size_t chunk_size)
    : chunk_size_(chunk_size), lookahead_(chunk_lookahead(chunk_size)) {
    if (chunk_size < kMinChunkSize) throw Error("chunk size must be at least 4096 bytes");
    next_.in_begin = in_begin;
    next_.end = in_begin;
}

ChunkJob Chunker::next(const u8* data_end, bool eof) {
    ChunkJob job = next_;
    job.begin = next_.end;
    job.data_end = data_end;
    job.eof = eof;
    // Offsets by sizes, never past data_end: an empty buffer's pointers may be null.
    job.end = job.begin + std::min(chunk_size_, std::size_t(data_end - job.begin));
    job.stop = job.end + std::min(chunk_overlap(chunk_size_), std::size_t(data_end - job.end));
    done_ = eof && job.end == data_end;
    next_.index = job.index + 1;
    next_.end = job.end;
    return job;
}

std::optional<ChunkJob> Chunker::next_from(const u8* present, bool ended) {
    const std::size_t have = std::size_t(present - next_.end);
    if (ended && have <= need_bytes()) return next(present, true);
    if (have < need_bytes()) return std::nullopt;
    return next(need(), false);
}

// ---- Search -------------------------------------------------------------------------

struct ChunkSearcher::Impl {
    LevelParams params;
    std::unique_ptr<FastestParser> fastest;
    std::unique_ptr<LazyParser<LazyMode::greedy>> greedy;
    std::unique_ptr<LazyParser<LazyMode::lazy>> lazy;
    std::unique_ptr<LazyParser<LazyMode::lazy2>> lazy2;

    explicit Impl(int level) : params(LevelParams::for_level(level)) {
        if (!level_is_parallel(level)) throw Error("the parallel search covers levels 1-9");
        if (level == 1)
            fastest = std::make_unique<FastestParser>(params);
        else if (level <= 4)
            greedy = std::make_unique<LazyParser<LazyMode::greedy>>(params);
        else if (level <= 7)
            lazy = std::make_unique<LazyParser<LazyMode::lazy>>(params);
        else
            lazy2 = std::make_unique<LazyParser<LazyMode::lazy2>>(params);
    }

    Track& new_track(ChunkTracks& out, const ChunkJob& job) {
        Track& t = out.tracks.emplace_back();
        t.begin = job.begin;
        return t;
    }

    void search_fastest(const ChunkJob& job, ChunkTracks& out) {
        Track& t = new_track(out, job);
        TrackRecorder<false> rec(t.items, job.begin, job.stop);
        u32 hash;
        fastest->prime(job.in_begin, job.begin, hash);
        u32 max_len = kMaxMatchLen, nice_len = std::min(fastest->nice_len(), kMaxMatchLen);
        const u8* p = job.begin;
        while (p < job.stop) {
            rec.on_step_begin(p, 0);
            p = fastest->step(p, job.data_end, max_len, nice_len, hash, rec);
        }
        rec.finish();
        t.end = p;
        // The stride marks, in a pass of their own: counting inside the loop above made
        // the search 15% slower.  (Branch-free sums here: the same pass through
        // apply_item() cost another 12%.)
        const std::size_t n = t.items.size();
        t.marks.clear();
        t.marks.reserve(n / Track::kStride);
        u32 offset = 0, matches = 0;
        for (std::size_t i = 0; i + Track::kStride <= n; i += Track::kStride) {
            for (std::size_t j = i; j < i + Track::kStride; ++j) {
                const u32 len = item_len(t.items[j]);
                offset += len ? len : 1;
                matches += len != 0;
            }
            t.marks.push_back({offset, matches});
        }
    }

    template <class Parser>
    void search_lazy(Parser& parser, const ChunkJob& job, const TrackPlan& plan, ChunkTracks& out) {
        out.step_masks = plan.step_masks;
        out.branches = plan.step_masks && !plan.alt_min_lens.empty();
        if (out.branches)
            search_one<true, true>(parser, job, plan, out);
        else if (plan.step_masks)
            search_one<true, false>(parser, job, plan, out);
        else
            search_one<false, false>(parser, job, plan, out);
    }

    template <bool kMasks, bool kBranch, class Parser>
    void search_one(Parser& parser, const ChunkJob& job, const TrackPlan& plan, ChunkTracks& out) {
        Track& t = new_track(out, job);
        LazyTrackRecorder<kMasks, Parser::kMode, kBranch> rec(t, job.stop);
        if constexpr (kBranch) {
            t.alts = AltPool::instance().take();
            t.alt_items = ItemPool::instance().take();
            rec.alts.setup(t, plan, params, job.in_begin, job.data_end);
        }
        parser.search(job.in_begin, job.begin, job.data_end, rec);
        rec.finish();
        t.end = rec.end;
    }
};

ChunkSearcher::ChunkSearcher(int level) : impl_(std::make_unique<Impl>(level)) {}
ChunkSearcher::~ChunkSearcher() = default;

std::unique_ptr<ChunkTracks> ChunkSearcher::search(const ChunkJob& job, const TrackPlan& plan) {
    auto out = std::make_unique<ChunkTracks>();
    out->job = job;
    const std::uint64_t t0 = thread_cpu_ns();
    if (job.begin < job.stop && plan.history) {
        if (impl_->fastest)
            impl_->search_fastest(job, *out);
        else if (impl_->greedy)
            impl_->search_lazy(*impl_->greedy, job, plan, *out);
        else if (impl_->lazy)
            impl_->search_lazy(*impl_->lazy, job, plan, *out);
        else
            impl_->search_lazy(*impl_->lazy2, job, plan, *out);
    }
    out->search_ns = thread_cpu_ns() - t0;
    return out;
}

// ---- Resolve ------------------------------------------------------------------------

namespace {

// A place in a track or in one of its branches (Track::Alt), always at a step start.
struct Cursor {
    const Track* track;  ///< null: a branch (no strides)
    const u32* items;
    std::size_t n;
    std::size_t i = 0;
    const u8* p;

    static Cursor of(const Track& t) { return Cursor{&t, t.items.data(), t.items.size(), 0, t.begin}; }
    [[nodiscard]] bool at_end() const { return i >= n; }
    [[nodiscard]] bool fits(u32 min_len) const { return item_fits(items[i], min_len); }
    void skip_step() {
        for (;;) {
            const u32 item = items[i++];
            const u32 len = item_len(item);
            p += len ? len : 1;
            if (item & kStepEnd) break;
        }
    }
    /// Moves to the first step at or past @p target; true when one starts exactly there.
    bool seek(const u8* target) {
        while (p < target && !at_end()) skip_step();
        return p == target && !at_end();
    }
};

struct Source {
    std::shared_ptr<const ChunkTracks> chunk;
    std::vector<Cursor> cursors;
    Cursor branch{};            ///< the branch taken last (history track's Track::alts)
    std::size_t next_alt = 0;   ///< the first of them not behind the resolver
};

class ResolverBase {
public:
    virtual ~ResolverBase() = default;
    virtual void resolve(std::shared_ptr<const ChunkTracks> tracks, const Resolver::Emit& emit) = 0;
    [[nodiscard]] virtual TrackPlan plan() const = 0;
    ResolverStats stats{};
};

template <class Parser>
class ResolverCore final : public ResolverBase {
    static constexpr bool kFastest = std::is_same_v<Parser, FastestParser>;

public:
    ResolverCore(const LevelParams& params, TrackMode mode, int workers)
        : params_(params),
          mode_(mode),
          workers_(std::max(1, workers)),
          alone_(mode == TrackMode::automatic && workers_ == 1),
          repairer_(params) {}

    void resolve(std::shared_ptr<const ChunkTracks> tracks, const Resolver::Emit& emit) override {
        const std::uint64_t t0 = thread_cpu_ns();
        emit_ns_ = 0;
        const ChunkJob& job = tracks->job;
        if (in_begin_ == nullptr) {
            in_begin_ = job.in_begin;
            pos_ = job.in_begin;
        }
        data_end_ = job.data_end;
        eof_ = job.eof;
        stats.chunks++;
        if (job.index == 0 && eof_ && std::size_t(data_end_ - in_begin_) <= params_.max_passthrough_size) {
            // Tiny input: libdeflate stores it as it is.
            auto block = std::make_unique<ResolvedBlock>();
            block->data = {in_begin_, std::size_t(data_end_ - in_begin_)};
            block->is_final = true;
            block->stored_only = true;
            pos_ = data_end_;
            stats.blocks++;
            emit(std::move(block));
            return;
        }
        Source& src = sources_.emplace_back();
        src.chunk = tracks;
        for (const Track& t : tracks->tracks) src.cursors.push_back(Cursor::of(t));
        if (tracks->branches) stats.branched_chunks++;
        if (tracks->step_masks) stats.masked_chunks++;

        const u8* const limit = eof_ && job.end == data_end_ ? data_end_ : job.end;
        chunk_missed_ = false;
        while (pos_ < limit) {
            if (!in_block_) begin_block();
            if (alone_ ? parse_run(limit) : follow_run(limit)) {
                if (!blk_.continues(pos_)) end_block(emit);
                continue;
            }
            const u32 min_len_before = blk_.min_len;
            if constexpr (kCountLiterals)
                if (!alone_ && pos_ >= blk_.next_recalc) count_literals_to(pos_);
            blk_.before_step(pos_, freqs_.litlen, params_.max_search_depth);
            if (blk_.min_len != min_len_before) note_min_len(blk_.min_len);
            take_step();
            if (!blk_.continues(pos_)) end_block(emit);
        }
        drop_old_sources();
        clean_chunks_ = chunk_missed_ ? 0 : clean_chunks_ + 1;
        weigh_step_masks(*tracks);
        const std::uint64_t own_ns = thread_cpu_ns() - t0 - emit_ns_;
        stats.resolve_ns += own_ns;
        // Load of the resolver against the search, per track, smoothed over ~8 chunks.
        if (!tracks->tracks.empty()) {
            const double search_per_track = double(tracks->search_ns) / double(tracks->tracks.size());
            resolver_load_ += (double(own_ns) / std::max(1.0, search_per_track) - resolver_load_) / 8;
        }
    }

    // automatic: branches (TrackPlan::alt_min_lens) only after a min-length miss (until 8
    // clean chunks; a branch taken is a miss it caught), and only while the serial
    // resolver, repairs included, is the bottleneck: while it needs more time per chunk
    // than the workers need to search one (search time / workers).  With few workers the
    // search is the bottleneck, and a repair costs less than the branches every chunk
    // would (they cost the search +18-35% at level 6; most are never taken, because the
    // true min_len is the history track's there); with many, repairs would hold everybody
    // up.  Where the resolver only just bounds the run (less than kAnyBranchBound), the
    // branches are armed only near a threshold of the min_len choice (kArmMargin): the
    // search saves more than the few repairs they leave cost.  all: always branches, at
    // every step whose mask leaves a min_len out (fewest repairs).
    //
    // With one worker nothing runs beside the resolver, so a search ahead only doubles the
    // work where it misses: the resolver parses every step itself (alone_), and chunks are
    // not searched at all.
    //
    // The arming margin, measured with `--tracks all -p2 -v` on the four corpus files
    // (margin: repairs at levels 6 / 9, search against no margin): 4: 0.03-0.74% /
    // 0.02-0.51%, search -10 to -22%; 8: 0.02-0.31% / 0.02-0.25%, -4 to -21% (no margin:
    // 0.002-0.15% / 0.005-0.13%).  At 16 workers (`-6 -p16 -v` on packages.txt, two runs
    // each) the resolver bounds the run 2.2-fold with branches everywhere (80-81 ms against
    // 586-592 ms of search over 16) and 2.5-fold with margin 8 (84-88 against 554-556):
    // there the repairs matter, not the search.
    static constexpr u32 kArmMargin = 8;
    static constexpr double kAnyBranchBound = 1.5;

    [[nodiscard]] TrackPlan plan() const override {
        TrackPlan plan;
        if (alone_) {
            plan.history = false;
            return plan;
        }
        if constexpr (kFastest) return plan;
        const bool missing = clean_chunks_ < kCleanChunksForHistoryOnly;
        const double bound = resolver_load_ * workers_;  // > 1: the resolver bounds the run
        const bool branches = mode_ == TrackMode::all || (mode_ == TrackMode::automatic && missing && bound > 1.0);
        // With more than two workers the serial repairs bound the run, and the masks (0.6-3%
        // of the search) stay on: switched by the repairs they leave, they came and went
        // with a lag of threads + 4 chunks (the plans made before a chunk resolves), and
        // every true block start in an unmasked chunk cost a ~10 KB repair (libLLVM.so at
        // -p16: 2.2% of the input repaired, packages.txt 3.3%).
        plan.step_masks = branches || masked_chunks_left_ > 0 || workers_ > 2;
        if (branches) {
            plan.alt_min_lens = recent_min_lens_;
            // Where the resolver only just bounds the run, branches near a min_len threshold
            // only (kArmMargin): the search saves more than the few repairs they leave cost.
            if (mode_ == TrackMode::automatic && bound < kAnyBranchBound) plan.arm_margin = kArmMargin;
        }
        return plan;
    }

private:
    // Step masks (TrackPlan::step_masks) cost the search 0.6-3% and save the
    // repairs of min_len flips: at each true block start whose min_len differs from the
    // history track's there (3/4 or 4/5 in text), ~10 KB parsed again, serially; with
    // masks only the steps a min_len really changes (12% of the input -> 1.4% on the Linux
    // tar at level 6).  Asked for, for the next kMaskedChunks chunks, when a chunk's
    // min_len repairs reach kMaskPressure / workers of its bytes: without masks their
    // bytes, with masks their count times kBytesPerMaskedRepair (a measured 50-125 bytes
    // that would have been repaired per repair left; a branch taken counts as the repair
    // it saved, so that masks stay on under branches).  A repaired byte costs about twice
    // a searched one (priming), so on 2 cores masks pay from ~2.5% repairs; with more
    // workers the search is spread and the serial repairs hold everybody up, so sooner.
    static constexpr double kMaskPressure = 0.04;
    static constexpr double kBytesPerMaskedRepair = 64;
    static constexpr int kMaskedChunks = 8;
    void weigh_step_masks(const ChunkTracks& tracks) {
        const double pressure = tracks.step_masks
                                    ? double(chunk_min_len_repairs_ + chunk_branches_) * kBytesPerMaskedRepair
                                    : double(chunk_min_len_repair_bytes_);
        const double bytes = double(tracks.job.end - tracks.job.begin) / workers_;
        if (pressure > kMaskPressure * bytes)
            masked_chunks_left_ = kMaskedChunks;
        else if (masked_chunks_left_ > 0)
            masked_chunks_left_--;
        chunk_min_len_repairs_ = chunk_min_len_repair_bytes_ = chunk_branches_ = 0;
    }

    static constexpr u32 kCleanChunksForHistoryOnly = 8;
    static constexpr std::size_t kRecentMinLens = 2;

    // What a step's items feed besides the block logic.  With one worker the resolver
    // parses every block itself and builds its sequences and symbol counts as it goes
    // (SeqSink).  Otherwise the block goes to Code as runs of items (nothing: NoSink),
    // recording the items of the steps it repairs (RepairRecorder); the literal counts
    // that the min_len recalculation reads are counted from the runs when it is due
    // (count_literals_to()).
    static constexpr bool kCountLiterals = BlockLogic<Parser>::kRecalc;
    struct SeqSink {
        SequenceBuilder& b;
        [[gnu::always_inline]] void literal(const u8* p) { b.literal(*p); }
        [[gnu::always_inline]] void match(const u8*, u32 len, u32 offset) { b.match(len, offset); }
    };
    struct NoSink {
        [[gnu::always_inline]] void literal(const u8*) {}
        [[gnu::always_inline]] void match(const u8*, u32, u32) {}
    };
    struct RepairRecorder {
        std::vector<u32>& items;
        void literal(const u8*) { items.push_back(0); }
        void match(const u8*, u32 len, u32 offset) { items.push_back(match_item(len, offset)); }
    };
    // Items of one step, from a track or from a repair, into the block: its block logic
    // (the resolver's own, or a local copy; see apply_steps()) and a sink.
    template <class Sink>
    struct Apply {
        BlockLogic<Parser>& blk;
        Sink& sink;
        [[gnu::always_inline]] void literal(const u8* p) {
            blk.literal(*p);
            sink.literal(p);
        }
        [[gnu::always_inline]] void match(const u8* p, u32 len, u32 offset) {
            blk.match(len);
            sink.match(p, len, offset);
        }
    };

    // The block's next items: @p count items of @p base from @p first (base null: of the
    // block's repair items), at @p at; @p owner keeps them alive until Code is done.
    // (The owner is taken as it is: converting it to shared_ptr<const void> on every call
    // made a temporary whose atomic count updates, on a control block the search threads
    // also touch, cost 4% of all samples at level 6.)
    template <class Owner>
    void add_run(const u32* base, std::size_t first, std::size_t count, const u8* at, const Owner& owner) {
        if (count == 0) return;
        if (!runs_.empty() && runs_.back().base == base && runs_.back().first + runs_.back().count == first) {
            runs_.back().count += count;
        } else {
            runs_.push_back(PendingRun{base, first, count, at});
            if constexpr (!std::is_same_v<Owner, std::nullptr_t>)
                if (owner && (keep_.empty() || keep_.back().get() != owner.get())) keep_.push_back(owner);
        }
    }

    void begin_block() {
        // The reader hands out a chunk only with a block's look-ahead of input behind it
        // (or with the end known), so every decision below is the whole-input one.
        assert(eof_ || std::size_t(data_end_ - pos_) >= kStreamLookahead);
        blk_.begin(pos_, data_end_, params_.max_search_depth);
        if constexpr (!kFastest) note_min_len(blk_.min_len);
        if (alone_) {
            b_.begin(seqs_.get(), &freqs_);
        } else {
            if constexpr (kCountLiterals) std::memset(freqs_.litlen, 0, sizeof(freqs_.litlen));
            runs_.clear();
            keep_.clear();
            counted_ = LiteralCursor{0, 0, pos_, 0};
        }
        block_begin_ = pos_;
        in_block_ = true;
    }

    void end_block(const Resolver::Emit& emit) {
        auto block = std::make_unique<ResolvedBlock>();
        block->index = next_block_index_++;
        block->data = {block_begin_, std::size_t(pos_ - block_begin_)};
        if (alone_) {
            freqs_.litlen[kEndOfBlock]++;
            block->seqs.assign(seqs_.get(), seqs_.get() + b_.num_matches() + 1);
            block->freqs = freqs_;
        } else {
            // The repair items stop growing here (later repairs get a new vector), so
            // pointers into them stay valid.
            block->runs.reserve(runs_.size());
            for (const PendingRun& r : runs_)
                block->runs.push_back(ItemRun{(r.base ? r.base : repair_items_->data()) + r.first, r.count, r.at});
            if constexpr (kCountLiterals) {
                std::memcpy(block->freqs.litlen, freqs_.litlen, kNumLiterals * sizeof(u32));
                block->literals_counted = counted_.items;
            }
            if (repair_items_) keep_.push_back(std::move(repair_items_));
            repair_items_.reset();
            block->keep = std::move(keep_);
            keep_.clear();
            runs_.clear();
        }
        block->is_final = eof_ && pos_ == data_end_;
        in_block_ = false;
        stats.blocks++;
        const std::uint64_t t0 = thread_cpu_ns();
        emit(std::move(block));
        emit_ns_ += thread_cpu_ns() - t0;  // the resolver's own time excludes what emit does
    }

    [[nodiscard]] bool fits(const Cursor& c) const {
        if constexpr (kFastest) return true;
        return c.fits(blk_.min_len);
    }

    void take_step() {
        if (alone_) {
            parse_step();
            return;
        }
        if (following_ != nullptr && following_src_ != &sources_.back() && pos_ >= sources_.back().chunk->job.begin) {
            // Move on to the newest chunk's tracks as soon as one meets us.
            for (Cursor& c : sources_.back().cursors) {
                if (c.seek(pos_) && fits(c)) {
                    follow(c, sources_.back());
                    drop_old_sources();
                    break;
                }
            }
        }
        if (following_ != nullptr && following_->p == pos_ && !following_->at_end() && fits(*following_)) {
            apply(*following_);
            return;
        }
        bool some_track_here = false;
        for (auto s = sources_.rbegin(); s != sources_.rend(); ++s) {
            for (Cursor& c : s->cursors) {
                if (!c.seek(pos_)) continue;
                some_track_here = true;
                if (fits(c)) {
                    follow(c, *s);
                    apply(c);
                    return;
                }
            }
        }
        if constexpr (!kFastest) {
            for (auto s = sources_.rbegin(); s != sources_.rend(); ++s) {
                if (Cursor* c = branch_at(*s)) {
                    stats.branches++;
                    chunk_branches_++;
                    chunk_missed_ = true;  // a miss the branch caught: keep branching
                    follow(*c, *s);
                    apply(*c);
                    return;
                }
            }
        }
        following_ = nullptr;
        repair_step(some_track_here);
    }

    // A branch of @p s's history track that begins at pos_ with a step that fits.
    Cursor* branch_at(Source& s) {
        if (s.chunk->tracks.empty()) return nullptr;
        const Track& t = s.chunk->tracks.front();
        if (t.alts.empty() || pos_ < t.begin) return nullptr;
        const u32 at = u32(pos_ - t.begin);
        std::size_t k = s.next_alt;
        while (k < t.alts.size() && t.alts[k].begin < at) ++k;
        s.next_alt = k;
        for (; k < t.alts.size() && t.alts[k].begin == at; ++k) {
            const Track::Alt& a = t.alts[k];
            if (!item_fits(t.alt_items[a.first_item], blk_.min_len)) continue;
            s.branch = Cursor{nullptr, t.alt_items.data() + a.first_item, a.items, 0, pos_};
            return &s.branch;
        }
        return nullptr;
    }

    // Many steps in one tight loop, up to the next place where the block logic looks at
    // more than counters: the block's maximum end, the sequence store's limit, a
    // block-split check (due every 512 observations), a min_len recalculation, or (when
    // following) a step parsed with another min_len or where the newest chunk's tracks
    // may take over.  Between two such places take_step() and BlockLogic::continues()
    // would decide exactly as these loops do, one step at a time.
    [[nodiscard]] const u8* run_stop(const u8* limit) const {
        const u8* stop = std::min(limit, blk_.max_block_end);
        if constexpr (BlockLogic<Parser>::kRecalc) stop = std::min(stop, blk_.next_recalc);
        return stop;
    }
    [[nodiscard]] static bool run_goes_on(const BlockLogic<Parser>& blk, const u8* p, const u8* stop) {
        // (Not merely 512 new observations: until the block is 5000 bytes long the check
        // does nothing, and stopping there sent every step of that stretch down the slow
        // path, one take_step() at a time.)
        if constexpr (!kFastest)
            if (blk.split.ready_to_check(blk.block_begin, p, blk.in_end)) return false;
        return p < stop && blk.num_matches < blk.seq_limit;
    }

    // The followed track's steps.
    bool follow_run(const u8* limit) {
        Cursor* c = following_;
        if (c == nullptr || c->p != pos_ || c->at_end()) return false;
        const u8* stop = run_stop(limit);
        if (following_src_ != &sources_.back()) stop = std::min(stop, sources_.back().chunk->job.begin);
        const u8* const from = pos_;
        apply_steps(*c, stop);
        return pos_ != from;
    }

    // One worker: the resolver's own steps, as many as the run may take (run_goes_on()),
    // by the parser's own step loop (parse_steps(): the same as its sequential run(),
    // with the hashes, the sequence builder and the split statistics in locals).  The
    // resolver's loop of step() calls before kept the hash, the finder's cutoff and base
    // on the stack (perf annotate) and cost `-p1` 4-5% at level 1.
    bool parse_run(const u8* limit) {
        const u8* const stop = run_stop(limit);
        if (!run_goes_on(blk_, pos_, stop)) return false;
        parse_step();  // the first step primes the match finder if need be
        if (run_goes_on(blk_, pos_, stop)) {
            const Sequence* const seq_limit = b_.first() + blk_.seq_limit;
            if constexpr (kFastest)
                pos_ = repairer_.parse_steps(pos_, stop, blk_.in_end, seq_limit, b_, repair_hash_);
            else
                pos_ = repairer_.parse_steps(pos_, stop, blk_.block_begin, blk_.in_end, blk_.min_len, seq_limit, b_,
                                             blk_.split, repair_hashes_);
            // (The block logic's literal and match observations are the parser's own.)
            blk_.num_matches = u32(b_.num_matches());
        }
        repaired_to_ = pos_;
        return true;
    }

    void follow(Cursor& c, Source& s) {
        following_ = &c;
        following_src_ = &s;
        repairing_ = false;
        stats.syncs++;
    }

    // The items of one step at items[i], applied at p; both move on past the step.
    template <class Out>
    [[gnu::always_inline]] static void apply_step(const u32* items, std::size_t& i, const u8*& p, Out& out) {
        for (;;) {
            const u32 item = items[i++];
            p = apply_item(item, p, out);
            if (item & kStepEnd) break;
        }
    }

    // Counts the literals of the block's runs up to @p target (a step position the runs
    // reach), for the min_len recalculation; Code counts the rest (literals_counted).
    void count_literals_to(const u8* target) {
        // (The last run may still grow: add_run() appends to it, so the cursor stays on
        // it at its end until a new run follows.)
        LiteralCursor& c = counted_;
        while (c.p < target && c.run < runs_.size()) {
            const PendingRun& r = runs_[c.run];
            if (c.item == r.count) {
                if (c.run + 1 == runs_.size()) break;
                c.run++;
                c.item = 0;
                assert(runs_[c.run].at == c.p);
                continue;
            }
            const u32* const items = (r.base ? r.base : repair_items_->data()) + r.first;
            std::size_t j = c.item;
            const u8* p = c.p;
            for (; j < r.count && p < target; ++j) {
                const u32 len = item_len(items[j]);
                if (len == 0) freqs_.litlen[*p]++;
                p += len ? len : 1;
            }
            c.items += j - c.item;
            c.p = p;
            c.item = j;
        }
    }

    // One step of @p c (the followed cursor), into the resolver's own state.
    void apply(Cursor& c) {
        NoSink counts;
        Apply<NoSink> out{blk_, counts};
        const std::size_t first = c.i;
        const u8* const at = pos_;
        apply_step(c.items, c.i, pos_, out);
        add_run(c.items, first, c.i - first, at, following_src_->chunk);
        c.p = pos_;
        stats.steps_followed++;
    }

    // As many steps of @p c as the run may take (run_goes_on(), each parsed with the
    // block's min_len).  The block's state is copied into locals for the loop: stores
    // into the symbol counts would otherwise make the compiler reload it after every item
    // (perf annotate put the resolver's time on those loads); level 1's resolver time
    // fell by a quarter (23-27%).
    void apply_steps(Cursor& c, const u8* stop) {
        BlockLogic<Parser> blk = blk_;
        NoSink counts;
        Apply<NoSink> out{blk, counts};
        const u32* const items = c.items;
        const std::size_t n = c.n;
        std::size_t i = c.i;
        const u8* p = pos_;
        std::uint64_t steps = 0;
        if constexpr (kFastest)
            pass_strides(*c.track, blk, i, p, stop, steps);
        else
            if (c.track) pass_lazy_strides(*c.track, blk, i, p, stop, steps, out);
        while (i < n && run_goes_on(blk, p, stop)) {
            if constexpr (!kFastest)
                if (!item_fits(items[i], blk.min_len)) break;
            apply_step(items, i, p, out);
            ++steps;
        }
        blk_ = blk;
        add_run(items, c.i, i - c.i, pos_, following_src_->chunk);
        pos_ = p;
        c.i = i;
        c.p = p;
        stats.steps_followed += steps;
    }

    // Level 1: one item per step, and the block logic only counts matches and looks at
    // the position.  Walk to the next stride mark, then pass whole strides while the
    // block would still go on after the last of their steps (both only grow, so it goes
    // on after every step before it too); apply_steps() walks the rest.
    static void pass_strides(const Track& t, BlockLogic<Parser>& blk, std::size_t& i, const u8*& p, const u8* stop,
                             std::uint64_t& steps) {
        const std::size_t marks = t.marks.size();
        if (i / Track::kStride >= marks) return;
        NoSink none;
        Apply<NoSink> out{blk, none};
        const u32* const items = t.items.data();
        while (i % Track::kStride != 0) {
            if (!run_goes_on(blk, p, stop)) return;
            apply_step(items, i, p, out);
            ++steps;
        }
        for (std::size_t k = i / Track::kStride; k < marks; ++k) {
            const Track::Mark& before_mark = k == 0 ? Track::Mark{0, 0} : t.marks[k - 1];
            const Track::Mark& mark = t.marks[k];
            const u8* const q = t.begin + mark.offset;
            const u32 matches = blk.num_matches + (mark.matches - before_mark.matches);
            if (!(q < stop && matches < blk.seq_limit)) return;
            assert(p == t.begin + before_mark.offset);
            p = q;
            blk.num_matches = matches;
            i += Track::kStride;
            steps += Track::kStride;
        }
    }

    // Levels 2-9: the same over the track's LazyStrides.  A stride goes in one go when
    // every step of it fits the block's min_len (its mask) and none of them could stop
    // the run (run_goes_on()): it ends by the run's stop and below the sequence limit,
    // and no block-split check can fall at any of its step ends (fewer than 512 new
    // observations by its end, or the block shorter than 5000 bytes by its end, or less
    // than 5000 bytes of input left from its start).  Then the stride's observation
    // counts go into the statistics at once.  First walks to a stride's start.
    template <class Out>
    static void pass_lazy_strides(const Track& t, BlockLogic<Parser>& blk, std::size_t& i, const u8*& p,
                                  const u8* stop, std::uint64_t& steps, Out& out) {
        const std::vector<Track::LazyStride>& strides = t.strides;
        std::size_t k = std::size_t(
            std::upper_bound(strides.begin(), strides.end(), i,
                             [](std::size_t v, const Track::LazyStride& s) { return v < s.item_end; }) -
            strides.begin());
        if (k == strides.size()) return;
        const u32* const items = t.items.data();
        if (i != (k == 0 ? 0 : strides[k - 1].item_end)) {  // inside stride k: walk to its end
            while (i < strides[k].item_end) {
                if (!run_goes_on(blk, p, stop) || !item_fits(items[i], blk.min_len)) return;
                apply_step(items, i, p, out);
                ++steps;
            }
            ++k;
        }
        BlockSplitStats& split = blk.split;
        for (; k < strides.size(); ++k) {
            const Track::LazyStride& s = strides[k];
            const u8* const q = t.begin + s.offset;
            const u32 observations = s.item_end - u32(i);
            const bool no_check = split.num_new_observations + observations < BlockSplitStats::kObservationsPerCheck ||
                                  q - blk.block_begin < std::ptrdiff_t(kMinBlockLength) ||
                                  blk.in_end - p < std::ptrdiff_t(kMinBlockLength);
            if (!mask_fits(s.mask, blk.min_len) || q > stop ||
                blk.num_matches + s.matches >= blk.seq_limit || !no_check)
                return;
            for (u32 type = 0; type < BlockSplitStats::kTypes; ++type)
                split.new_observations[type] += s.observations[type];
            split.num_new_observations += observations;
            blk.num_matches += s.matches;
            p = q;
            i = s.item_end;
            steps += Track::kLazyStride;
        }
    }

    void repair_step(bool some_track_here) {
        if (!repairing_) {
            stats.repairs++;
            repair_for_min_len_ = some_track_here;
            if (some_track_here) {
                stats.repairs_min_len++;
                chunk_min_len_repairs_++;
                chunk_missed_ = true;
            } else {
                stats.repairs_phase++;
            }
        }
        const u8* const before = pos_;
        parse_step();
        stats.repair_bytes += std::uint64_t(pos_ - before);
        if (repair_for_min_len_) chunk_min_len_repair_bytes_ += std::uint64_t(pos_ - before);
    }

    // One step parsed by the resolver itself, exactly as the sequential parser would.
    void parse_step() {
        if (!repairing_) {
            repairing_ = true;
            if constexpr (kFastest) {
                repairer_.prime(in_begin_, pos_, repair_hash_);
            } else {
                // Since steps take a track's step wherever its mask allows, repairs are
                // mostly a step or two; priming 32 KiB for each would cost more than the
                // steps.  Near the last repair, the finder catches up instead.
                if (repaired_to_ != nullptr && repaired_to_ <= pos_ && std::size_t(pos_ - repaired_to_) <= kCatchUpMax &&
                    blk_.in_end - pos_ > kCatchUpEndMargin)
                    repairer_.catch_up(repaired_to_, pos_, blk_.in_end, repair_hashes_);
                else
                    repairer_.prime(in_begin_, pos_, repair_hashes_);
            }
        }
        if (alone_) {
            SeqSink seqs{b_};
            Apply<SeqSink> out{blk_, seqs};
            repair_parse(out);
            return;
        }
        if (!repair_items_) repair_items_ = std::make_shared<std::vector<u32>>();
        const std::size_t first = repair_items_->size();
        const u8* const at = pos_;
        RepairRecorder rec{*repair_items_};
        Apply<RepairRecorder> out{blk_, rec};
        repair_parse(out);
        repaired_to_ = pos_;
        add_run(nullptr, first, repair_items_->size() - first, at, nullptr);
    }

    // One step at pos_ with the resolver's own match finder.
    template <class Out>
    [[gnu::always_inline]] void repair_parse(Out& out) {
        if constexpr (kFastest) {
            u32 max_len = kMaxMatchLen, nice_len = std::min(repairer_.nice_len(), kMaxMatchLen);
            pos_ = repairer_.step(pos_, blk_.in_end, max_len, nice_len, repair_hash_, out);
        } else {
            pos_ = repairer_.step(pos_, blk_.in_end, blk_.min_len, repair_hashes_, out);
        }
    }

    void note_min_len(u32 m) {
        auto it = std::find(recent_min_lens_.begin(), recent_min_lens_.end(), m);
        if (it == recent_min_lens_.begin() && it != recent_min_lens_.end()) return;
        if (it != recent_min_lens_.end()) recent_min_lens_.erase(it);
        recent_min_lens_.insert(recent_min_lens_.begin(), m);
        if (recent_min_lens_.size() > kRecentMinLens) recent_min_lens_.pop_back();
    }

    // Older chunks go once the resolver follows a newer one, or is past all their tracks.
    void drop_old_sources() {
        while (sources_.size() > 1) {
            Source& front = sources_.front();
            bool needed = following_src_ == &front;
            for (const Cursor& c : front.cursors) needed = needed || c.track->end > pos_;
            if (needed && following_src_ != &sources_.back()) break;
            if (following_src_ == &front) {
                following_ = nullptr;
                following_src_ = nullptr;
            }
            sources_.pop_front();
        }
    }

    LevelParams params_;
    TrackMode mode_;
    int workers_;
    bool alone_;  ///< one worker, automatic tracks: no search ahead, the resolver parses
    Parser repairer_;
    u32 repair_hashes_[2] = {0, 0};
    u32 repair_hash_ = 0;
    bool repairing_ = false;
    // Where the repairer's match finder stands after its last step (levels 2-9, not
    // alone_): a later repair within kCatchUpMax inserts the positions between instead
    // of priming 32 KiB afresh (priming also resets the tables: 256 KiB).
    const u8* repaired_to_ = nullptr;
    bool repair_for_min_len_ = false;  ///< the current repair's cause
    std::uint64_t chunk_min_len_repairs_ = 0, chunk_min_len_repair_bytes_ = 0;  ///< this chunk's
    std::uint64_t chunk_branches_ = 0;  ///< branches the resolver took in this chunk
    int masked_chunks_left_ = 0;
    static constexpr std::size_t kCatchUpMax = 40 * 1024;
    static constexpr std::ptrdiff_t kCatchUpEndMargin = 4 * kMaxMatchLen;

    const u8* in_begin_ = nullptr;
    const u8* pos_ = nullptr;
    const u8* data_end_ = nullptr;
    bool eof_ = false;

    bool in_block_ = false;
    const u8* block_begin_ = nullptr;
    BlockLogic<Parser> blk_;
    SymbolFreqs freqs_{};
    std::unique_ptr<Sequence[]> seqs_{new Sequence[kSeqStoreLength + 1]};
    SequenceBuilder b_;
    // Runs of items: the block so far, when it goes to Code as items (not alone_).
    struct PendingRun {
        const u32* base;  ///< a track's items, or null: repair_items_
        std::size_t first, count;
        const u8* at;
    };
    std::vector<PendingRun> runs_;
    // How far the block's literals are counted (kCountLiterals): the next item to count,
    // items[item] of runs_[run], at p; items: items counted so far.
    struct LiteralCursor {
        std::size_t run = 0, item = 0;
        const u8* p = nullptr;
        std::size_t items = 0;
    };
    LiteralCursor counted_;
    std::vector<std::shared_ptr<const void>> keep_;
    std::shared_ptr<std::vector<u32>> repair_items_;  ///< this block's repaired steps
    std::size_t next_block_index_ = 0;

    std::deque<Source> sources_;
    Cursor* following_ = nullptr;
    Source* following_src_ = nullptr;

    std::vector<u32> recent_min_lens_;
    std::uint64_t emit_ns_ = 0;
    double resolver_load_ = 0;  ///< resolver time / search time per track, per chunk
    u32 clean_chunks_ = 0;
    bool chunk_missed_ = false;
};

}  // namespace

struct Resolver::Impl {
    std::unique_ptr<ResolverBase> core;
};

Resolver::Resolver(int level, TrackMode mode, int workers) : impl_(std::make_unique<Impl>()) {
    const LevelParams params = LevelParams::for_level(level);
    if (level == 1)
        impl_->core = std::make_unique<ResolverCore<FastestParser>>(params, mode, workers);
    else if (level >= 2 && level <= 4)
        impl_->core = std::make_unique<ResolverCore<LazyParser<LazyMode::greedy>>>(params, mode, workers);
    else if (level >= 5 && level <= 7)
        impl_->core = std::make_unique<ResolverCore<LazyParser<LazyMode::lazy>>>(params, mode, workers);
    else if (level >= 8 && level <= 9)
        impl_->core = std::make_unique<ResolverCore<LazyParser<LazyMode::lazy2>>>(params, mode, workers);
    else
        throw Error("the parallel resolver covers levels 1-9");
}
Resolver::~Resolver() = default;

void Resolver::resolve(std::shared_ptr<const ChunkTracks> tracks, const Emit& emit) {
    impl_->core->resolve(std::move(tracks), emit);
}
TrackPlan Resolver::plan() const { return impl_->core->plan(); }
const ResolverStats& Resolver::stats() const { return impl_->core->stats; }

// ---- Code ---------------------------------------------------------------------------

namespace {

// Sequences and symbol counts of @p count items at @p p (both move on), the run of
// literals kept in a register.  kCountLiterals false: the resolver counted them already.
template <bool kCountLiterals>
[[gnu::always_inline]] inline void build_run(const u32* items, std::size_t count, const u8*& p, Sequence*& seq,
                                             SymbolFreqs& freqs, u32& litrun) {
    u32 lits = litrun;
    Sequence* s = seq;
    const u8* q = p;
    for (const u32 *item = items, *end = items + count; item != end; ++item) {
        const u32 len = item_len(*item);
        if (len == 0) {
            if constexpr (kCountLiterals) freqs.litlen[*q]++;
            ++lits;
            ++q;
        } else {
            put_match(*s++, freqs, lits, len, item_offset(*item));
            lits = 0;
            q += len;
        }
    }
    litrun = lits;
    seq = s;
    p = q;
}

// A block's sequences and symbol counts from its item runs, whose first @p counted items'
// literals the resolver counted.
void build_sequences(const std::vector<ItemRun>& runs, std::size_t counted, Sequence* seq, SymbolFreqs& freqs) {
    u32 litrun = 0;
    for (const ItemRun& run : runs) {
        const std::size_t done = std::min(counted, run.count);
        counted -= done;
        const u8* p = run.at;
        if (done) build_run<false>(run.items, done, p, seq, freqs, litrun);
        if (done < run.count) build_run<true>(run.items + done, run.count - done, p, seq, freqs, litrun);
    }
    seq->litrunlen_and_length = litrun;
    freqs.litlen[kEndOfBlock]++;
}

}  // namespace

BlockEncoder::BlockEncoder() : coder_(std::make_unique<BlockCoder>()), codes_(std::make_unique<HuffmanCodes>()) {}
BlockEncoder::~BlockEncoder() = default;

void BlockEncoder::encode(const ResolvedBlock& block, CodedBlock& out) {
    out.index = block.index;
    out.data = block.data;
    out.is_final = block.is_final;
    out.stored_only = block.stored_only;
    if (block.stored_only) return;
    out.costs = prepare(block);
    const BlockType type = out.costs.prefer_static() ? BlockType::static_huffman : BlockType::dynamic_huffman;
    const std::size_t capacity = (out.costs.coded_cost() + 7) / 8 + 16;
    out.bits.resize(capacity);
    BitWriter w(out.bits.data(), out.bits.data() + capacity);
    emit(w, type, block);
    w.flush();
    out.nbits = std::size_t(w.next - out.bits.data()) * 8 + w.bitcount;
    w.finish();
}

CodedCosts BlockEncoder::prepare(const ResolvedBlock& block) {
    const Sequence* seqs = block.seqs.data();
    const SymbolFreqs* freqs = &block.freqs;
    if (block.seqs.empty()) {
        if (!seqs_) {
            seqs_.reset(new Sequence[kSeqStoreLength + 1]);
            freqs_ = std::make_unique<SymbolFreqs>();
        }
        freqs_->clear();
        if (block.literals_counted) std::memcpy(freqs_->litlen, block.freqs.litlen, kNumLiterals * sizeof(u32));
        build_sequences(block.runs, block.literals_counted, seqs_.get(), *freqs_);
        seqs = seqs_.get();
        freqs = freqs_.get();
    }
    prepared_ = seqs;
    BlockCoder::make_codes(*freqs, *codes_);
    return coder_->prepare(*freqs, *codes_);
}

void BlockEncoder::emit(BitWriter& w, BlockType type, const ResolvedBlock& block) {
    coder_->emit_coded(w, type, *codes_, prepared_, block.data, block.is_final);
}

// ---- Assemble -----------------------------------------------------------------------

void append_bits(BitWriter& w, const u8* bits, std::size_t nbits) {
    constexpr u32 kStep = 48;  // with at most 7 bits pending, 48 more fit the 64-bit buffer
    while (nbits >= kStep) {
        u64 v;
        std::memcpy(&v, bits, 8);
        w.add(v & ((u64(1) << kStep) - 1), kStep);
        w.flush();
        bits += kStep / 8;
        nbits -= kStep;
    }
    if (nbits) {
        u64 v;
        std::memcpy(&v, bits, 8);
        w.add(v & ((u64(1) << nbits) - 1), u32(nbits));
        w.flush();
    }
}

StreamAssembler::StreamAssembler(SegmentedOutput& out, Format format, int level) : out_(out), format_(format) {
    u8 header[kGzipHeaderSize];
    if (format == Format::gzip) {
        gzip_header(level, header);
        out_.put_bytes(header, kGzipHeaderSize);
    } else if (format == Format::zlib) {
        zlib_header(level, header);
        out_.put_bytes(header, kZlibHeaderSize);
    }
}

void StreamAssembler::append(const CodedBlock& block) {
    BitWriter& w = out_.writer();
    const u32 length = u32(block.data.size());
    if (block.stored_only || choose_block_type(block.costs, w.bitcount, length) == BlockType::stored)
        emit_stored(w, block.data, block.is_final);
    else
        append_bits(w, block.bits.data(), block.nbits);
    account(block.data);
}

void StreamAssembler::append(const ResolvedBlock& block, BlockEncoder& encoder) {
    BitWriter& w = out_.writer();
    const u32 length = u32(block.data.size());
    if (block.stored_only) {
        emit_stored(w, block.data, block.is_final);
    } else {
        const BlockType type = choose_block_type(encoder.prepare(block), w.bitcount, length);
        if (type == BlockType::stored)
            emit_stored(w, block.data, block.is_final);
        else
            encoder.emit(w, type, block);
    }
    account(block.data);
}

void StreamAssembler::account(std::span<const u8> data) {
    if (format_ == Format::gzip)
        crc_ = u32(libdeflate_crc32(crc_, data.data(), data.size()));
    else if (format_ == Format::zlib)
        adler_ = u32(libdeflate_adler32(adler_, data.data(), data.size()));
    size_ += data.size();
    out_.maybe_hand_off();
}

void StreamAssembler::finish() {
    out_.writer().finish();
    u8 trailer[kGzipFooterSize];
    if (format_ == Format::gzip) {
        put_le32(trailer, crc_);
        put_le32(trailer + 4, u32(size_));
        out_.put_bytes(trailer, kGzipFooterSize);
    } else if (format_ == Format::zlib) {
        put_be32(trailer, adler_);
        out_.put_bytes(trailer, kZlibFooterSize);
    }
    out_.finish();
}

// ---- all of it, one after another ---------------------------------------------------

std::vector<u8> compress_chunked(std::span<const u8> in, int level, Format format, const ChunkedOptions& options,
                                 ResolverStats* stats) {
    if (options.chunk_size < kMinChunkSize) throw Error("chunk size must be at least 4096 bytes");
    struct Collect final : SegmentSink {
        std::vector<u8> bytes;
        void write(std::vector<u8>&& segment) override { bytes.insert(bytes.end(), segment.begin(), segment.end()); }
    } sink;
    SegmentedOutput out(sink, 1u << 20);
    StreamAssembler assembler(out, format, level);
    ChunkSearcher searcher(level);
    Resolver resolver(level, options.tracks, options.workers);
    BlockEncoder encoder;
    CodedBlock coded;
    const u8* const end = in.data() + in.size();
    Chunker chunker(in.data(), options.chunk_size);
    do {
        // What a reader would know when it hands the chunk out.
        const ChunkJob job = *chunker.next_from(end, true);
        TrackPlan plan = resolver.plan();
        if (options.arm_margin) plan.arm_margin = *options.arm_margin;
        resolver.resolve(searcher.search(job, plan), [&](std::unique_ptr<ResolvedBlock> block) {
            encoder.encode(*block, coded);
            assembler.append(coded);
        });
    } while (!chunker.done());
    assembler.finish();
    if (stats) *stats = resolver.stats();
    return std::move(sink.bytes);
}

}  // namespace flowdeflate::core
