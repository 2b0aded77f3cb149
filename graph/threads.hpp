// threads.hpp - how many threads a call runs on: decided here, read everywhere else.
//
//   available_cores()   the cores this process may use: the affinity mask (what oneTBB's
//                       default concurrency reads), capped by a cgroup CPU quota rounded up
//                       (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us), as the
//                       JVM and .NET do: under a quota of one CPU on a many-core host, a
//                       call starts one thread, not one per host core;
//   thread_count(o)     the threads a compression call runs on (see below).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "flowdeflate/options.hpp"

namespace flowdeflate::graph {

/// The cores this process may use (at least 1); computed once per process.
[[nodiscard]] int available_cores();

/// The threads a compression call with @p options runs on: the concurrency of
/// Options::arena when set; else Options::threads when not 0; else, from a task of an
/// arena the application sized (one whose concurrency is not oneTBB's default), that
/// arena's concurrency; else available_cores().
[[nodiscard]] int thread_count(const Options& options);

/// The CPU limit a cgroup quota sets for this process, in CPUs (1.5 for 150000/100000),
/// or nullopt when no quota applies.  @p mountinfo and @p cgroup are the texts of
/// /proc/self/mountinfo and /proc/self/cgroup; @p read_file reads a file's first line
/// (nullopt when it cannot).  Every cgroup from the process's up to its hierarchy's root
/// counts: the smallest quota wins.  Exposed for tests.
[[nodiscard]] std::optional<double> cgroup_cpu_limit(
    std::string_view mountinfo, std::string_view cgroup,
    const std::function<std::optional<std::string>(const std::string& path)>& read_file);

}  // namespace flowdeflate::graph
