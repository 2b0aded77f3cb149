// isal_line.hpp - ISA-L's inflate over a mapped DEFLATE stream, started at any block
// boundary and stopped exactly at one.
//
// Parallel decompression (graph/parallel_inflate.hpp) has one "main line" that decodes the
// stream in order with the fastest decoder there is, ISA-L's, and skips the stretches that
// speculative workers have decoded already (their chunks start and end at block
// boundaries).  For that the line must
//   - stop exactly at a block boundary S: it is given the input up to the byte holding S's
//     first bit and no more.  ISA-L then decodes every symbol up to the end-of-block code
//     before S and waits for the next block's header.  That it stopped *there*, and not a
//     few symbols short, is checked from its state: between blocks (reading a header),
//     with only the header's bits of S's byte left in its bit buffer.  When the check
//     fails the line simply goes on (the worker's chunk is not used), so a wrong stop can
//     never write wrong bytes;
//   - start at a block boundary E with a known window: ISA-L's dictionary is set to the
//     window, and its bit buffer is preloaded with the bits of E's byte from E on (the
//     fields of `inflate_state` that ISA-L itself uses between calls).
// Both were checked at every block boundary of real files at levels 0-12 (the tests do
// it again).  The line decodes raw DEFLATE only: gzip members are framed by the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

namespace flowdeflate::inflate {

class IsalLine {
public:
    /// Output is handed over in pieces of at most this size.
    static constexpr std::size_t kOutputPiece = std::size_t(1) << 18;
    using Emit = void (*)(void* context, std::span<const std::uint8_t> bytes);

    IsalLine();
    ~IsalLine();
    IsalLine(const IsalLine&) = delete;
    IsalLine& operator=(const IsalLine&) = delete;

    /// Starts at bit @p bit of @p input (a block boundary), the bytes before it @p window
    /// (its last 32 KiB are used; empty at a stream's start).
    void start(std::span<const std::uint8_t> input, std::uint64_t bit, std::span<const std::uint8_t> window);

    /// Decodes with the input up to byte @p byte_limit (capped at the input's end) and
    /// hands the output to @p emit.  Returns when that input is used up or the final block
    /// has ended.  Throws Error on invalid data.
    template <class F>
    void run_until(std::size_t byte_limit, F&& emit) {
        run(byte_limit, &call<std::remove_reference_t<F>>, context(emit));
    }
    /// Decodes up to the block boundary at bit @p boundary (> bit_position()).  Returns
    /// true when the line stopped exactly there (then bit_position() == boundary); false
    /// when that cannot be confirmed, in which case the line is still valid and goes on
    /// from wherever it is.
    template <class F>
    bool run_to_boundary(std::uint64_t boundary, F&& emit) {
        run((boundary + 7) / 8, &call<std::remove_reference_t<F>>, context(emit));
        return stopped_at(boundary);
    }

    /// Output goes straight into @p buffer from now on (across start()s), each piece
    /// handed to emit as a span of it; run() returns once it is full.  An empty span goes
    /// back to the line's own piece buffer.
    void output_into(std::span<std::uint8_t> buffer) noexcept;
    /// The buffer of output_into() is full: run() stops until it is given another.
    [[nodiscard]] bool output_full() const noexcept;

    /// The final block has ended.
    [[nodiscard]] bool ended() const noexcept;
    /// The bit where decoding will go on (after ended(): the first bit after the final
    /// block; the byte-aligned position after it is the trailer's).
    [[nodiscard]] std::uint64_t bit_position() const noexcept;
    /// After ended(): the byte after the DEFLATE stream (its last byte's padding skipped).
    [[nodiscard]] std::size_t end_byte() const noexcept;

private:
    template <class Fn>
    static void call(void* f, std::span<const std::uint8_t> bytes) {
        (*static_cast<Fn*>(f))(bytes);
    }
    template <class Fn>
    static void* context(Fn& f) {
        return const_cast<void*>(static_cast<const void*>(std::addressof(f)));
    }
    void run(std::size_t byte_limit, Emit emit, void* context);
    [[nodiscard]] bool stopped_at(std::uint64_t boundary) const noexcept;

    struct State;
    std::unique_ptr<State> s_;
};

}  // namespace flowdeflate::inflate
