// block_coder.hpp - turns a parsed block (sequences + symbol frequencies) into DEFLATE
// bits, choosing between dynamic Huffman, static Huffman and stored blocks exactly as
// libdeflate 1.19+ does.
//
// The cut: everything about a coded block is independent of the bit offset where it will
// land (`prepare()` -> `CodedCosts`, then `emit_coded()`), except one decision: whether a
// stored block is cheaper.  A stored block's cost depends on the padding to the next byte
// boundary, so `choose_block_type()` takes the real bit offset and is made at assembly.
// Ties prefer stored, then static, then dynamic.
#pragma once

#include <span>

#include "core/bit_writer.hpp"
#include "core/sequence.hpp"

namespace flowdeflate::core {

/// Offset-independent costs of coding one block, in bits, including the 3-bit header.
struct CodedCosts {
    u32 dynamic_cost;
    u32 static_cost;
    [[nodiscard]] bool prefer_static() const { return static_cost <= dynamic_cost; }
    [[nodiscard]] u32 coded_cost() const { return prefer_static() ? static_cost : dynamic_cost; }
};

/// Cost in bits of writing @p block_length bytes as stored block(s) when @p bitcount
/// (0..7) bits are pending in the output.
[[nodiscard]] inline u32 stored_cost(u32 bitcount, u32 block_length) {
    return 3 + ((0u - (bitcount + 3)) & 7) + 32 + 40 * ((block_length + kMaxStoredLen - 1) / kMaxStoredLen - 1) +
           8 * block_length;
}

/// The assembly-time decision.
[[nodiscard]] inline BlockType choose_block_type(const CodedCosts& costs, u32 bitcount, u32 block_length) {
    const u32 stored = stored_cost(bitcount, block_length);
    const u32 best = std::min(costs.dynamic_cost, std::min(costs.static_cost, stored));
    if (best == stored) return BlockType::stored;
    if (best == costs.static_cost) return BlockType::static_huffman;
    return BlockType::dynamic_huffman;
}

/// Writes @p block as stored block(s) of at most 65535 bytes; BFINAL on the last one if
/// @p is_final.  The writer must have room (see stored_cost()).
void emit_stored(BitWriter& out, std::span<const u8> block, bool is_final);

/// The one block-placement step, shared by the sequential compressor and the parallel
/// graph's Assemble: a coded block at @p w's real bit offset goes out as stored block(s)
/// when @p stored_only or when choose_block_type() says so there, else through
/// @p emit_coded(type) (static or dynamic Huffman).  With @p bounded, a block whose chosen
/// form does not fit in @p w's room is not written and false comes back.
template <class EmitCoded>
bool place_block(BitWriter& w, const CodedCosts& costs, std::span<const u8> data, bool is_final, bool stored_only,
                 bool bounded, EmitCoded&& emit_coded) {
    const u32 length = u32(data.size());
    const BlockType type = stored_only ? BlockType::stored : choose_block_type(costs, w.bitcount, length);
    if (bounded) {
        const u32 cost = type == BlockType::stored           ? stored_cost(w.bitcount, length)
                         : type == BlockType::static_huffman ? costs.static_cost
                                                             : costs.dynamic_cost;
        if ((w.bitcount + u64(cost) + 7) / 8 > w.room()) return false;
    }
    if (type == BlockType::stored)
        emit_stored(w, data, is_final);
    else
        emit_coded(type);
    return true;
}

class BlockCoder {
public:
    BlockCoder();

    /// The fixed codes of RFC 1951 3.2.6, built through make_huffman_code() as libdeflate
    /// does (so their codewords are bit-identical to its).
    [[nodiscard]] const HuffmanCodes& static_codes() const { return static_codes_; }

    /// Builds the dynamic codes for @p freqs (which must already count end-of-block).
    static void make_codes(const SymbolFreqs& freqs, HuffmanCodes& codes);

    /// Computes the precode for @p codes and both coded costs of the block described by
    /// @p freqs.  Keeps the precode for a following emit_coded() of a dynamic block.
    CodedCosts prepare(const SymbolFreqs& freqs, const HuffmanCodes& codes);

    /// Exact cost of a dynamic block without its 3-bit header (libdeflate's "true cost",
    /// used by the near-optimal parser).
    u32 dynamic_cost_without_header(const SymbolFreqs& freqs, const HuffmanCodes& codes) {
        return prepare(freqs, codes).dynamic_cost - 3;
    }

    /// Writes the block as a static or dynamic Huffman block (after prepare() for the
    /// same codes).  @p seqs ends with a sequence of length 0; literals come from @p block.
    void emit_coded(BitWriter& out, BlockType type, const HuffmanCodes& dynamic_codes, const Sequence* seqs,
                    std::span<const u8> block, bool is_final);

private:
    void precompute_header(const HuffmanCodes& codes);
    void compute_full_length_codewords(const HuffmanCodes& codes);

    HuffmanCodes static_codes_{};

    // The precode of the block last prepare()d.
    struct Precode {
        u32 freqs[kNumPrecodeSyms];
        u32 codewords[kNumPrecodeSyms];
        u8 lens[kNumPrecodeSyms];
        u32 items[kNumLitlenSyms + kNumOffsetSyms];
        u32 num_litlen_syms;
        u32 num_offset_syms;
        u32 num_explicit_lens;
        u32 num_items;
    } precode_{};

    // Litlen codeword + extra bits for every match length, concatenated.
    u32 length_codewords_[kMaxMatchLen + 1]{};
    u8 length_lens_[kMaxMatchLen + 1]{};
};

}  // namespace flowdeflate::core
