// windows.cpp - see windows.hpp.
#include "index/windows.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <string>

namespace flowdeflate::index {

void WindowInflater::Free::operator()(libdeflate_decompressor* d) const noexcept { libdeflate_free_decompressor(d); }

WindowInflater::WindowInflater() : d_(libdeflate_alloc_decompressor()) {
    if (!d_) throw std::bad_alloc();
}

WindowInflater::~WindowInflater() = default;

void WindowInflater::inflate(std::span<const std::uint8_t> zlib, Bytes& into, std::size_t i) {
    // Straight into place with one decompressor (a whole-stream inflater per window was
    // most of an index's reading: 70 us a window).
    into.resize(kWindowSize);
    std::size_t used = 0, size = 0;
    const libdeflate_result r =
        libdeflate_zlib_decompress_ex(d_.get(), zlib.data(), zlib.size(), into.data(), into.size(), &used, &size);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
        throw IndexError("invalid index: the window of point " + std::to_string(i) + " is longer than 32 KiB");
    if (r != LIBDEFLATE_SUCCESS || used != zlib.size())
        throw IndexError("invalid index: the window of point " + std::to_string(i) + " is not a zlib stream");
    into.resize(size);
}

}  // namespace flowdeflate::index

namespace flowdeflate::index {

struct SharedWindows::Slot {
    std::mutex mutex;
    Bytes bytes;
    bool inflated = false;
    int uses_left = 0;  // the span starting here, and the one ending here (not point 0's)
};

SharedWindows::SharedWindows(const Index& index) : index_(index) {
    const auto& points = index.points;
    if (std::none_of(points.begin(), points.end(), [](const SeekPoint& p) { return !p.packed_window.empty(); })) return;
    slots_ = std::make_unique<Slot[]>(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) slots_[i].uses_left = i == 0 ? 1 : 2;
}

SharedWindows::~SharedWindows() = default;

std::span<const std::uint8_t> SharedWindows::take(std::size_t i) {
    const SeekPoint& p = index_.points[i];
    if (p.packed_window.empty()) return p.window;
    Slot& slot = slots_[i];
    std::lock_guard lock(slot.mutex);
    if (!slot.inflated) {
        WindowInflater().inflate(p.packed_window, slot.bytes, i);
        slot.inflated = true;
    }
    return slot.bytes;
}

void SharedWindows::give_back(std::size_t i) noexcept {
    if (!slots_ || index_.points[i].packed_window.empty()) return;
    Slot& slot = slots_[i];
    std::lock_guard lock(slot.mutex);
    if (--slot.uses_left > 0) return;
    Bytes().swap(slot.bytes);  // both spans are done with it
    slot.inflated = false;
}

}  // namespace flowdeflate::index
