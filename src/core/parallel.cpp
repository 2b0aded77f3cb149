// parallel.cpp - see parallel.hpp.
#include "core/parallel.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <cassert>
#include <deque>

#include "core/block_split.hpp"
#include "core/framing.hpp"
#include "core/input_stream.hpp"
#include "core/parser_fastest.hpp"
#include "core/parser_lazy.hpp"

namespace flowdeflate::core {
namespace {

// ---- track items ------------------------------------------------------------------
// One u32 per literal or match:
//   bit 31      the step ends after this item
//   bits 24-27  the min match length the step was parsed with (0 at level 1)
//   bits 15-23  match length, or 0 for a literal
//   bits 0-14   match offset - 1
constexpr u32 kStepEnd = 1u << 31;
constexpr u32 kMinLenShift = 24;
constexpr u32 kLenShift = 15;

[[gnu::always_inline]] inline u32 item_len(u32 item) { return (item >> kLenShift) & 0x1FF; }
[[gnu::always_inline]] inline u32 item_offset(u32 item) { return (item & 0x7FFF) + 1; }
[[gnu::always_inline]] inline u32 item_min_len(u32 item) { return (item >> kMinLenShift) & 0xF; }

// Records a parse as a track: the Trace of the history track, the Out of a fixed one.
struct TrackRecorder : NoTrace {
    static constexpr bool kSteps = true;
    std::vector<u32>& items;
    const u8* stop_at;
    u32 length = 0;  // bytes covered so far
    u32 min_len = 0;

    TrackRecorder(std::vector<u32>& it, const u8* stop) : items(it), stop_at(stop) {}
    bool stop(const u8* p) const { return p >= stop_at; }
    void on_step_begin(const u8*, u32 m) {
        if (!items.empty()) items.back() |= kStepEnd;
        min_len = m;
    }
    void on_literal(const u8*) {
        items.push_back(min_len << kMinLenShift);
        length += 1;
    }
    void on_match(const u8*, u32 len, u32 offset) {
        items.push_back((min_len << kMinLenShift) | (len << kLenShift) | (offset - 1));
        length += len;
    }
    void literal(const u8* p) { on_literal(p); }
    void match(const u8* p, u32 len, u32 offset) { on_match(p, len, offset); }
    void finish() {
        if (!items.empty()) items.back() |= kStepEnd;
    }
};

std::uint64_t now_ns() {
    return std::uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

}  // namespace

std::size_t chunk_overlap(std::size_t chunk_size) { return std::clamp<std::size_t>(chunk_size / 16, 512, 4096); }

std::size_t chunk_lookahead(std::size_t chunk_size) {
    return chunk_overlap(chunk_size) + 2 * kMaxMatchLen + kStreamLookahead;
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
        t.items.reserve(std::size_t(job.stop - job.begin) / 2 + 64);
        return t;
    }

    void search_fastest(const ChunkJob& job, ChunkTracks& out) {
        Track& t = new_track(out, job);
        TrackRecorder rec(t.items, job.stop);
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
    }

    template <class Parser>
    void search_lazy(Parser& parser, const ChunkJob& job, const TrackPlan& plan, ChunkTracks& out) {
        if (plan.history) {
            Track& t = new_track(out, job);
            TrackRecorder rec(t.items, job.stop);
            parser.search(job.in_begin, job.begin, job.data_end, rec);
            rec.finish();
            t.end = job.begin + rec.length;
        }
        for (const u32 m : plan.fixed) {
            Track& t = new_track(out, job);
            TrackRecorder rec(t.items, job.stop);
            u32 hashes[2];
            parser.prime(job.in_begin, job.begin, hashes);
            const u8* p = job.begin;
            while (p < job.stop) {
                rec.on_step_begin(p, m);
                p = parser.step(p, job.data_end, m, hashes, rec);
            }
            rec.finish();
            t.end = p;
        }
    }
};

ChunkSearcher::ChunkSearcher(int level) : impl_(std::make_unique<Impl>(level)) {}
ChunkSearcher::~ChunkSearcher() = default;

std::unique_ptr<ChunkTracks> ChunkSearcher::search(const ChunkJob& job, const TrackPlan& plan) {
    auto out = std::make_unique<ChunkTracks>();
    out->job = job;
    const std::uint64_t t0 = now_ns();
    if (job.begin < job.stop) {
        if (impl_->fastest)
            impl_->search_fastest(job, *out);
        else if (impl_->greedy)
            impl_->search_lazy(*impl_->greedy, job, plan, *out);
        else if (impl_->lazy)
            impl_->search_lazy(*impl_->lazy, job, plan, *out);
        else
            impl_->search_lazy(*impl_->lazy2, job, plan, *out);
    }
    out->search_ns = now_ns() - t0;
    return out;
}

// ---- Resolve ------------------------------------------------------------------------

namespace {

// A place in a track, always at the start of a step.
struct Cursor {
    const Track* track;
    std::size_t i = 0;
    const u8* p;

    [[nodiscard]] bool at_end() const { return i >= track->items.size(); }
    [[nodiscard]] u32 min_len() const { return item_min_len(track->items[i]); }
    void skip_step() {
        for (;;) {
            const u32 item = track->items[i++];
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
    static constexpr bool kRecalc =
        std::is_same_v<Parser, LazyParser<LazyMode::lazy>> || std::is_same_v<Parser, LazyParser<LazyMode::lazy2>>;

public:
    ResolverCore(const LevelParams& params, TrackMode mode) : params_(params), mode_(mode), repairer_(params) {}

    void resolve(std::shared_ptr<const ChunkTracks> tracks, const Resolver::Emit& emit) override {
        const std::uint64_t t0 = now_ns();
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
        for (const Track& t : tracks->tracks) src.cursors.push_back(Cursor{&t, 0, t.begin});
        if (tracks->tracks.size() == 1 && !kFastest) stats.history_only_chunks++;

        const u8* const limit = eof_ && job.end == data_end_ ? data_end_ : job.end;
        chunk_missed_ = false;
        while (pos_ < limit) {
            if (!in_block_) begin_block();
            if constexpr (kRecalc) {
                if (pos_ >= next_recalc_) {
                    min_len_ = recalculate_min_match_len(freqs_.litlen, params_.max_search_depth);
                    next_recalc_ += std::min<std::size_t>(block_in_end_ - next_recalc_, pos_ - block_begin_);
                    note_min_len(min_len_);
                }
            }
            take_step();
            bool more = pos_ < max_block_end_ && b_.below(seq_limit_);
            if constexpr (!kFastest) more = more && !split_.should_end_block(block_begin_, pos_, block_in_end_);
            if (!more) end_block(emit);
        }
        drop_old_sources();
        clean_chunks_ = chunk_missed_ ? 0 : clean_chunks_ + 1;
        stats.resolve_ns += now_ns() - t0 - emit_ns_;
    }

    [[nodiscard]] TrackPlan plan() const override {
        TrackPlan plan;
        if constexpr (kFastest) return plan;
        const bool all_tracks =
            mode_ == TrackMode::all || (mode_ == TrackMode::automatic && clean_chunks_ < kCleanChunksForHistoryOnly);
        if (all_tracks) plan.fixed = recent_min_lens_;
        return plan;
    }

private:
    static constexpr u32 kCleanChunksForHistoryOnly = 8;
    static constexpr std::size_t kRecentMinLens = 3;

    // Items of one step, from a track or from a repair, into the block.
    struct Apply {
        ResolverCore& r;
        [[gnu::always_inline]] void literal(const u8* p) {
            if constexpr (!kFastest) r.split_.observe_literal(*p);
            r.b_.literal(*p);
        }
        [[gnu::always_inline]] void match(const u8*, u32 len, u32 offset) {
            if constexpr (!kFastest) r.split_.observe_match(len);
            r.b_.match(len, offset);
        }
    };

    void begin_block() {
        // The reader hands out a chunk only with a block's look-ahead of input behind it
        // (or with the end known), so every decision below is the whole-input one.
        assert(eof_ || std::size_t(data_end_ - pos_) >= kStreamLookahead);
        block_begin_ = pos_;
        block_in_end_ = data_end_;
        if constexpr (kFastest) {
            max_block_end_ = choose_max_block_end(pos_, block_in_end_, kFastSoftMaxBlockLength);
            seq_limit_ = seqs_.get() + kFastSeqStoreLength;
        } else {
            max_block_end_ = choose_max_block_end(pos_, block_in_end_, kSoftMaxBlockLength);
            seq_limit_ = seqs_.get() + kSeqStoreLength;
            next_recalc_ = pos_ + std::min<std::size_t>(block_in_end_ - pos_, 10000);
            split_.reset();
            min_len_ = calculate_min_match_len(pos_, max_block_end_ - pos_, params_.max_search_depth);
            note_min_len(min_len_);
        }
        b_.begin(seqs_.get(), &freqs_);
        in_block_ = true;
    }

    void end_block(const Resolver::Emit& emit) {
        freqs_.litlen[kEndOfBlock]++;
        auto block = std::make_unique<ResolvedBlock>();
        block->index = next_block_index_++;
        block->data = {block_begin_, std::size_t(pos_ - block_begin_)};
        block->seqs.assign(seqs_.get(), seqs_.get() + b_.num_matches() + 1);
        block->freqs = freqs_;
        block->is_final = eof_ && pos_ == data_end_;
        in_block_ = false;
        stats.blocks++;
        const std::uint64_t t0 = now_ns();
        emit(std::move(block));
        emit_ns_ += now_ns() - t0;  // the resolver's own time excludes what emit does
    }

    [[nodiscard]] bool fits(const Cursor& c) const {
        if constexpr (kFastest) return true;
        return c.min_len() == min_len_;
    }

    void take_step() {
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
        following_ = nullptr;
        repair_step(some_track_here);
    }

    void follow(Cursor& c, Source& s) {
        following_ = &c;
        following_src_ = &s;
        repairing_ = false;
        stats.syncs++;
    }

    void apply(Cursor& c) {
        Apply out{*this};
        const std::vector<u32>& items = c.track->items;
        for (;;) {
            const u32 item = items[c.i++];
            const u32 len = item_len(item);
            if (len == 0) {
                out.literal(pos_);
                pos_ += 1;
            } else {
                out.match(pos_, len, item_offset(item));
                pos_ += len;
            }
            if (item & kStepEnd) break;
        }
        c.p = pos_;
        stats.steps_followed++;
    }

    void repair_step(bool some_track_here) {
        if (!repairing_) {
            repairing_ = true;
            stats.repairs++;
            if (some_track_here) {
                stats.repairs_min_len++;
                chunk_missed_ = true;
            } else {
                stats.repairs_phase++;
            }
            if constexpr (kFastest)
                repairer_.prime(in_begin_, pos_, repair_hash_);
            else
                repairer_.prime(in_begin_, pos_, repair_hashes_);
        }
        const u8* const before = pos_;
        Apply out{*this};
        if constexpr (kFastest) {
            u32 max_len = kMaxMatchLen, nice_len = std::min(repairer_.nice_len(), kMaxMatchLen);
            pos_ = repairer_.step(pos_, block_in_end_, max_len, nice_len, repair_hash_, out);
        } else {
            pos_ = repairer_.step(pos_, block_in_end_, min_len_, repair_hashes_, out);
        }
        stats.repair_bytes += std::uint64_t(pos_ - before);
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
    Parser repairer_;
    u32 repair_hashes_[2] = {0, 0};
    u32 repair_hash_ = 0;
    bool repairing_ = false;

    const u8* in_begin_ = nullptr;
    const u8* pos_ = nullptr;
    const u8* data_end_ = nullptr;
    bool eof_ = false;

    bool in_block_ = false;
    const u8* block_begin_ = nullptr;
    const u8* block_in_end_ = nullptr;
    const u8* max_block_end_ = nullptr;
    const u8* next_recalc_ = nullptr;
    const Sequence* seq_limit_ = nullptr;
    u32 min_len_ = 0;
    BlockSplitStats split_{};
    SymbolFreqs freqs_{};
    std::unique_ptr<Sequence[]> seqs_{new Sequence[kSeqStoreLength + 1]};
    SequenceBuilder b_;
    std::size_t next_block_index_ = 0;

    std::deque<Source> sources_;
    Cursor* following_ = nullptr;
    Source* following_src_ = nullptr;

    std::vector<u32> recent_min_lens_;
    std::uint64_t emit_ns_ = 0;
    u32 clean_chunks_ = 0;
    bool chunk_missed_ = false;
};

}  // namespace

struct Resolver::Impl {
    std::unique_ptr<ResolverBase> core;
};

Resolver::Resolver(int level, TrackMode mode) : impl_(std::make_unique<Impl>()) {
    const LevelParams params = LevelParams::for_level(level);
    if (level == 1)
        impl_->core = std::make_unique<ResolverCore<FastestParser>>(params, mode);
    else if (level >= 2 && level <= 4)
        impl_->core = std::make_unique<ResolverCore<LazyParser<LazyMode::greedy>>>(params, mode);
    else if (level >= 5 && level <= 7)
        impl_->core = std::make_unique<ResolverCore<LazyParser<LazyMode::lazy>>>(params, mode);
    else if (level >= 8 && level <= 9)
        impl_->core = std::make_unique<ResolverCore<LazyParser<LazyMode::lazy2>>>(params, mode);
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

BlockEncoder::BlockEncoder() : coder_(std::make_unique<BlockCoder>()), codes_(std::make_unique<HuffmanCodes>()) {}
BlockEncoder::~BlockEncoder() = default;

void BlockEncoder::encode(const ResolvedBlock& block, CodedBlock& out) {
    out.index = block.index;
    out.data = block.data;
    out.is_final = block.is_final;
    out.stored_only = block.stored_only;
    if (block.stored_only) return;
    BlockCoder::make_codes(block.freqs, *codes_);
    out.costs = coder_->prepare(block.freqs, *codes_);
    const BlockType type = out.costs.prefer_static() ? BlockType::static_huffman : BlockType::dynamic_huffman;
    const std::size_t capacity = (out.costs.coded_cost() + 7) / 8 + 16;
    out.bits.resize(capacity);
    BitWriter w(out.bits.data(), out.bits.data() + capacity);
    coder_->emit_coded(w, type, *codes_, block.seqs.data(), block.data, block.is_final);
    w.flush();
    out.nbits = std::size_t(w.next - out.bits.data()) * 8 + w.bitcount;
    w.finish();
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
    if (format_ == Format::gzip)
        crc_ = u32(libdeflate_crc32(crc_, block.data.data(), block.data.size()));
    else if (format_ == Format::zlib)
        adler_ = u32(libdeflate_adler32(adler_, block.data.data(), block.data.size()));
    size_ += length;
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
    Resolver resolver(level, options.tracks);
    BlockEncoder encoder;
    CodedBlock coded;
    const u8* const begin = in.data();
    const u8* const end = begin + in.size();
    const std::size_t lookahead = chunk_lookahead(options.chunk_size);
    ChunkJob job;
    job.in_begin = begin;
    job.end = begin;
    do {
        // What a reader would know when it hands the chunk out.
        job.begin = job.end;
        job.data_end = std::size_t(end - job.begin) > options.chunk_size + lookahead
                           ? job.begin + options.chunk_size + lookahead
                           : end;
        job.eof = job.data_end == end;
        job.end = job.begin + std::min<std::size_t>(options.chunk_size, std::size_t(end - job.begin));
        job.stop = std::min(job.end + chunk_overlap(options.chunk_size), end);
        resolver.resolve(searcher.search(job, resolver.plan()), [&](std::unique_ptr<ResolvedBlock> block) {
            encoder.encode(*block, coded);
            assembler.append(coded);
        });
        job.index++;
    } while (job.end != end);
    assembler.finish();
    if (stats) *stats = resolver.stats();
    return std::move(sink.bytes);
}

}  // namespace flowdeflate::core
