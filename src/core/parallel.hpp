// parallel.hpp - the pieces of parallel, bit-identical compression (pictures 3-7 of the
// case study), free of any scheduler: the graph in graph/ runs them as nodes, and
// compress_chunked() below runs them one after another (the exactness tests use it).
//
//   Search   (parallel)  A chunk's speculative match search: the match finder is primed
//                        from the 32 KiB before the chunk, then one or more *tracks* are
//                        parsed from the chunk's start to a little past its end:
//                          - the history track parses as if a block began at the chunk's
//                            start, with libdeflate's own block logic (min_len changes);
//                          - its branches: where another min match length makes another
//                            step, that parse until it meets the track again (Track::Alt).
//                        A track is the list of steps (see LazyParser::step()): what a step
//                        chooses depends only on its position and min_len, never on where
//                        the block began, because every position enters the match finder;
//                        each step records the min_lens it is valid for (its mask: only the
//                        step's first search reads min_len).
//   Resolve  (serial)    Replays libdeflate's block logic in input order: block ends,
//                        min_len choice and recalculation, sequence-store limits.  At each
//                        step it takes the step a track made at the same position, valid for
//                        the true min_len; where no track has one, it *repairs*: it brings
//                        its own match finder there and parses itself, exactly, until it
//                        meets a track again.  Out come resolved blocks, as runs of items.
//   Code     (parallel)  Sequences, Huffman codes and bits of each block, from bit offset 0
//                        (with one worker, at assembly, at the real offset).
//   Assemble (serial)    Appends coded blocks at the real bit offset, deciding stored blocks
//                        there (their cost depends on the offset), and computes the CRC.
//
// Level 1's steps do not even depend on min_len, so one track always fits.  Levels 0 and
// 10-12 are not split: the caller runs the sequential compressor for them.
#pragma once

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/block_coder.hpp"
#include "core/segmented_output.hpp"
#include "core/sequence.hpp"
#include "flowdeflate/core.hpp"

namespace flowdeflate::core {

/// The smallest chunk the parallel search takes.
inline constexpr std::size_t kMinChunkSize = 4096;

/// Can @p level be compressed by the parallel pieces (1-9)?
[[nodiscard]] inline bool level_is_parallel(int level) { return level >= 1 && level <= 9; }

/// Which tracks a chunk's search parses (the public flowdeflate::Tracks).
using TrackMode = ::flowdeflate::Tracks;

struct TrackPlan {
    bool history = true;  ///< false: nothing is searched (one worker: the resolver parses)
    /// Levels 2-9: each step records every min match length it is valid for (its mask),
    /// not just its own, so that the resolver can take it under another min_len.  Costs
    /// the search 0.6% (binaries) to 3% (text); the resolver asks for it where min_len
    /// repairs are frequent (see Resolver::plan()).
    bool step_masks = false;
    /// With step_masks, for the history track: the min match lengths whose parse is
    /// followed where it branches off the track (Track::alts), until it meets it again.
    std::vector<u32> alt_min_lens;
    /// With alt_min_lens: a min_len branches off only where a literal count within this
    /// margin of the history track's own count chooses it (AltParses::arm()): fewer
    /// branches, fewer searches, a few more repairs.  kAnyMargin: at every step whose mask
    /// leaves it out (fewest repairs).
    static constexpr u32 kAnyMargin = ~0u;
    u32 arm_margin = kAnyMargin;
};

/// One chunk of the input as the reader hands it out.
struct ChunkJob {
    std::size_t index = 0;
    const u8* in_begin = nullptr;  ///< first byte of the whole input
    const u8* begin = nullptr;     ///< the chunk: [begin, end)
    const u8* end = nullptr;
    const u8* stop = nullptr;      ///< tracks run to their first step at or past this
    const u8* data_end = nullptr;  ///< input present when the job was made
    bool eof = false;              ///< data_end is the true end of the input
};

/// Bytes the reader must have past a chunk's end before the chunk goes out (unless the
/// input ends first): the tracks' overlap, a match past it, and one block's look-ahead
/// for the resolver (see input_stream.hpp).
std::size_t chunk_lookahead(std::size_t chunk_size);
/// How far a chunk's tracks run past its end, so that they meet the next chunk's tracks.
std::size_t chunk_overlap(std::size_t chunk_size);

/// Cuts the input into chunk jobs as it arrives: the one place that decides a job's
/// fields, for every way input comes in (a reader thread, a caller's writes, a buffer).
class Chunker {
public:
    Chunker(const u8* in_begin, std::size_t chunk_size);
    /// The end of the input the next job needs present, unless the input ends before it.
    [[nodiscard]] const u8* need() const { return next_.end + need_bytes(); }
    /// The next job if its input is in: @p present is the end of the input that is there,
    /// @p ended says it is the end of all input.  What every way in calls (a buffer, a
    /// caller's writes, a reader thread): the job sees exactly need() bytes, or the end.
    std::optional<ChunkJob> next_from(const u8* present, bool ended);
    /// The last job (the one that reaches the end of the input) was made.
    [[nodiscard]] bool done() const { return done_; }
    /// The index the next job gets.
    [[nodiscard]] std::size_t index() const { return next_.index; }

private:
    [[nodiscard]] std::size_t need_bytes() const { return chunk_size_ + lookahead_; }
    /// The next job, with the input present up to @p data_end (need(), or the end of the
    /// input when @p eof).
    ChunkJob next(const u8* data_end, bool eof);

    ChunkJob next_;
    std::size_t chunk_size_;
    std::size_t lookahead_;
    bool done_ = false;
};

/// A growable array of track items whose new room is left uninitialised, so that only
/// the pages actually written become resident (a track may need one item per byte, and
/// usually needs far fewer).
class ItemBuffer {
public:
    [[nodiscard]] u32* data() { return data_.get(); }
    [[nodiscard]] const u32* data() const { return data_.get(); }
    [[nodiscard]] std::size_t size() const { return size_; }
    [[nodiscard]] bool empty() const { return size_ == 0; }
    [[nodiscard]] std::size_t capacity() const { return capacity_; }
    u32& operator[](std::size_t i) { return data_[i]; }
    const u32& operator[](std::size_t i) const { return data_[i]; }
    u32& back() { return data_[size_ - 1]; }
    void clear() { size_ = 0; }
    /// Room for @p n items; keeps the contents.
    void reserve(std::size_t n) {
        if (n <= capacity_) return;
        std::unique_ptr<u32[]> bigger(new u32[n]);
        if (size_) std::memcpy(bigger.get(), data_.get(), size_ * sizeof(u32));
        data_ = std::move(bigger);
        capacity_ = n;
    }
    void push_back(u32 v) {
        if (size_ == capacity_) [[unlikely]]
            reserve(std::max<std::size_t>(64, capacity_ * 2));
        data_[size_++] = v;
    }
    void append(const u32* v, std::size_t n) {
        if (n == 0) return;  // (v may be null then)
        if (size_ + n > capacity_) [[unlikely]]
            reserve(std::max<std::size_t>({64, capacity_ * 2, size_ + n}));
        std::memcpy(data_.get() + size_, v, n * sizeof(u32));
        size_ += n;
    }
    /// After writing through data() directly.
    void set_size(std::size_t n) { size_ = n; }

private:
    std::unique_ptr<u32[]> data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

/// A track: its steps' items, encoded (see parallel.cpp).  The item buffers are recycled
/// (a chunk's tracks take megabytes; fresh pages for every chunk cost page faults).
struct Track {
    /// Level 1 (one item per step): where the track stands after every kStride steps,
    /// so that the resolver can pass a stride where the block cannot end in one go.
    struct Mark {
        u32 offset;   ///< from begin
        u32 matches;  ///< matches among the steps so far
    };
    static constexpr std::size_t kStride = 64;

    /// Levels 2-9: what every kLazyStride steps of the track add to the block logic, so
    /// that the resolver can pass them in one go where no block-split check, limit or
    /// min_len recalculation falls among them (see the resolver's pass_lazy_strides()).
    struct LazyStride {
        u32 item_end;  ///< items before the stride's end
        u32 offset;    ///< position after the stride, from begin
        u16 matches;   ///< matches in the stride
        u8 mask;       ///< the AND of its steps' masks: the min_len every step fits
        u8 observations[10];  ///< its items by block-split observation type
    };
    static constexpr std::size_t kLazyStride = 16;
    /// A stride of more items (a lazy step may defer many literals) would overflow its
    /// counts: its mask is 0, so the resolver walks it.
    static constexpr u32 kMaxStrideItems = 255;

    /// Levels 2-9, history track with step masks: a stretch where the parse with another
    /// min match length (TrackPlan::alt_min_lens) makes other steps than the track, from
    /// the track step where it branches off to the track step where it meets the track
    /// again (or, where it gives up, to the end of its last step).  The resolver takes it
    /// where the true min_len is that one: without it, it would parse there itself.
    struct Alt {
        u32 begin;       ///< from the track's begin: a step start of the track
        u32 end;         ///< after its last step
        u32 first_item;  ///< its steps: alt_items[first_item, first_item + items)
        u32 items;
        u32 min_len;
    };

    const u8* begin = nullptr;
    const u8* end = nullptr;  ///< position after the last step
    ItemBuffer items;
    std::vector<Alt> alts;  ///< in order of begin
    ItemBuffer alt_items;
    std::vector<Mark> marks;  ///< marks[k]: after (k + 1) * kStride steps (level 1 only)
    std::vector<LazyStride> strides;  ///< strides[k]: steps k * kLazyStride.. (levels 2-9)

    Track();
    ~Track();
    Track(Track&&) noexcept = default;
    Track& operator=(Track&&) noexcept = default;
};

struct ChunkTracks {
    ChunkJob job;
    std::vector<Track> tracks;
    bool step_masks = false;      ///< the plan's, as searched
    bool branches = false;        ///< searched with branches (Track::alts)
    std::uint64_t search_ns = 0;  ///< CPU time the search took (core/clock.hpp)
};

/// Searches chunks; one per worker thread (it holds the match finders).
class ChunkSearcher {
public:
    explicit ChunkSearcher(int level);
    ~ChunkSearcher();
    ChunkSearcher(const ChunkSearcher&) = delete;
    ChunkSearcher& operator=(const ChunkSearcher&) = delete;

    [[nodiscard]] std::unique_ptr<ChunkTracks> search(const ChunkJob& job, const TrackPlan& plan);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Consecutive items of a block's steps (a track's, or a repair's), starting at input
/// position `at`.
struct ItemRun {
    const u32* items;
    std::size_t count;
    const u8* at;
};

/// A block as the resolver decided it: what the coder needs.  Either its sequences and
/// symbol counts (the resolver parsed it itself: one worker), or the runs of items it
/// took over from tracks and repairs, from which Code builds them (in parallel: the serial
/// resolver only walks the items for the block logic).
struct ResolvedBlock {
    std::size_t index = 0;  ///< blocks are numbered in stream order from 0
    std::span<const u8> data;
    std::vector<Sequence> seqs;  ///< ends with a sequence of length 0 (empty: see runs)
    SymbolFreqs freqs{};         ///< end-of-block included (with seqs only)
    std::vector<ItemRun> runs;   ///< the block's items, in order (when seqs is empty)
    /// With runs: freqs.litlen[0..255] hold the counts of the literals among the first
    /// literals_counted items of the runs (the resolver counts as far as its min_len
    /// recalculations need); Code counts the rest.
    std::size_t literals_counted = 0;
    std::vector<std::shared_ptr<const void>> keep;  ///< what the runs point into
    bool is_final = false;
    bool stored_only = false;    ///< tiny input: the whole input as stored blocks
};

struct ResolverStats {
    std::uint64_t chunks = 0;
    std::uint64_t blocks = 0;
    std::uint64_t steps_followed = 0;
    std::uint64_t syncs = 0;          ///< times the resolver (re)joined a track
    std::uint64_t branches = 0;       ///< ... of them onto a branch (Track::Alt)
    std::uint64_t repairs = 0;        ///< stretches the resolver parsed itself
    std::uint64_t repair_bytes = 0;
    std::uint64_t repairs_min_len = 0;  ///< repairs where a track stood at the position, with another min_len
    std::uint64_t repairs_phase = 0;    ///< repairs where no track had a step at the position
    std::uint64_t branched_chunks = 0;  ///< chunks searched with branches (TrackPlan::alt_min_lens)
    std::uint64_t masked_chunks = 0;  ///< chunks searched with step masks (TrackPlan::step_masks)
    std::uint64_t resolve_ns = 0;  ///< the resolver's own CPU time, emitting excluded
};

/// The serial resolver.  Feed it every chunk's tracks in order.
class Resolver {
public:
    using Emit = std::function<void(std::unique_ptr<ResolvedBlock>)>;
    /// @p workers: the threads that search (the automatic track choice weighs the
    /// resolver's load against them).
    Resolver(int level, TrackMode mode, int workers = 1);
    ~Resolver();
    Resolver(const Resolver&) = delete;
    Resolver& operator=(const Resolver&) = delete;

    /// Resolves up to the end of @p tracks' chunk (the first step at or past it), passing
    /// each finished block to @p emit.  The resolver keeps @p tracks as long as it needs.
    void resolve(std::shared_ptr<const ChunkTracks> tracks, const Emit& emit);
    /// The plan for chunks searched from now on (the resolver's feedback).
    [[nodiscard]] TrackPlan plan() const;
    [[nodiscard]] const ResolverStats& stats() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// A block's bits, coded from bit offset 0, and what assembly needs to choose.
struct CodedBlock {
    std::size_t index = 0;
    std::span<const u8> data;
    bool is_final = false;
    bool stored_only = false;
    CodedCosts costs{};
    std::vector<u8> bits;  ///< (nbits + 7) / 8 bytes and 8 of slack
    std::size_t nbits = 0;
    /// Set instead of the bits when the block is coded at assembly, at its real bit offset
    /// (one worker: Code and Assemble run one after the other anyway).
    std::shared_ptr<const ResolvedBlock> uncoded;
};

/// Codes blocks; one per worker thread.
class BlockEncoder {
public:
    BlockEncoder();
    ~BlockEncoder();
    /// The block's bits from bit offset 0, and its costs, into @p out.
    void encode(const ResolvedBlock& block, CodedBlock& out);
    /// The block's symbol counts, Huffman codes and costs, for emit().
    CodedCosts prepare(const ResolvedBlock& block);
    /// The block prepare() was given, as @p type (static or dynamic Huffman), into @p w.
    void emit(BitWriter& w, BlockType type, const ResolvedBlock& block);

private:
    std::unique_ptr<BlockCoder> coder_;
    std::unique_ptr<HuffmanCodes> codes_;
    std::unique_ptr<Sequence[]> seqs_;  ///< a block's sequences, built from its item runs
    std::unique_ptr<SymbolFreqs> freqs_;
    const Sequence* prepared_ = nullptr;  ///< the sequences prepare() coded for
};

/// Appends coded blocks in order and frames the stream (gzip/zlib header and trailer).
class StreamAssembler {
public:
    StreamAssembler(SegmentedOutput& out, Format format, int level);
    void append(const CodedBlock& block);
    /// Codes @p block with @p encoder straight at the stream's bit offset (and decides a
    /// stored block there), as the sequential compressor does.
    void append(const ResolvedBlock& block, BlockEncoder& encoder);
    /// Writes the trailer and the last partial segment.
    void finish();
    [[nodiscard]] std::uint64_t in_bytes() const { return size_; }

private:
    void account(std::span<const u8> data);  // the check value and size, after a block
    SegmentedOutput& out_;
    Format format_;
    u32 crc_ = 0, adler_ = 1;
    std::uint64_t size_ = 0;
};

/// Appends @p nbits bits from @p bits (which has 8 readable bytes of slack) to @p w.
void append_bits(BitWriter& w, const u8* bits, std::size_t nbits);

struct ChunkedOptions {
    std::size_t chunk_size = 1u << 20;
    TrackMode tracks = TrackMode::automatic;
    int workers = 1;  ///< the worker count the automatic track choice assumes
    std::optional<u32> arm_margin = std::nullopt;  ///< overrides the plans' TrackPlan::arm_margin (tests)
};

/// Runs Search, Resolve, Code and Assemble one after another over @p in, chunk by chunk:
/// the parallel pipeline's exact output without threads (tests, and a reference for the
/// graph).  Returns the compressed size; @p stats gets the resolver's counters.
std::vector<u8> compress_chunked(std::span<const u8> in, int level, Format format, const ChunkedOptions& options,
                                 ResolverStats* stats = nullptr);

}  // namespace flowdeflate::core
