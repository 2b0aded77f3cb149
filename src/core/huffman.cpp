// huffman.cpp - see huffman.hpp.
#include "core/huffman.hpp"

#include <algorithm>
#include <cassert>

namespace flowdeflate::core {
namespace {

// Each working entry packs a frequency (high bits) with a symbol (low 10 bits).
constexpr u32 kSymbolBits = 10;
constexpr u32 kSymbolMask = (1u << kSymbolBits) - 1;
constexpr u32 kFreqMask = ~kSymbolMask;
static_assert(kNumLitlenSyms <= (1u << kSymbolBits));
static_assert(kMaxBlockLength < (1u << (32 - kSymbolBits)));

// Sorts used symbols by (frequency, symbol) into @p out; zero-frequency symbols get
// length 0.  Counting sort for the many small frequencies; the large ones, which share
// the last counter, are sorted by key.  Keys are unique, so any correct sort gives the
// same order as libdeflate's heapsort.
u32 sort_symbols(u32 num_syms, const u32 freqs[], u8 lens[], u32 out[]) {
    u32 counters[kNumLitlenSyms];
    const u32 num_counters = num_syms;
    std::fill_n(counters, num_counters, 0u);
    for (u32 sym = 0; sym < num_syms; ++sym) counters[std::min(freqs[sym], num_counters - 1)]++;
    u32 num_used = 0;
    for (u32 i = 1; i < num_counters; ++i) {
        const u32 count = counters[i];
        counters[i] = num_used;
        num_used += count;
    }
    for (u32 sym = 0; sym < num_syms; ++sym) {
        const u32 freq = freqs[sym];
        if (freq != 0)
            out[counters[std::min(freq, num_counters - 1)]++] = sym | (freq << kSymbolBits);
        else
            lens[sym] = 0;
    }
    std::sort(out + counters[num_counters - 2], out + counters[num_counters - 1]);
    return num_used;
}

// Builds the non-leaf nodes of the Huffman tree in A[0..n-2] (root last); each holds its
// parent's index in the frequency bits.  Ties prefer two leaves, then a leaf and a
// non-leaf, exactly as libdeflate.
void build_tree(u32 A[], u32 sym_count) {
    const u32 last_idx = sym_count - 1;
    u32 i = 0, b = 0, e = 0;
    do {
        u32 new_freq;
        if (i + 1 <= last_idx && (b == e || (A[i + 1] & kFreqMask) <= (A[b] & kFreqMask))) {
            new_freq = (A[i] & kFreqMask) + (A[i + 1] & kFreqMask);
            i += 2;
        } else if (b + 2 <= e && (i > last_idx || (A[b + 1] & kFreqMask) < (A[i] & kFreqMask))) {
            new_freq = (A[b] & kFreqMask) + (A[b + 1] & kFreqMask);
            A[b] = (e << kSymbolBits) | (A[b] & kSymbolMask);
            A[b + 1] = (e << kSymbolBits) | (A[b + 1] & kSymbolMask);
            b += 2;
        } else {
            new_freq = (A[i] & kFreqMask) + (A[b] & kFreqMask);
            A[b] = (e << kSymbolBits) | (A[b] & kSymbolMask);
            i++;
            b++;
        }
        A[e] = new_freq | (A[e] & kSymbolMask);
    } while (++e < last_idx);
}

// Turns parent links into depths and counts codewords per length.  A node that would be
// too deep is moved up to the deepest level that still has a codeword to split (not
// optimal length-limiting, but it is what libdeflate does).
void compute_length_counts(u32 A[], u32 root_idx, u32 len_counts[], u32 max_len) {
    for (u32 len = 0; len <= max_len; ++len) len_counts[len] = 0;
    len_counts[1] = 2;
    A[root_idx] &= kSymbolMask;
    for (int node = int(root_idx) - 1; node >= 0; --node) {
        const u32 parent = A[node] >> kSymbolBits;
        const u32 parent_depth = A[parent] >> kSymbolBits;
        u32 depth = parent_depth + 1;
        A[node] = (A[node] & kSymbolMask) | (depth << kSymbolBits);
        if (depth >= max_len) {
            depth = max_len;
            do {
                depth--;
            } while (len_counts[depth] == 0);
        }
        len_counts[depth]--;
        len_counts[depth + 1] += 2;
    }
}

inline u32 reverse_codeword(u32 codeword, u32 len) {
    // 16-bit reverse, then drop the unused low bits.
    codeword = ((codeword & 0x5555) << 1) | ((codeword >> 1) & 0x5555);
    codeword = ((codeword & 0x3333) << 2) | ((codeword >> 2) & 0x3333);
    codeword = ((codeword & 0x0F0F) << 4) | ((codeword >> 4) & 0x0F0F);
    codeword = ((codeword & 0x00FF) << 8) | ((codeword >> 8) & 0x00FF);
    return codeword >> (16 - len);
}

// Lengths go to symbols in order of increasing (frequency, symbol), longest first; then
// canonical codewords are assigned in symbol order.
void gen_codewords(u32 A[], u8 lens[], const u32 len_counts[], u32 max_len, u32 num_syms) {
    u32 i = 0;
    for (u32 len = max_len; len >= 1; --len) {
        u32 count = len_counts[len];
        while (count--) lens[A[i++] & kSymbolMask] = u8(len);
    }
    u32 next_codewords[kMaxCodewordLen + 1];
    next_codewords[0] = 0;
    next_codewords[1] = 0;
    for (u32 len = 2; len <= max_len; ++len) next_codewords[len] = (next_codewords[len - 1] + len_counts[len - 1]) << 1;
    for (u32 sym = 0; sym < num_syms; ++sym) A[sym] = reverse_codeword(next_codewords[lens[sym]]++, lens[sym]);
}

}  // namespace

void make_huffman_code(u32 num_syms, u32 max_codeword_len, const u32 freqs[], u8 lens[], u32 codewords[]) {
    u32* A = codewords;  // shares storage with the result, as the result overwrites it last
    const u32 num_used = sort_symbols(num_syms, freqs, lens, A);
    if (num_used < 2) {
        // Always send a complete code of two 1-bit codewords: '0' for symbol 0 and '1'
        // for the used symbol (or symbol 1).  Some decoders reject smaller codes.
        const u32 sym = num_used ? (A[0] & kSymbolMask) : 0;
        const u32 nonzero_idx = sym ? sym : 1;
        codewords[0] = 0;
        lens[0] = 1;
        codewords[nonzero_idx] = 1;
        lens[nonzero_idx] = 1;
        return;
    }
    build_tree(A, num_used);
    u32 len_counts[kMaxCodewordLen + 1];
    compute_length_counts(A, num_used - 2, len_counts, max_codeword_len);
    gen_codewords(A, lens, len_counts, max_codeword_len, num_syms);
}

}  // namespace flowdeflate::core
