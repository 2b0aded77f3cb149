// parallel_inflate.hpp - decompression of any gzip file on several cores: the tasks of
// inflate::parallel_gunzip (src/inflate/parallel_line.hpp, the policy: regions, the main
// line, members and checks) run on oneTBB.
//
// Two flow-graph nodes on their own arena of `threads` slots (one kept for the calling
// thread, which runs the main line and writes): one decodes regions (concurrency
// threads - 1), the other completes marked stretches (resolution and CRC-32: short tasks,
// so they are not queued behind regions).  With pin_threads each thread is on a CPU of its
// own (pinning.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "flowdeflate/core.hpp"
#include "inflate/parallel_line.hpp"

namespace flowdeflate::graph {

using ParallelInflateStats = inflate::ParallelLineStats;
using ParallelInflateOptions = inflate::ParallelLineOptions;

/// Decompresses the gzip stream @p input (every member), handing the output to @p sink in
/// order.  Throws Error as decompress().
Result parallel_gunzip(std::span<const std::uint8_t> input, const Sink& sink, const ParallelInflateOptions& options,
                       ParallelInflateStats* stats = nullptr, bool pin_threads = false);

}  // namespace flowdeflate::graph
