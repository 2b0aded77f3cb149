// huffman.hpp - length-limited canonical Huffman codes, built exactly as libdeflate
// builds them.
//
// The algorithm (after 7-Zip's HuffEnc, via libdeflate): sort symbols by (frequency,
// symbol), build only the non-leaf nodes of the Huffman tree in place, derive the number
// of codewords of each length with a simple length-limiting rule, then hand out canonical
// codewords.  Every tie-break (which two nodes merge, how over-long codes are shortened)
// decides output bits, so the steps follow libdeflate's order exactly.  Fewer than two
// used symbols still yield two codewords of length 1, as libdeflate 1.19+ does.
#pragma once

#include "core/deflate_format.hpp"

namespace flowdeflate::core {

/// Builds the code for an alphabet of @p num_syms (2..288) symbols.  @p lens receives the
/// codeword lengths (0 for unused symbols), @p codewords the bit-reversed codewords ready
/// for an LSB-first bit writer.
void make_huffman_code(u32 num_syms, u32 max_codeword_len, const u32 freqs[], u8 lens[], u32 codewords[]);

}  // namespace flowdeflate::core
