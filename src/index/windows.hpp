// windows.hpp - a seek point's window, inflated from the zlib stream a gztool index keeps
// it in (SeekPoint::packed_window) where it is not held inflated.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>

#include "flowdeflate/index.hpp"

struct libdeflate_decompressor;

namespace flowdeflate::index {

class WindowInflater {
public:
    WindowInflater();
    ~WindowInflater();
    WindowInflater(const WindowInflater&) = delete;
    WindowInflater& operator=(const WindowInflater&) = delete;

    /// Inflates the zlib stream @p zlib (point @p i's window) into @p into, sized to it.
    /// Throws IndexError naming the point when it is no zlib stream of at most 32 KiB.
    void inflate(std::span<const std::uint8_t> zlib, Bytes& into, std::size_t i);

private:
    struct Free {
        void operator()(libdeflate_decompressor* d) const noexcept;
    };
    std::unique_ptr<libdeflate_decompressor, Free> d_;
};

/// The windows of an index's points for the spans that decode from them at once: each span
/// needs the window it starts from and checks its end against the next point's, so a
/// packed window is inflated once, by whichever of the two asks first, and let go when both
/// have given it back (and nobody holds it: a span decoded again inflates it again).
/// Windows held inflated are handed out as they are.  Safe to use from several threads.
class SharedWindows {
public:
    explicit SharedWindows(const Index& index);
    ~SharedWindows();
    SharedWindows(const SharedWindows&) = delete;
    SharedWindows& operator=(const SharedWindows&) = delete;

    /// One use of point @p i's window (`bytes`), let go when it ends.  Throws IndexError
    /// naming the point when its packed window does not inflate.
    class Use {
    public:
        Use(SharedWindows& windows, std::size_t i) : windows_(windows), point_(i), bytes(windows.take(i)) {}
        ~Use() { windows_.give_back(point_); }
        Use(const Use&) = delete;
        Use& operator=(const Use&) = delete;

    private:
        SharedWindows& windows_;
        std::size_t point_;

    public:
        const std::span<const std::uint8_t> bytes;
    };

    /// Packed windows inflated so far, and those held now (inflated and not yet let go).
    [[nodiscard]] std::uint64_t inflated() const noexcept { return inflated_.load(std::memory_order_relaxed); }
    [[nodiscard]] std::size_t held() const;

private:
    std::span<const std::uint8_t> take(std::size_t i);
    void give_back(std::size_t i) noexcept;

    // A packed window in use: made on the first take, dropped when nobody holds it and
    // both of its uses are spent.  Slots live in a map (only the points in use: a read of
    // one span costs nothing per point of a large index), each with its own lock for
    // inflating.
    struct Slot {
        std::mutex mutex;
        Bytes bytes;
        bool inflated = false;
        int holders = 0;
        int uses_left = 0;  // the span starting here, and the one ending here (not point 0's)
    };
    const Index& index_;
    mutable std::mutex mutex_;  // the map's
    std::unordered_map<std::size_t, Slot> slots_;
    std::atomic<std::uint64_t> inflated_{0};
};

}  // namespace flowdeflate::index
