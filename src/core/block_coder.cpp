// block_coder.cpp - see block_coder.hpp.
#include "core/block_coder.hpp"

#include <cstring>

#include "core/huffman.hpp"

namespace flowdeflate::core {

void emit_stored(BitWriter& out, std::span<const u8> block, bool is_final) {
    const u8* in = block.data();
    const u8* const in_end = in + block.size();
    do {
        u32 len = kMaxStoredLen;
        u32 bfinal = 0;
        if (std::size_t(in_end - in) <= kMaxStoredLen) {
            len = u32(in_end - in);
            bfinal = is_final;
        }
        // BFINAL, BTYPE=00, then pad to a byte boundary.
        out.add(bfinal, 1);
        out.add(u32(BlockType::stored), 2);
        out.flush();
        if (out.bitcount) {
            *out.next++ = u8(out.bitbuf);
            out.bitbuf = 0;
            out.bitcount = 0;
        }
        const u8 hdr[4] = {u8(len), u8(len >> 8), u8(~len), u8(~len >> 8)};
        std::memcpy(out.next, hdr, 4);
        out.next += 4;
        if (len) std::memcpy(out.next, in, len);
        out.next += len;
        in += len;
    } while (in != in_end);
}

BlockCoder::BlockCoder() {
    // The static code expressed as frequencies whose Huffman code has the RFC's lengths.
    SymbolFreqs f{};
    u32 i = 0;
    for (; i < 144; ++i) f.litlen[i] = 1u << (9 - 8);
    for (; i < 256; ++i) f.litlen[i] = 1u << (9 - 9);
    for (; i < 280; ++i) f.litlen[i] = 1u << (9 - 7);
    for (; i < 288; ++i) f.litlen[i] = 1u << (9 - 8);
    for (i = 0; i < 32; ++i) f.offset[i] = 1u << (5 - 5);
    make_codes(f, static_codes_);
}

void BlockCoder::make_codes(const SymbolFreqs& freqs, HuffmanCodes& codes) {
    make_huffman_code(kNumLitlenSyms, kMaxLitlenCodewordLen, freqs.litlen, codes.litlen_lens, codes.litlen_codewords);
    make_huffman_code(kNumOffsetSyms, kMaxOffsetCodewordLen, freqs.offset, codes.offset_lens, codes.offset_codewords);
}

namespace {

// Run-length codes the concatenated codeword lengths with precode symbols 16/17/18.
u32 compute_precode_items(const u8 lens[], u32 num_lens, u32 precode_freqs[], u32 items[]) {
    std::memset(precode_freqs, 0, kNumPrecodeSyms * sizeof(u32));
    u32* itemptr = items;
    u32 run_start = 0;
    do {
        const u8 len = lens[run_start];
        u32 run_end = run_start;
        do {
            run_end++;
        } while (run_end != num_lens && len == lens[run_end]);

        if (len == 0) {
            while (run_end - run_start >= 11) {  // 18: 11..138 zeroes
                const u32 extra = std::min(run_end - run_start - 11, 0x7Fu);
                precode_freqs[18]++;
                *itemptr++ = 18 | (extra << 5);
                run_start += 11 + extra;
            }
            if (run_end - run_start >= 3) {  // 17: 3..10 zeroes
                const u32 extra = std::min(run_end - run_start - 3, 0x7u);
                precode_freqs[17]++;
                *itemptr++ = 17 | (extra << 5);
                run_start += 3 + extra;
            }
        } else if (run_end - run_start >= 4) {  // the length, then 16: 3..6 repeats
            precode_freqs[len]++;
            *itemptr++ = len;
            run_start++;
            do {
                const u32 extra = std::min(run_end - run_start - 3, 0x3u);
                precode_freqs[16]++;
                *itemptr++ = 16 | (extra << 5);
                run_start += 3 + extra;
            } while (run_end - run_start >= 3);
        }
        while (run_start != run_end) {
            precode_freqs[len]++;
            *itemptr++ = len;
            run_start++;
        }
    } while (run_start != num_lens);
    return u32(itemptr - items);
}

}  // namespace

void BlockCoder::precompute_header(const HuffmanCodes& codes) {
    Precode& p = precode_;
    for (p.num_litlen_syms = kNumLitlenSyms; p.num_litlen_syms > 257; p.num_litlen_syms--)
        if (codes.litlen_lens[p.num_litlen_syms - 1] != 0) break;
    for (p.num_offset_syms = kNumOffsetSyms; p.num_offset_syms > 1; p.num_offset_syms--)
        if (codes.offset_lens[p.num_offset_syms - 1] != 0) break;

    u8 lens[kNumLitlenSyms + kNumOffsetSyms];
    std::memcpy(lens, codes.litlen_lens, p.num_litlen_syms);
    std::memcpy(lens + p.num_litlen_syms, codes.offset_lens, p.num_offset_syms);
    p.num_items = compute_precode_items(lens, p.num_litlen_syms + p.num_offset_syms, p.freqs, p.items);

    make_huffman_code(kNumPrecodeSyms, kMaxPreCodewordLen, p.freqs, p.lens, p.codewords);

    for (p.num_explicit_lens = kNumPrecodeSyms; p.num_explicit_lens > 4; p.num_explicit_lens--)
        if (p.lens[kPrecodeLensPermutation[p.num_explicit_lens - 1]] != 0) break;
}

CodedCosts BlockCoder::prepare(const SymbolFreqs& freqs, const HuffmanCodes& codes) {
    precompute_header(codes);
    u32 dynamic_cost = 3 + 5 + 5 + 4 + 3 * precode_.num_explicit_lens;
    u32 static_cost = 3;
    for (u32 sym = 0; sym < kNumPrecodeSyms; ++sym)
        dynamic_cost += precode_.freqs[sym] * (kExtraPrecodeBits[sym] + precode_.lens[sym]);

    u32 sym = 0;
    for (; sym < 144; ++sym) {
        dynamic_cost += freqs.litlen[sym] * codes.litlen_lens[sym];
        static_cost += freqs.litlen[sym] * 8;
    }
    for (; sym < 256; ++sym) {
        dynamic_cost += freqs.litlen[sym] * codes.litlen_lens[sym];
        static_cost += freqs.litlen[sym] * 9;
    }
    dynamic_cost += codes.litlen_lens[kEndOfBlock];
    static_cost += 7;
    for (sym = kFirstLenSym; sym < kFirstLenSym + kNumLengthSlots; ++sym) {
        const u32 extra = kExtraLengthBits[sym - kFirstLenSym];
        dynamic_cost += freqs.litlen[sym] * (extra + codes.litlen_lens[sym]);
        static_cost += freqs.litlen[sym] * (extra + static_codes_.litlen_lens[sym]);
    }
    for (sym = 0; sym < kNumOffsetSlots; ++sym) {
        const u32 extra = kExtraOffsetBits[sym];
        dynamic_cost += freqs.offset[sym] * (extra + codes.offset_lens[sym]);
        static_cost += freqs.offset[sym] * (extra + 5);
    }
    return CodedCosts{dynamic_cost, static_cost};
}

void BlockCoder::compute_full_length_codewords(const HuffmanCodes& codes) {
    for (u32 len = kMinMatchLen; len <= kMaxMatchLen; ++len) {
        const u32 slot = kLengthSlot[len];
        const u32 sym = kFirstLenSym + slot;
        const u32 extra = len - kLengthSlotBase[slot];
        length_codewords_[len] = codes.litlen_codewords[sym] | (extra << codes.litlen_lens[sym]);
        length_lens_[len] = u8(codes.litlen_lens[sym] + kExtraLengthBits[slot]);
    }
}

void BlockCoder::emit_coded(BitWriter& out_state, BlockType type, const HuffmanCodes& dynamic_codes,
                            const Sequence* seqs, std::span<const u8> block, bool is_final) {
    // Work on a local copy: the compiler cannot keep the bit buffer of an object that the
    // output bytes might alias in registers.
    BitWriter out = out_state;
    const HuffmanCodes& codes = type == BlockType::static_huffman ? static_codes_ : dynamic_codes;
    out.add(is_final, 1);
    out.add(u32(type), 2);
    if (type == BlockType::dynamic_huffman) {
        const Precode& p = precode_;
        out.add(p.num_litlen_syms - 257, 5);
        out.add(p.num_offset_syms - 1, 5);
        out.add(p.num_explicit_lens - 4, 4);
        out.flush();
        for (u32 i = 0; i < p.num_explicit_lens; ++i) {
            out.add(p.lens[kPrecodeLensPermutation[i]], 3);
            if (i % 16 == 15) out.flush();
        }
        out.flush();
        for (u32 i = 0; i < p.num_items; ++i) {
            const u32 item = p.items[i];
            const u32 psym = item & 0x1F;
            out.add(p.codewords[psym], p.lens[psym]);
            out.add(item >> 5, kExtraPrecodeBits[psym]);
            out.flush();
        }
    }
    out.flush();
    compute_full_length_codewords(codes);

    const u8* in = block.data();
    const u32* lit_cw = codes.litlen_codewords;
    const u8* lit_len = codes.litlen_lens;
    for (const Sequence* seq = seqs;; ++seq) {
        u32 litrunlen = seq->litrunlen();
        const u32 length = seq->length();
        for (; litrunlen >= 4; litrunlen -= 4) {
            out.add(lit_cw[in[0]], lit_len[in[0]]);
            out.add(lit_cw[in[1]], lit_len[in[1]]);
            out.add(lit_cw[in[2]], lit_len[in[2]]);
            out.add(lit_cw[in[3]], lit_len[in[3]]);
            in += 4;
            out.flush();
        }
        if (litrunlen) {
            do {
                out.add(lit_cw[*in], lit_len[*in]);
                ++in;
            } while (--litrunlen);
            out.flush();
        }
        if (length == 0) break;
        // Match: length codeword + extra bits, offset codeword, extra offset bits.
        const u32 oslot = seq->offset_slot;
        out.add(length_codewords_[length], length_lens_[length]);
        out.add(codes.offset_codewords[oslot], codes.offset_lens[oslot]);
        out.add(seq->offset - kOffsetSlotBase[oslot], kExtraOffsetBits[oslot]);
        out.flush();
        in += length;
    }
    out.add(lit_cw[kEndOfBlock], lit_len[kEndOfBlock]);
    out.flush();
    out_state = out;
}

}  // namespace flowdeflate::core
