// report.cpp - see report.hpp.
#include "cli/report.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>

#include <fmt/core.h>
#include <fmt/ranges.h>

namespace flowdeflate::cli {
namespace {

// Appends @p line to the statistics file @p path; a warning when it cannot.
void append_line(const std::string& path, const std::string& line) {
    FILE* f = std::fopen(path.c_str(), "a");
    if (!f) {
        fmt::print(stderr, "{}: {}: cannot write statistics: {}\n", program_name(), path, std::strerror(errno));
        return;
    }
    std::fputs(line.c_str(), f);
    std::fclose(f);
}

// The start of a statistics line: the file (a JSON string), the level, the sizes and the
// process's CPU time for it.
std::string stats_head(const std::string& name, int level, const FileRun& run) {
    std::string quoted;
    for (const char c : name) {
        if (c == '"' || c == '\\') quoted += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) quoted += c;
    }
    return fmt::format("{{\"file\":\"{}\",\"level\":{},\"in_bytes\":{},\"out_bytes\":{},\"process_cpu_ns\":{},",
                       quoted, level, run.result.in_bytes, run.result.out_bytes, run.cpu_ns);
}

// The parallel graph's counters.
std::string graph_fields(const GraphStats& s) {
    const ResolverStats& rs = s.resolver;
    return fmt::format("\"threads\":{},\"chunk\":{},\"ahead\":{},\"ring\":{},"
                       "\"wall_ns\":{},\"search_ns\":{},\"resolve_ns\":{},"
                       "\"code_ns\":{},\"assemble_ns\":{},\"resolver_wait_ns\":{},\"ring_full_ns\":{},"
                       "\"chunks\":{},\"blocks\":{},\"syncs\":{},\"repairs\":{},\"repair_bytes\":{},"
                       "\"tracks\":{},\"chunk_search_us\":[{}],\"chunk_worker\":[{}],"
                       "\"chunk_resolve_us\":[{}]}}\n",
                       s.threads, s.chunk_size, s.ahead, s.ring, s.wall_ns, s.search_ns, rs.resolve_ns, s.code_ns,
                       s.assemble_ns, s.resolver_wait_ns, s.ring_full_ns, rs.chunks, rs.blocks, rs.syncs, rs.repairs,
                       rs.repair_bytes, s.tracks_searched, fmt::join(s.chunk_search_us, ","),
                       fmt::join(s.chunk_worker, ","), fmt::join(s.chunk_resolve_us, ","));
}

// Levels 10-12's search ahead of the optimiser ("optimiser_ns" marks them).
std::string optimiser_fields(const OptimiserStats& s) {
    return fmt::format("\"threads\":{},\"chunk\":{},\"ahead\":{},\"wall_ns\":{},\"search_ns\":{},"
                       "\"optimiser_ns\":{},\"optimiser_wait_ns\":{},\"chunks\":{},"
                       "\"searched_by_optimiser\":{},\"min_cost_path\":\"{}\",\"path_min_part\":{},"
                       "\"path_passes\":{},\"path_positions\":{},\"path_split\":{},\"path_parts\":{},"
                       "\"path_taken\":{},\"path_disagreed\":{},\"path_ns\":{},\"path_guess_ns\":{}}}\n",
                       s.threads, s.chunk_size, s.ahead, s.wall_ns, s.search_ns, s.optimiser_ns, s.wait_ns, s.chunks,
                       s.searched_by_optimiser, s.min_cost_path, s.path_min_part, s.path_passes, s.path_positions,
                       s.path_split, s.path_parts, s.path_taken, s.path_disagreed, s.path_ns, s.path_guess_ns);
}

void print_optimiser(const OptimiserStats& n) {
    fmt::print(stderr,
               "  levels 10-12: {} threads, chunk {} bytes, ahead {}; chunks {} ({} searched by the optimiser)\n"
               "  time (ms): search {:.1f}, optimiser {:.1f} ({}); optimiser waited {:.1f} ({} times); wall {:.1f}\n"
               "  paths in parts: {} passes over blocks of 8 KiB or more ({} positions), {} split (idle threads)"
               " into {} parts, {} guessed by other threads and taken, {} guesses disagreed; time (ms):"
               " optimiser in those passes {:.1f}, guesses {:.1f}\n",
               n.threads, n.chunk_size, n.ahead, n.chunks, n.searched_by_optimiser, double(n.search_ns) / 1e6,
               double(n.optimiser_ns) / 1e6, n.min_cost_path, double(n.wait_ns) / 1e6, n.waits,
               double(n.wall_ns) / 1e6, n.path_passes, n.path_positions, n.path_split, n.path_parts, n.path_taken,
               n.path_disagreed, double(n.path_ns) / 1e6, double(n.path_guess_ns) / 1e6);
}

void print_graph(const GraphStats& s, std::uint64_t in) {
    const ResolverStats& r = s.resolver;
    const auto ms = [](std::uint64_t ns) { return double(ns) / 1e6; };
    fmt::print(stderr,
               "  parallel graph: {} threads, chunk {} bytes, ahead {}, ring {}\n"
               "  chunks {} ({}), blocks {}, syncs {} ({} onto branches)\n"
               "  repairs {}: {} bytes ({:.3f}% of the input); causes: min match length {}, chunk start {}\n"
               "  time (ms): search {:.1f}, resolve {:.1f}, code {:.1f}, assemble {:.1f}; resolver waited {:.1f};"
               " ring full {:.1f}; wall {:.1f}\n",
               s.threads, s.chunk_size, s.ahead, s.ring, r.chunks,
               s.tracks_searched == 0 ? std::string("none searched ahead: one worker, the resolver parsed alone")
                                      : fmt::format("{} searched with step masks, {} with branches", r.masked_chunks,
                                                    r.branched_chunks),
               r.blocks, r.syncs, r.branches, r.repairs, r.repair_bytes,
               in ? 100.0 * double(r.repair_bytes) / double(in) : 0.0, r.repairs_min_len, r.repairs_phase,
               ms(s.search_ns), ms(r.resolve_ns), ms(s.code_ns), ms(s.assemble_ns), ms(s.resolver_wait_ns),
               ms(s.ring_full_ns), ms(s.wall_ns));
    // Each worker's share of the searches: equal work per chunk, so a worker whose chunks
    // cost more ran on a slower core (a shared machine's neighbours).
    std::map<int, std::pair<std::uint64_t, std::size_t>> by_worker;  // slot -> (us, chunks)
    for (std::size_t i = 0; i < s.chunk_worker.size() && i < s.chunk_search_us.size(); ++i) {
        if (s.chunk_worker[i] < 0) continue;
        auto& [us, chunks] = by_worker[s.chunk_worker[i]];
        us += s.chunk_search_us[i];
        ++chunks;
    }
    if (by_worker.empty()) return;
    std::string line = "  search per worker:";
    for (const auto& [slot, w] : by_worker)
        line += fmt::format(" {:.1f} ms / {} chunks ({:.2f} ms each);", double(w.first) / 1e3, w.second,
                            double(w.first) / 1e3 / double(w.second));
    line.back() = '\n';
    fmt::print(stderr, "{}", line);
}

}  // namespace

std::uint64_t process_cpu_ns() {
    struct rusage u {};
    ::getrusage(RUSAGE_SELF, &u);
    const auto ns = [](const timeval& t) { return std::uint64_t(t.tv_sec) * 1'000'000'000u + std::uint64_t(t.tv_usec) * 1000u; };
    return ns(u.ru_utime) + ns(u.ru_stime);
}

double peak_rss_mib() {
    struct rusage ru {};
    ::getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0;
}

Progress::Progress(const Options& o, std::uint64_t total)
    : enabled_(o.progress_bar && ::isatty(STDERR_FILENO)), total_(total) {}

Progress::~Progress() {
    if (shown_) fmt::print(stderr, "\r\033[K");
}

void Progress::update(std::uint64_t in, std::uint64_t out) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    if (total_) {
        const int width = 30;
        const int filled = int(double(in) / double(total_) * width);
        fmt::print(stderr, "\r[{:<{}}] {:3.0f}%  {:.1f} MB/s  ratio {:.1f}%", std::string(std::min(filled, width), '#'),
                   width, 100.0 * double(in) / double(total_), double(in) / 1e6 / std::max(secs, 1e-3),
                   in ? 100.0 * double(out) / double(in) : 0.0);
    } else {
        fmt::print(stderr, "\r{:.1f} MB read  {:.1f} MB/s", double(in) / 1e6, double(in) / 1e6 / std::max(secs, 1e-3));
    }
    shown_ = true;
}

void append_stats(const Options& o, const std::string& name, const FileRun& run) {
    if (o.stats_file.empty()) return;
    const std::string head = stats_head(name, o.level, run);
    const GraphStats& s = run.stats;
    if (s.parallel)
        append_line(o.stats_file, head + graph_fields(s));
    else if (s.optimiser.ran)
        append_line(o.stats_file, head + optimiser_fields(s.optimiser));
    else if (s.direct)  // one chunk, on this thread: no nodes to count
        append_line(o.stats_file, head + "\"threads\":1,\"direct\":true}\n");
    else  // one compressor (--sequential, -p 1, level 0): no nodes to count
        append_line(o.stats_file, head + "\"threads\":1,\"sequential\":true}\n");
}

void append_decompress_stats(const Options& o, const std::string& name, const Result& result,
                             const DecompressStats& s, std::uint64_t cpu_ns) {
    if (o.stats_file.empty()) return;
    FileRun run;
    run.result = result;
    run.cpu_ns = cpu_ns;
    std::string head = stats_head(name, 0, run);
    head.replace(head.find("\"level\":0,"), 10, "\"decompress\":true,");
    append_line(o.stats_file,
                head + fmt::format("\"decoder\":\"{}\",\"threads\":{},\"regions\":{},\"worker_regions\":{},"
                                   "\"worker_bytes\":{},\"main_line_bytes\":{},\"main_line_ns\":{},"
                                   "\"main_line_decode_ns\":{},\"workers_ns\":{},\"wall_ns\":{}}}\n",
                                   s.decoder, s.threads, s.regions, s.worker_regions, s.worker_bytes, s.main_line_bytes,
                                   s.main_line_ns, s.main_line_decode_ns, s.workers_ns, s.wall_ns));
}

void report_decompress(const Options& o, const std::string& name, const DecodedRun& run, const std::string& what) {
    if (!o.verbose) return;
    const std::uint64_t in = run.result.in_bytes, out = run.result.out_bytes;
    const DecompressStats& s = run.stats;
    const std::string how = std::string_view(s.decoder) == "copy"
                                ? std::string("not gzip: copied")
                                : fmt::format("{} decoder, {} thread{}", s.decoder, s.threads, s.threads == 1 ? "" : "s");
    fmt::print(stderr, "{}: {} ({} -> {} bytes, {:.1f} MB/s, {}, peak memory {:.1f} MiB)\n", name, what, in, out,
               double(out) / 1e6 / std::max(run.seconds, 1e-6), how, peak_rss_mib());
}

void report(const Options& o, const std::string& name, const FileRun& run, const std::string& what) {
    if (!o.verbose) return;
    const std::uint64_t in = run.result.in_bytes, out = run.result.out_bytes;
    const double ratio = in ? 100.0 * (1.0 - double(out) / double(in)) : 0.0;
    fmt::print(stderr, "{}: {:.1f}% -- {} ({} -> {} bytes, {:.1f} MB/s, peak memory {:.1f} MiB)\n", name, ratio,
               what, in, out, double(in) / 1e6 / std::max(run.seconds, 1e-6), peak_rss_mib());
    if (run.stats.optimiser.ran) print_optimiser(run.stats.optimiser);
    if (run.stats.parallel) print_graph(run.stats, in);
}

}  // namespace flowdeflate::cli
