// windows.cpp - see windows.hpp.
#include "index/windows.hpp"

#include <libdeflate.h>

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

SharedWindows::SharedWindows(const Index& index) : index_(index) {}

SharedWindows::~SharedWindows() = default;

std::span<const std::uint8_t> SharedWindows::take(std::size_t i) {
    const SeekPoint& p = index_.points[i];
    if (p.packed_window.empty()) return p.window;
    Slot* slot = nullptr;
    {
        std::lock_guard lock(mutex_);
        auto [at, made] = slots_.try_emplace(i);
        if (made) at->second.uses_left = i == 0 ? 1 : 2;
        slot = &at->second;
        ++slot->holders;  // (kept in the map while held)
    }
    std::lock_guard lock(slot->mutex);
    if (!slot->inflated) {
        try {
            thread_local WindowInflater inflater;
            inflater.inflate(p.packed_window, slot->bytes, i);
        } catch (...) {
            Bytes().swap(slot->bytes);
            std::lock_guard map_lock(mutex_);
            --slot->holders;
            throw;
        }
        slot->inflated = true;
        inflated_.fetch_add(1, std::memory_order_relaxed);
    }
    return slot->bytes;
}

std::size_t SharedWindows::held() const {
    std::lock_guard lock(mutex_);
    return slots_.size();
}

void SharedWindows::give_back(std::size_t i) noexcept {
    if (index_.points[i].packed_window.empty()) return;
    std::lock_guard lock(mutex_);
    const auto at = slots_.find(i);
    if (at == slots_.end()) return;
    Slot& slot = at->second;
    --slot.uses_left;
    if (--slot.holders == 0 && slot.uses_left <= 0) slots_.erase(at);  // both spans are done with it
}

}  // namespace flowdeflate::index
