// encoder.hpp - Code: a resolved block's sequences, Huffman codes and bits, on any
// worker, from bit offset 0 (Assemble shifts them into place).  The block's costs go with
// the bits: only Assemble knows the bit offset, and with it whether a stored block is
// shorter.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/bit_writer.hpp"
#include "core/block_coder.hpp"
#include "core/sequence.hpp"
#include "parallel/resolved_block.hpp"

namespace flowdeflate::parallel {

/// A block's bits, coded from bit offset 0, and what assembly needs to choose.
struct CodedBlock {
    std::size_t index = 0;
    std::span<const u8> data;
    bool is_final = false;
    bool stored_only = false;
    CodedCosts costs{};
    PodBuffer<u8> bits;  ///< (nbits + 7) / 8 bytes and 8 of slack; from a pool (pool.hpp)
    std::size_t nbits = 0;

    CodedBlock();
    ~CodedBlock();  ///< gives the bits' buffer back
    CodedBlock(const CodedBlock&) = delete;
    CodedBlock& operator=(const CodedBlock&) = delete;
};

/// Codes blocks; one per worker thread.
class Encoder {
public:
    Encoder();
    ~Encoder();
    /// The block's bits from bit offset 0, and its costs, into @p out.
    void encode(const ResolvedBlock& block, CodedBlock& out);
    /// The block's symbol counts, Huffman codes and costs, for emit().
    CodedCosts prepare(const ResolvedBlock& block);
    /// The block prepare() was given, as @p type (static or dynamic Huffman), into @p w.
    void emit(BitWriter& w, BlockType type, const ResolvedBlock& block);

private:
    std::unique_ptr<BlockCoder> coder_;
    std::unique_ptr<HuffmanCodes> codes_;
    std::unique_ptr<Sequence[]> seqs_;  ///< the block prepare() was given: its sequences, built from its item runs
    std::unique_ptr<SymbolFreqs> freqs_;  ///< ... and its symbol counts
};

}  // namespace flowdeflate::parallel
