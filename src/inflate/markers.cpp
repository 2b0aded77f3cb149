// markers.cpp - resolving markers, finding the last one.
//
// Both run over whole chunks.  resolve_markers() is one pass with a select per symbol (a
// byte stays, a marker indexes the window); end_of_last_marker() scans backwards in blocks
// of 64 symbols whose OR says in one test, which the compiler vectorises, whether the
// block holds a marker, so a chunk without markers costs a fast linear read.
#include "inflate/markers.hpp"


namespace flowdeflate::inflate {

bool resolve_markers(std::span<const std::uint16_t> marked, std::span<const std::uint8_t> window,
                     std::span<std::uint8_t> out) noexcept {
    if (marked.size() != out.size()) return false;
    if (window.size() > kWindowSize) window = window.last(kWindowSize);
    // A short window is the end of a full one: its missing front may not be named.
    const std::uint16_t lowest_valid = marker_for(kWindowSize - window.size());
    bool ok = true;
    for (std::size_t i = 0; i < marked.size(); ++i) {
        const std::uint16_t s = marked[i];
        if (!is_marker(s)) {
            out[i] = std::uint8_t(s);
            continue;
        }
        ok &= s >= lowest_valid;
        out[i] = s >= lowest_valid ? window[s - lowest_valid] : 0;
    }
    return ok;
}

std::size_t end_of_last_marker(std::span<const std::uint16_t> symbols) noexcept {
    constexpr std::size_t kBlock = 64;
    std::size_t end = symbols.size();
    while (end > 0) {
        const std::size_t begin = end >= kBlock ? end - kBlock : 0;
        std::uint16_t any = 0;
        for (std::size_t i = begin; i < end; ++i) any |= symbols[i];
        if (is_marker(any)) {
            for (std::size_t i = end; i > begin; --i)
                if (is_marker(symbols[i - 1])) return i;
        }
        end = begin;
    }
    return 0;
}

}  // namespace flowdeflate::inflate
