// markers.cpp - resolving markers, finding the last one.
//
// Both run over whole chunks, in blocks whose OR says in one test, which the compiler
// vectorises, whether the block holds a marker: resolve_markers() narrows a block without
// one to bytes in vector code and maps the others through a table, a load per symbol and
// no branch (mixed bytes and markers made a per-symbol branch mispredict);
// end_of_last_marker() scans backwards, so a chunk without markers costs a fast read.
#include "inflate/markers.hpp"

#include <algorithm>
#include <cstring>


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

/// Symbol -> byte in one load, no branch: bytes map to themselves (slots 0-255), marker
/// 32768 + i to window byte i (slot 256 + i).  Markers that name the missing front of a
/// short window read zeros there and are caught apart.
struct ResolveTable {
    std::uint8_t bytes[256 + kWindowSize];

    explicit ResolveTable(std::span<const std::uint8_t> window) noexcept {
        for (unsigned b = 0; b < 256; ++b) bytes[b] = std::uint8_t(b);
        std::fill_n(bytes + 256, kWindowSize - window.size(), std::uint8_t(0));
        std::copy(window.begin(), window.end(), bytes + 256 + (kWindowSize - window.size()));
    }
    static constexpr unsigned slot(std::uint16_t s) noexcept { return (s & 0x7FFFu) + ((s >> 15) << 8); }
};

/// One block of @p n symbols (kBlock in the loop: constant trip counts vectorise): without
/// a marker narrowed in vector code, else through the table eight symbols per store.  The
/// block is read whole before any of it is written, so @p to may be the symbols' own
/// storage (byte i then lands where symbol i/2 was, behind the reads).  False when a
/// marker is below @p lowest_valid.
template <std::size_t kMax>
[[gnu::always_inline]] inline bool resolve_block(const std::uint16_t* from, std::size_t n, const ResolveTable& table,
                                                 std::uint16_t lowest_valid, std::uint8_t* to) noexcept {
    std::uint16_t in[kMax];
    std::memcpy(in, from, n * sizeof(std::uint16_t));
    if (!any_marker(in, n)) {
        for (std::size_t i = 0; i < n; ++i) to[i] = std::uint8_t(in[i]);
        return true;
    }
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t bytes = 0;
        for (unsigned k = 0; k < 8; ++k) bytes |= std::uint64_t(table.bytes[ResolveTable::slot(in[i + k])]) << (8 * k);
        std::memcpy(to + i, &bytes, sizeof bytes);
    }
    for (; i < n; ++i) to[i] = table.bytes[ResolveTable::slot(in[i])];
    bool ok = true;
    if (lowest_valid != kFirstMarker)
        for (std::size_t k = 0; k < n; ++k) ok &= !is_marker(in[k]) || in[k] >= lowest_valid;
    return ok;
}

}  // namespace

bool resolve_markers(std::span<const std::uint16_t> marked, std::span<const std::uint8_t> window,
                     std::span<std::uint8_t> out) noexcept {
    if (marked.size() != out.size()) return false;
    if (window.size() > kWindowSize) window = window.last(kWindowSize);
    // A short window is the end of a full one: its missing front may not be named.
    const std::uint16_t lowest_valid = marker_for(kWindowSize - window.size());
    const ResolveTable table(window);
    bool ok = true;
    std::size_t at = 0;
    for (; at + kBlock <= marked.size(); at += kBlock)
        ok &= resolve_block<kBlock>(marked.data() + at, kBlock, table, lowest_valid, out.data() + at);
    ok &= resolve_block<kBlock>(marked.data() + at, marked.size() - at, table, lowest_valid, out.data() + at);
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
