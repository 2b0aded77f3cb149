// input_stream.hpp - how the parsers see input that is not all in memory yet.
//
// The input always lies at its own position in one address range (the graph reserves a
// range the size of the file and fills it as it reads), so the core's pointers work
// unchanged.  What a parser must not do is look at bytes that have not arrived, or take a
// decision that depends on where the input ends before it is known.  Every such decision
// in libdeflate looks at most one block ahead, so it is enough to ask, at the start of
// each block, for the input up to kStreamLookahead bytes past the block's start:
//
//   - the block ends at most 300000 + 258 bytes after its start (soft max + a match);
//   - "is the end within 305000 bytes of the block start?" picks the block's end;
//   - the end-of-block check needs 5000 bytes after the current position;
//   - the min-match-length recalculation advances by up to the block's current length, so
//     it looks up to twice the block length ahead.
//
// With that much input present, or the true end known, every decision is the one the
// whole-buffer parse makes; the parsers never see the difference.  Input more than
// 32 KiB behind the current block is never read again and may be released.
#pragma once

#include "core/deflate_format.hpp"

namespace flowdeflate::core {

/// Bytes past a block's start that must be present (or the input must have ended) when
/// the block starts: at least 2 x (300000 + 258 + 8) + 5000, rounded up.
inline constexpr std::size_t kStreamLookahead = 1u << 20;

/// Input that arrives while it is being compressed.  Implemented by the graph's input
/// windows; the core only asks and releases.
class InputStream {
public:
    virtual ~InputStream() = default;
    /// Address of the first input byte.
    [[nodiscard]] virtual const u8* begin() const = 0;
    /// Waits until the input up to @p need is present or the input has ended.  Returns
    /// the true end once the input has ended, else the end of what is present (>= need).
    virtual const u8* ensure(const u8* need) = 0;
    /// The compressor will not read before @p p again (p may lie before begin()).
    virtual void release_before(const u8* p) = 0;
};

/// What a parser holds of its input: a fixed end (whole buffer) or a stream.
struct InputView {
    const u8* end = nullptr;
    InputStream* stream = nullptr;

    /// The end to assume for the block starting at @p block_begin.
    const u8* block_end(const u8* block_begin) {
        if (stream) {
            stream->release_before(block_begin - kWindowSize);
            end = stream->ensure(block_begin + kStreamLookahead);
        }
        return end;
    }
};

}  // namespace flowdeflate::core
