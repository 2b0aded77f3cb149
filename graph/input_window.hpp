// input_window.hpp - the input side of the streaming graph: a reservation window.
//
// The whole input gets one address range, reserved up front (PROT_NONE, MAP_NORESERVE:
// it costs address space, not memory).  Bytes are copied into it at their own offset
// with pread()/read() into pages that are committed just before, and pages that fall
// more than 32 KiB behind the compressor are released, in slots of 2 MiB.  Released slots
// are not given back at once: up to four are kept, and the next slot to commit takes the
// pages of one of them (mremap moves the page-table entries), so a long input is read into
// the same few MiB of memory over and over, without the kernel zeroing and faulting in
// fresh pages for every 4 KiB read (that cost 7% of level 1's time).
// So the compressor's pointers are plain pointers into the input, and resident memory
// is only what lies between the release point and the reader.
//
// Why copy and not map the file: a mapped file that shrinks under us turns reads into
// SIGBUS.  With pread the worst case is a short read, which we detect and report:
//   - a regular file that ends early (it shrank) or has more bytes than fstat() said
//     (it grew) is an error: "changed size while being compressed";
//   - a pipe has no size; its range is reserved large (1 TiB, less if the address space
//     is limited) and exceeding it is an error.
//
// The reader runs on its own I/O thread (read_loop()); the compressor calls ensure(),
// which waits for the reader, and release_before().  The reader stays at most `read_ahead`
// bytes past the furthest byte the compressor asked for.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>

#include "core/input_stream.hpp"

#include "flowdeflate/core.hpp"

namespace flowdeflate::graph {

/// An input problem: read error, size change, too large.  The message is for the user.
class InputError : public Error {
public:
    using Error::Error;
};

struct WindowOptions {
    std::size_t read_ahead = 8u << 20;   ///< read at most this far past what was asked for
    std::size_t read_chunk = 1u << 20;   ///< bytes per read call
    std::size_t release_step = 2u << 20; ///< commit and release in slots this large (a power of 2)
    std::size_t pipe_reserve = std::size_t(1) << 40;  ///< address range for unknown sizes
    /// Bytes the caller already read from a pipe (the fd's first bytes): the window takes
    /// them before it reads on.  Not owned; they must outlive the window.  Not for a regular
    /// file (it is read at its own offsets).
    std::span<const std::uint8_t> prefix{};
};

class InputWindow final : public core::InputStream {
public:
    /// @p fd is read from its current position; @p name is used in messages.
    InputWindow(int fd, std::string name, WindowOptions options = {});
    /// A window with no file: the caller feeds it with append() and end_input() (a
    /// library stream).  Its range is reserved like a pipe's.
    InputWindow(std::string name, WindowOptions options);
    ~InputWindow() override;
    InputWindow(const InputWindow&) = delete;
    InputWindow& operator=(const InputWindow&) = delete;

    // core::InputStream
    const std::uint8_t* begin() const override { return base_; }
    const std::uint8_t* ensure(const std::uint8_t* need) override;
    void release_before(const std::uint8_t* p) override;
    /// The input before offset @p done is compressed: release what lies more than the
    /// 32 KiB history behind it (the parallel graph's assembler calls this).
    void release_behind(std::size_t done) {
        if (done > core::kWindowSize) release_before(base_ + (done - core::kWindowSize));
    }

    /// The reader: fills the window until end of input, an error, or cancel().  Runs on
    /// an I/O thread; returns when done.
    void read_loop();
    /// Stops the reader and wakes everybody (errors, cancellation).
    void cancel();
    /// Throws the reader's error, if it had one (for instance a file that grew after the
    /// compressor had seen its end).
    void check() const;

    /// Fed windows: copies what fits of @p n bytes at @p p, keeping what is held (read
    /// and not released) within @p capacity; returns the bytes taken.
    std::size_t append(const std::uint8_t* p, std::size_t n, std::size_t capacity);
    /// Fed windows: waits until append() would take something (or cancel()).
    void wait_for_room(std::size_t capacity);
    /// Fed windows: no more input.
    void end_input();
    /// Fed windows: the end of what is present, and whether the input has ended.
    [[nodiscard]] const std::uint8_t* present_end() const;
    [[nodiscard]] bool ended() const;

    [[nodiscard]] bool seekable() const { return seekable_; }
    /// Bytes of the input read so far.
    [[nodiscard]] std::uint64_t bytes_read() const;

private:
    void reserve();
    bool reader_should_run() const;  // with mutex_ held
    void commit(std::size_t to);
    /// Moves a spare slot's pages to @p at; false (and no more recycling) if the kernel
    /// cannot move them without leaving a hole.
    bool move_spare(std::size_t spare, std::size_t at);
    static constexpr std::size_t kMaxSpares = 4;  // released slots kept for reuse
    void fail(std::string message);

    int fd_;
    std::string name_;
    WindowOptions options_;
    bool seekable_ = false;
    std::uint64_t start_offset_ = 0;   // regular files: where reading starts
    std::uint64_t expected_size_ = 0;  // regular files: bytes from there at open
    std::uint8_t* base_ = nullptr;  // a multiple of options_.release_step
    std::size_t reserved_ = 0;
    std::size_t page_ = 4096;

    mutable std::mutex mutex_;
    std::condition_variable data_cv_;  // the compressor waits for bytes
    std::condition_variable room_cv_;  // the reader waits for the compressor to ask for more
    std::size_t read_end_ = 0;         // bytes present: [released_, read_end_)
    std::size_t wanted_ = 0;           // furthest byte the compressor asked for
    std::size_t committed_ = 0;        // pages made writable up to here
    std::size_t released_ = 0;         // pages released below here
    std::deque<std::size_t> spares_;   // offsets of released slots whose pages are kept
    bool recycle_ = true;              // spares are moved with MREMAP_DONTUNMAP
    bool eof_ = false;
    bool reader_waiting_ = false;      // the reader sleeps on room_cv_
    bool cancelled_ = false;
    std::string error_;
};

}  // namespace flowdeflate::graph
