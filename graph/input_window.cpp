// input_window.cpp - see input_window.hpp.
#include "graph/input_window.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "io/aligned_map.hpp"
#include "io/fd_io.hpp"

namespace flowdeflate::graph {

InputWindow::InputWindow(int fd, std::string name, WindowOptions options)
    : fd_(fd), name_(std::move(name)), options_(options) {
    page_ = std::size_t(sysconf(_SC_PAGESIZE));
    struct stat st {};
    if (fstat(fd_, &st) != 0) throw InputError(name_ + ": " + std::strerror(errno));
    // A regular file of size 0 may still have contents (/proc, /sys, some FUSE files
    // report 0): it is read like a pipe, to its end.
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        const off_t pos = lseek(fd_, 0, SEEK_CUR);
        seekable_ = pos >= 0;
        start_offset_ = std::uint64_t(std::max<off_t>(pos, 0));
        expected_size_ = std::uint64_t(st.st_size) - std::min<std::uint64_t>(start_offset_, std::uint64_t(st.st_size));
    }
    reserve();
}

InputWindow::InputWindow(std::string name, WindowOptions options)
    : fd_(-1), name_(std::move(name)), options_(options) {
    page_ = std::size_t(sysconf(_SC_PAGESIZE));
    reserve();
}

void InputWindow::reserve() {
    // One spare page past the end: the reader probes there to notice a file that grew.
    std::size_t want = seekable_ ? std::size_t(expected_size_) + 2 * page_ : options_.pipe_reserve;
    want = (want + page_ - 1) / page_ * page_;
    // The range starts on a slot boundary: then a slot is whole page tables, and mremap() moves them as such when it recycles a slot
    // (commit()).  Unaligned, it rewrites 512 entries one by one, and on the 2-core VM
    // hosts we measure on every page of the moved slot then cost a fault in the
    // hypervisor when next touched: reading 105 MB took 0.20 s instead of 0.05 s of CPU
    // (docs/notes/io-and-memory.md).
    const std::size_t slot = options_.release_step;
    for (;;) {
        if (void* p = io::map_aligned(want, slot, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)) {
            base_ = static_cast<std::uint8_t*>(p);
            reserved_ = want;
            // Transparent huge pages where the system allows them for advised ranges (Debian's
            // default): a slot is then one page, faulted in and moved as one.  Committing
            // fresh 4 KiB pages costs several times what huge pages cost
            // (docs/notes/io-and-memory.md).  Small inputs stay on small pages: a 2 MiB page
            // to zero is not worth it for a file of a few pages, nor for the first slots of a
            // pipe or a library stream, which are often small (each stream has its own window).
            const std::size_t small = seekable_ ? 0 : 2 * slot;
            if (want >= small + 2 * slot) madvise(base_ + small, (want - small) / slot * slot, MADV_HUGEPAGE);
            break;
        }
        // A pipe's range may be cut down (ulimit -v); a file's may not.
        if (seekable_ || want <= (std::size_t(64) << 20))
            throw InputError(name_ + ": cannot reserve address space for the input: " + std::strerror(errno));
        want /= 2;
    }
}

InputWindow::~InputWindow() {
    if (base_) munmap(base_, reserved_);
}

std::uint64_t InputWindow::bytes_read() const {
    std::lock_guard lock(mutex_);
    return read_end_;
}

void InputWindow::fail(std::string message) {
    std::lock_guard lock(mutex_);
    if (error_.empty()) error_ = std::move(message);
    cancelled_ = true;
    data_cv_.notify_all();
    room_cv_.notify_all();
}

void InputWindow::cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    data_cv_.notify_all();
    room_cv_.notify_all();
}

const std::uint8_t* InputWindow::ensure(const std::uint8_t* need) {
    const std::size_t want = std::size_t(std::max<std::ptrdiff_t>(need - base_, 0));
    std::unique_lock lock(mutex_);
    if (want > wanted_) {
        wanted_ = want;
        // Wake the reader only when it has real work: somebody waits for bytes, or there
        // is room for a refill.  Waking it at every block start cost 6% of level 6 in
        // futex wake-ups (most of them found nothing to do).
        if (reader_waiting_ && reader_should_run()) room_cv_.notify_one();
    }
    data_cv_.wait(lock, [&] { return read_end_ >= want || eof_ || cancelled_; });
    if (!error_.empty()) throw InputError(error_);
    if (cancelled_ && !eof_ && read_end_ < want) throw InputError(name_ + ": reading was cancelled");
    return base_ + read_end_;
}

void InputWindow::check() const {
    std::lock_guard lock(mutex_);
    if (!error_.empty()) throw InputError(error_);
}

void InputWindow::release_before(const std::uint8_t* p) {
    if (p <= base_) return;
    const std::size_t slot = options_.release_step;
    std::size_t from, upto;
    {
        std::lock_guard lock(mutex_);
        // Whole slots only: each change of the page tables of a multi-threaded process
        // costs a TLB shootdown, so not once per small block.
        upto = std::min(std::size_t(p - base_), read_end_) / slot * slot;
        if (upto <= released_) return;
        from = released_;
        released_ = upto;
    }
    // Below read_end_ the filler writes nothing, and the compressor is done with it.  A
    // few slots are kept as spares, with their pages, for the filler to move ahead
    // (commit()); the rest are given back.
    for (std::size_t at = from; at < upto; at += slot) {
        {
            std::lock_guard lock(mutex_);
            if (recycle_ && spares_.size() < kMaxSpares) {
                spares_.push_back(at);
                continue;
            }
        }
        madvise(base_ + at, slot, MADV_DONTNEED);
        mprotect(base_ + at, slot, PROT_NONE);
    }
    std::lock_guard lock(mutex_);
    room_cv_.notify_all();  // a fed window has room again
}

bool InputWindow::move_spare(std::size_t spare, std::size_t at) {
    const std::size_t slot = options_.release_step;
    // MREMAP_DONTUNMAP leaves the old place mapped (empty), so the reserved range never
    // has a hole.  A plain mremap would unmap it, and before it could be reserved again
    // another thread's mmap (malloc's, for one) could land there and then be replaced by
    // the reservation: that corrupted the heap of runs with many threads.
    if (mremap(base_ + spare, slot, slot, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, base_ + at) ==
        MAP_FAILED) {
        // A kernel without MREMAP_DONTUNMAP (before 5.7): no more recycling; the spare's
        // pages go back as released slots' do.
        std::lock_guard lock(mutex_);
        recycle_ = false;
        spares_.push_back(spare);
        while (!spares_.empty()) {
            madvise(base_ + spares_.front(), slot, MADV_DONTNEED);
            mprotect(base_ + spares_.front(), slot, PROT_NONE);
            spares_.pop_front();
        }
        return false;
    }
    mprotect(base_ + spare, slot, PROT_NONE);
    return true;
}

void InputWindow::commit(std::size_t to) {
    // Only the filler (the reader thread, or append()'s caller) commits.
    const std::size_t slot = options_.release_step;
    while (committed_ < to && committed_ < reserved_) {
        const std::size_t at = committed_;
        const std::size_t len = std::min(slot - at % slot, reserved_ - at);
        std::optional<std::size_t> spare;
        if (at % slot == 0 && len == slot) {
            std::lock_guard lock(mutex_);
            if (!spares_.empty()) {
                spare = spares_.front();
                spares_.pop_front();
            }
        }
        if (spare && move_spare(*spare, at)) {
            // The spare's pages (already faulted in: no zeroing, no faults) are here now.
        } else if (mprotect(base_ + at, len, PROT_READ | PROT_WRITE) != 0) {
            throw InputError(name_ + ": cannot commit memory for the input: " + std::strerror(errno));
        }
        committed_ = at + len;
    }
}

std::size_t InputWindow::append(const std::uint8_t* p, std::size_t n, std::size_t capacity) {
    std::size_t end, take;
    {
        std::lock_guard lock(mutex_);
        if (cancelled_) throw InputError(name_ + ": the stream was abandoned");
        if (eof_) throw InputError(name_ + ": write after the end of the input");
        end = read_end_;
        const std::size_t held = read_end_ - released_;
        take = std::min(n, capacity > held ? capacity - held : 0);
        take = std::min(take, reserved_ - end);
        if (take == 0 && n > 0 && end == reserved_)
            throw InputError(name_ + ": input is larger than the " + std::to_string(reserved_ >> 20) +
                             " MiB this process could reserve for it");
    }
    if (take == 0) return 0;
    // Only this thread writes at or past read_end_; readers stay below it.
    if (end + take > committed_) commit(end + take);
    std::memcpy(base_ + end, p, take);
    std::lock_guard lock(mutex_);
    read_end_ = end + take;
    data_cv_.notify_all();
    return take;
}

void InputWindow::wait_for_room(std::size_t capacity) {
    std::unique_lock lock(mutex_);
    room_cv_.wait(lock, [&] { return cancelled_ || read_end_ - released_ < capacity; });
}

void InputWindow::end_input() {
    std::lock_guard lock(mutex_);
    eof_ = true;
    data_cv_.notify_all();
}

const std::uint8_t* InputWindow::present_end() const {
    std::lock_guard lock(mutex_);
    return base_ + read_end_;
}

bool InputWindow::ended() const {
    std::lock_guard lock(mutex_);
    return eof_;
}

bool InputWindow::reader_should_run() const {
    // Read when a compressor waits for bytes not yet read, or when at least a refill's
    // worth (half the read-ahead) fits below the read-ahead limit; then read up to it.
    const std::size_t limit = wanted_ + options_.read_ahead;
    return cancelled_ || read_end_ < wanted_ || read_end_ + std::max(options_.read_ahead / 2, options_.read_chunk) <= limit;
}

void InputWindow::read_loop() {
    try {
        std::size_t end = 0;
        if (const std::span<const std::uint8_t> prefix = options_.prefix; !prefix.empty()) {
            if (seekable_) throw InputError(name_ + ": bytes read ahead of a regular file");  // (a caller's bug)
            if (prefix.size() > reserved_) throw InputError(name_ + ": input is larger than its window's range");
            commit(prefix.size());
            std::memcpy(base_, prefix.data(), prefix.size());
            end = prefix.size();
            std::lock_guard lock(mutex_);
            read_end_ = end;
            data_cv_.notify_all();
        }
        for (;;) {
            {
                std::unique_lock lock(mutex_);
                if (read_end_ >= wanted_ + options_.read_ahead) {  // at the limit: sleep until a refill fits
                    reader_waiting_ = true;
                    room_cv_.wait(lock, [&] { return cancelled_ || reader_should_run(); });
                    reader_waiting_ = false;
                }
                if (cancelled_) return;
            }
            // Read one chunk into freshly committed pages (the compressor reads only below
            // read_end_, so the reader owns [end, reserved_)).
            // A file's range has spare pages past its size, so a read there notices growth.
            const std::size_t chunk = std::min(options_.read_chunk, reserved_ - end);
            if (chunk == 0) {
                fail(name_ + ": input is larger than the " + std::to_string(reserved_ >> 20) +
                     " MiB this process could reserve for it");
                return;
            }
            if (end + chunk > committed_) commit(end + chunk);
            ssize_t n;
            do {
                n = seekable_ ? pread(fd_, base_ + end, chunk, off_t(start_offset_ + end)) : read(fd_, base_ + end, chunk);
            } while (n < 0 && errno == EINTR);
            if (n < 0) {
                fail(io::read_error_text(name_));  // libdeflate gzip's words
                return;
            }
            if (seekable_ && end + std::size_t(n) > expected_size_) {
                fail(name_ + ": file grew while being compressed (expected " + std::to_string(expected_size_) +
                     " bytes); output not kept");
                return;
            }
            if (n == 0 && seekable_ && end < expected_size_) {
                fail(name_ + ": file shrank while being compressed (expected " + std::to_string(expected_size_) +
                     " bytes, found " + std::to_string(end) + "); output not kept");
                return;
            }
            std::lock_guard lock(mutex_);
            if (n == 0) {
                eof_ = true;
                data_cv_.notify_all();
                return;
            }
            end += std::size_t(n);
            read_end_ = end;
            data_cv_.notify_all();
        }
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

}  // namespace flowdeflate::graph
