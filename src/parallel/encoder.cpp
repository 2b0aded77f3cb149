// encoder.cpp - see encoder.hpp.
#include "parallel/encoder.hpp"

#include "parallel/pool.hpp"

#include <algorithm>
#include <cstring>

namespace flowdeflate::parallel {

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

// Level 1: the literals of @p n steps at @p p counted.
[[gnu::always_inline]] inline void count_literals(const u8* p, std::size_t n, SymbolFreqs& freqs) {
    for (std::size_t i = 0; i < n; ++i) freqs.litlen[p[i]]++;
}

// Level 1: a block's sequences from its runs of the tracks' (and repairs') SeqSteps, the
// first of each run joined to the literals before it, and its symbols counted (the
// literals from the input).
void copy_sequences(const std::vector<SeqRun>& runs, Sequence* out, SymbolFreqs& freqs) {
    u32 litrun = 0;
    for (const SeqRun& r : runs) {
        const u8* q = r.at;
        if (r.s0 == r.s1) {
            count_literals(q, r.j1 - r.j0, freqs);
            litrun += r.j1 - r.j0;
            continue;
        }
        const u32 first = r.seqs[r.s0].litrun - r.j0;
        for (const SeqStep *s = r.seqs + r.s0, *end = r.seqs + r.s1; s != end; ++s) {
            const u32 lits = s == r.seqs + r.s0 ? first : s->litrun;
            count_literals(q, lits, freqs);
            q += lits + s->length;
            put_match(*out++, freqs, litrun + lits, s->length, s->offset);
            litrun = 0;
        }
        count_literals(q, r.j1, freqs);
        litrun = r.j1;
    }
    out->litrunlen_and_length = litrun;
    freqs.litlen[kEndOfBlock]++;
}

}  // namespace

// A coded block's bits are written once, then read by Assemble: fresh pages for every
// block cost page faults and zeroing (as much as a tenth of Code's time at level 1).
CodedBlock::CodedBlock() : bits(BitsPool::instance().take()) {}
CodedBlock::~CodedBlock() { BitsPool::instance().give(std::move(bits)); }

Encoder::Encoder()
    : coder_(std::make_unique<BlockCoder>()),
      codes_(std::make_unique<HuffmanCodes>()),
      seqs_(new Sequence[kSeqStoreLength + 1]),
      freqs_(std::make_unique<SymbolFreqs>()) {}
Encoder::~Encoder() = default;

void Encoder::encode(const ResolvedBlock& block, CodedBlock& out) {
    out.index = block.index;
    out.data = block.data;
    out.is_final = block.is_final;
    out.stored_only = block.stored_only;
    if (block.stored_only) return;
    out.costs = prepare(block);
    const BlockType type = out.costs.prefer_static() ? BlockType::static_huffman : BlockType::dynamic_huffman;
    const std::size_t capacity = (out.costs.coded_cost() + 7) / 8 + 16;
    out.bits.resize_uninitialised(capacity);
    BitWriter w(out.bits.data(), out.bits.data() + capacity);
    emit(w, type, block);
    w.flush();
    out.nbits = std::size_t(w.next - out.bits.data()) * 8 + w.bitcount;
    w.finish();
}

CodedCosts Encoder::prepare(const ResolvedBlock& block) {
    freqs_->clear();
    if (block.literals_counted) std::memcpy(freqs_->litlen, block.litlen, sizeof(block.litlen));
    if (!block.seq_runs.empty())
        copy_sequences(block.seq_runs, seqs_.get(), *freqs_);
    else
        build_sequences(block.runs, block.literals_counted, seqs_.get(), *freqs_);
    BlockCoder::make_codes(*freqs_, *codes_);
    return coder_->prepare(*freqs_, *codes_);
}

void Encoder::emit(BitWriter& w, BlockType type, const ResolvedBlock& block) {
    coder_->emit_coded(w, type, *codes_, seqs_.get(), block.data, block.is_final);
}

}  // namespace flowdeflate::parallel
