// output_writer.cpp - see output_writer.hpp.
#include "graph/output_writer.hpp"

#include "graph/failure.hpp"

#include "io/fd_io.hpp"
#include "io/large_array.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flowdeflate::graph {

OutputWriter::OutputWriter(int fd, std::string name, std::size_t max_pending)
    : fd_(fd), name_(std::move(name)), max_pending_(max_pending ? max_pending : 1) {}

void OutputWriter::reserve() {
    std::unique_lock lock(mutex_);
    room_cv_.wait(lock, [&] { return in_flight_ < max_pending_ || cancelled_ || !error_.empty(); });
    if (!error_.empty()) throw OutputError(error_);
    if (cancelled_) throw OutputError(name_ + ": writing was cancelled");
    ++in_flight_;
}

void OutputWriter::push(core::SegmentBuffer&& segment, std::function<void()> done) {
    std::lock_guard lock(mutex_);
    queue_.push_back(Item{std::move(segment), std::move(done)});
    work_cv_.notify_one();
}

core::SegmentBuffer OutputWriter::buffer(std::size_t size) {
    // Whole huge pages (io::LargeArray maps 2 MiB and more so): a fresh 4 KiB page costs a
    // fault of about 11 us on the hosts measured, a huge page about 0.24 us per 4 KiB
    // (docs/notes/io-and-memory.md, "What a page costs on these hosts"), and the writer's
    // buffers are recycled, full, for the whole run.  (The library's segments are not
    // rounded up: pooled across calls, a huge page would stay resident whole for a call
    // that wrote a few kilobytes.)
    size = io::whole_huge_pages(size);
    core::SegmentBuffer v;
    {
        std::lock_guard lock(mutex_);
        if (!free_.empty()) {
            v = std::move(free_.back());
            free_.pop_back();
        }
    }
    return core::with_room(std::move(v), size);
}

void OutputWriter::close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    work_cv_.notify_all();
}

void OutputWriter::cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    work_cv_.notify_all();
    room_cv_.notify_all();
}

std::uint64_t OutputWriter::bytes_written() const {
    std::lock_guard lock(mutex_);
    return written_;
}

std::string OutputWriter::error() const {
    std::lock_guard lock(mutex_);
    return error_;
}

void OutputWriter::write_loop() {
    for (;;) {
        Item item;
        {
            std::unique_lock lock(mutex_);
            // Runs until closed (after the graph is done), so every pushed segment's
            // callback runs, even after cancel() or a write error.
            work_cv_.wait(lock, [&] { return !queue_.empty() || closed_; });
            if (queue_.empty()) return;
            item = std::move(queue_.front());
            queue_.pop_front();
        }
        bool ok = true;
        bool skip;
        {
            std::lock_guard lock(mutex_);
            skip = cancelled_ || !error_.empty();
        }
        if (!skip) ok = io::write_all(fd_, item.data.data(), item.data.size());
        {
            std::lock_guard lock(mutex_);
            if (!ok && error_.empty()) {
                error_ = io::write_error_text(name_);  // libdeflate gzip's words
                room_cv_.notify_all();
            }
            if (ok && !skip) written_ += item.data.size();
            if (free_.size() < max_pending_ + 1) free_.push_back(std::move(item.data));
            if (in_flight_) --in_flight_;
            room_cv_.notify_all();
        }
        if (item.done) item.done();
    }
}

void WriterSink::write(core::SegmentBuffer&& segment) {
    check_cancelled(options_);
    if (options_.probe) ++options_.probe->segments_out;
    writer_.reserve();
    out_bytes_ += segment.size();
    hand_off(std::move(segment));
    if (options_.progress) options_.progress(window_.bytes_read(), out_bytes_);
}

}  // namespace flowdeflate::graph
