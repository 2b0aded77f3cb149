// markers.cpp - resolving markers, finding the last one.
//
// Both run over whole chunks, in blocks whose OR says in one test, which the compiler
// vectorises, whether the block holds a marker: resolve_markers() narrows a block without
// one to bytes in vector code and looks markers up one by one only in the others;
// end_of_last_marker() scans backwards, so a chunk without markers costs a fast read.
#include "inflate/markers.hpp"

#include <algorithm>


namespace flowdeflate::inflate {

namespace {

/// Symbols checked together: their OR says whether any is a marker, and a block without
/// one (the common case once markers thin out) is narrowed to bytes in vector code.
constexpr std::size_t kBlock = 32;

bool any_marker(const std::uint16_t* symbols, std::size_t n) noexcept {
    std::uint16_t any = 0;
    for (std::size_t i = 0; i < n; ++i) any |= symbols[i];
    return is_marker(any);
}

}  // namespace

bool resolve_markers(std::span<const std::uint16_t> marked, std::span<const std::uint8_t> window,
                     std::span<std::uint8_t> out) noexcept {
    if (marked.size() != out.size()) return false;
    if (window.size() > kWindowSize) window = window.last(kWindowSize);
    // A short window is the end of a full one: its missing front may not be named.
    const std::uint16_t lowest_valid = marker_for(kWindowSize - window.size());
    bool ok = true;
    for (std::size_t at = 0; at < marked.size(); at += kBlock) {
        const std::size_t n = std::min(kBlock, marked.size() - at);
        const std::uint16_t* in = marked.data() + at;
        std::uint8_t* to = out.data() + at;
        if (!any_marker(in, n)) {
            for (std::size_t i = 0; i < n; ++i) to[i] = std::uint8_t(in[i]);
            continue;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint16_t s = in[i];
            if (!is_marker(s)) {
                to[i] = std::uint8_t(s);
            } else if (s >= lowest_valid) {
                to[i] = window[s - lowest_valid];
            } else {
                ok = false;
                to[i] = 0;
            }
        }
    }
    return ok;
}

std::size_t end_of_last_marker(std::span<const std::uint16_t> symbols) noexcept {
    std::size_t end = symbols.size();
    while (end > 0) {
        const std::size_t begin = end >= kBlock ? end - kBlock : 0;
        if (any_marker(symbols.data() + begin, end - begin)) {
            for (std::size_t i = end; i > begin; --i)
                if (is_marker(symbols[i - 1])) return i;
        }
        end = begin;
    }
    return 0;
}

}  // namespace flowdeflate::inflate
