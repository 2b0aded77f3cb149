// options.cpp - see options.hpp.  Short options combine as gzip users type them (-9ck,
// -S.z), long ones take "--name value" or "--name=value".
#include "cli/options.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <fmt/core.h>

#include "flowdeflate/core.hpp"

namespace flowdeflate::cli {

namespace {
std::string g_program_name = "flowdeflate";
}  // namespace

const std::string& program_name() { return g_program_name; }

bool is_gunzip_name(std::string_view name) { return name == "gunzip" || name == "flowdeflate-gunzip"; }

void print_usage() {
    fmt::print(stdout,
               "Usage: {} [OPTION]... [FILE]...\n"
               "Compress or decompress FILEs in the gzip format (or zlib or raw DEFLATE).  Compressed\n"
               "output is byte for byte what libdeflate's gzip (1.19 and newer) writes at the same\n"
               "level (for zlib and DEFLATE: libdeflate_zlib_compress / libdeflate_deflate_compress).\n"
               "With no FILE, or when FILE is -, read standard input and write standard output.\n"
               "\n"
               "  -1 .. -12           compression level (default 6); -0 stores without compressing;\n"
               "  -L, --level L       10-12 compress most and are slow\n"
               "  -c, --stdout        write to standard output; keep input files\n"
               "  -d, --decompress    decompress (multi-member files too); the default when run as\n"
               "                      gunzip or flowdeflate-gunzip\n"
               "  -t, --test          test compressed files: decompress and discard\n"
               "  -f, --force         overwrite existing output files; compress files that already\n"
               "                      have the suffix or several hard links; write compressed data\n"
               "                      to a terminal or read it from one; with -d -c, copy data that\n"
               "                      is not gzip to standard output unchanged\n"
               "  -k, --keep          keep (do not delete) input files\n"
               "  -n, --no-name       accepted for compatibility: no name or time is ever stored\n"
               "  -q, --quiet         suppress warnings (a skipped file then exits 0)\n"
               "  -S, --suffix SUF    use suffix SUF instead of .gz (.zz for zlib, .deflate for DEFLATE)\n"
               "      --format F      gzip (default), zlib or deflate (raw DEFLATE), for compressing\n"
               "                      and decompressing\n"
               "  -p, --threads N     worker threads (default: the cores this process may use: its\n"
               "                      CPU affinity, capped by a cgroup CPU quota); levels 1-9 run the\n"
               "                      parallel graph, levels 10-12 search matches on N-1 threads\n"
               "                      beside one optimiser (and, when idle, compute parts of its\n"
               "                      passes); level 0 and -p 1 (with --tracks auto)\n"
               "                      run one compressor (--sequential); decompressing a gzip file\n"
               "                      (not a pipe) uses those cores up to 8 (-p N: N, --sequential: 1)\n"
               "      --sequential    one compressor between reader and writer (the reference path)\n"
               "      --chunk BYTES   input per parallel search task (default 1M, 512K at levels\n"
               "                      10-12; at least 4096; K and M suffixes)\n"
               "      --ahead N       chunks searched ahead of the resolver (levels 10-12: of the\n"
               "                      optimiser) (default threads + 4)\n"
               "      --ring N        resolved blocks waiting to be coded and assembled (default 4096)\n"
               "      --tracks MODE   auto (default), history or all: which tracks a search parses\n"
               "      --search-concurrency N, --code-concurrency N\n"
               "                      tasks of the Search / Code nodes at once (default: threads)\n"
               "  -v, --verbose       per file: ratio, speed and peak memory on standard error, and\n"
               "                      for the parallel graph its chunks, blocks, syncs, repairs and\n"
               "                      the time of each node; with -d or -t: where the output went\n"
               "                      (OK for -t), sizes, speed, the decoder and its threads\n"
               "      --stats FILE    write those counters (per file, one JSON object per line) to\n"
               "                      FILE (scripts/bench reads them); one compressor\n"
               "                      (--sequential, -p 1) writes its sizes only; with -d: the decoder,\n"
               "                      the CPU time of the main line (in order: the serial part) and\n"
               "                      of the workers, the output each decoded\n"
               "      --progress      progress bar on standard error (only when it is a terminal)\n"
               "      --export-index IDX  also write a seek index of the one FILE to IDX: seek points\n"
               "                      (block boundaries with their 32 KiB window) every --index-span\n"
               "                      bytes of data; compressing, the .gz is unchanged; with -d, from\n"
               "                      any gzip file (one thread)\n"
               "      --index-span BYTES  data between seek points (default 4M; K, M, G suffixes)\n"
               "      --index-format F  gztool (default: gztool -I reads it) or indexed_gzip (its\n"
               "                      IndexedGzipFile(index_file=) reads it); -d reads either\n"
               "      --import-index IDX  with -d: decode the spans between IDX's seek points on all\n"
               "                      cores, each checked against the index\n"
               "      --range OFF:LEN with -d -c: write only LEN bytes of the data from offset OFF\n"
               "                      (K, M, G suffixes), from the index of --import-index or FILE.gzi\n"
               "  -h, --help          print this help\n"
               "  -V, --version       print the version\n"
               "\n"
               "FILE.gz gets FILE's mode, owner and times.  Output is written under a temporary name\n"
               "and renamed when complete; on an error or a signal (SIGINT, SIGTERM, SIGHUP, or\n"
               "SIGBUS: a mapped input truncated meanwhile) it is removed, and the\n"
               "input is deleted only after its output is complete.  Input and output stream through\n"
               "a bounded window, so memory does not grow with the file; decompression too.\n"
               "\n"
               "Exit status: 0 success, 1 error, 2 a file was skipped with a warning (an existing\n"
               "output without -f, a name without the suffix, a directory...).\n",
               g_program_name);
}

namespace {

// The message, then the usage line and where the options are (the whole help would bury
// the message).
int usage_error(const std::string& message) {
    fmt::print(stderr, "{0}: {1}\nUsage: {0} [OPTION]... [FILE]...\nTry '{0} --help' for the options.\n",
               g_program_name, message);
    return 1;
}

// A byte count with an optional K, M or G suffix (KiB, MiB, GiB).
bool parse_size(std::string_view s, std::size_t& out) {
    std::size_t mult = 1;
    if (!s.empty() && (s.back() == 'K' || s.back() == 'k')) mult = 1024;
    if (!s.empty() && (s.back() == 'M' || s.back() == 'm')) mult = 1024 * 1024;
    if (!s.empty() && (s.back() == 'G' || s.back() == 'g')) mult = std::size_t(1) << 30;
    if (mult != 1) s.remove_suffix(1);
    if (s.empty() || s.size() > 12) return false;
    std::size_t v = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + std::size_t(c - '0');
    }
    out = v * mult;
    return true;
}

bool parse_int(std::string_view s, int& out) {
    if (s.empty() || s.size() > 9) return false;
    int v = 0;
    for (char ch : s) {
        if (ch < '0' || ch > '9') return false;
        v = v * 10 + (ch - '0');
    }
    out = v;
    return true;
}

// A count of 1 .. @p max (the library's bound for the field the flag sets).
bool parse_count(std::string_view s, int max, int& out) {
    int v;
    if (!parse_int(s, v) || v < 1 || v > max) return false;
    out = v;
    return true;
}

void print_version() {
    fmt::print("flowdeflate {}\n"
               "Output identical to libdeflate {}'s gzip.\n"
               "\n"
               "Its compressor follows libdeflate, Copyright 2016 Eric Biggers, free software under\n"
               "the terms of the MIT license; it decompresses with ISA-L's inflate, Copyright\n"
               "2011-2024 Intel Corporation, BSD-3-Clause license.  There is NO WARRANTY, to the\n"
               "extent permitted by law.\n",
               kVersion, kReferenceVersion);
}

// libdeflate's message for a level it does not accept; like libdeflate's gzip, no usage
// follows it.
ParseResult invalid_level(std::string_view digits) {
    fmt::print(stderr, "{}: Invalid compression level: \"{}\".  Must be an integer in the range [0, {}].\n",
               g_program_name, digits, kMaxLevel);
    return {std::nullopt, 1};
}

std::string thread_count_error(std::string_view value) {
    return "invalid thread count: \"" + std::string(value) + "\" (1.." + std::to_string(kMaxThreads) + ")";
}

// The short options, each handled in short_options() below.
constexpr const char* kShortOptions = "cdtfknqvhVSLp";

// One pass over the words of argv.  Each step returns a ParseResult when parsing ends
// there (--help, --version, an error), nothing to go on.
struct ArgParser {
    ArgParser(int c, char** v) : argc(c), argv(v) {}
    int argc;
    char** argv;
    int i = 1;  // the word being parsed
    Options o;
    bool suffix_given = false;

    static ParseResult fail(const std::string& m) { return ParseResult{std::nullopt, usage_error(m)}; }

    bool set_level(std::string_view digits) {
        int level;
        // "-01" is not a level, as in libdeflate's gzip.
        if (!parse_int(digits, level) || level > kMaxLevel || (digits.size() > 1 && digits[0] == '0')) return false;
        o.level = level;
        return true;
    }

    // "--name", "--name=value" or "--name value".
    std::optional<ParseResult> long_option(std::string_view a) {
        std::string_view name = a.substr(2), value;
        bool has_value = false;
        if (const auto eq = name.find('='); eq != std::string_view::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            has_value = true;
        }
        auto take_value = [&]() -> bool {
            if (has_value) return true;
            if (i + 1 >= argc) return false;
            value = argv[++i];
            return true;
        };
        if (name == "stdout" || name == "to-stdout") o.to_stdout = true;
        else if (name == "decompress" || name == "uncompress") o.decompress = true;
        else if (name == "test") o.test = true;
        else if (name == "force") o.force = true;
        else if (name == "keep") o.keep = true;
        else if (name == "no-name") {}
        else if (name == "quiet") o.quiet = true;
        else if (name == "verbose") o.verbose = true;
        else if (name == "progress") o.progress_bar = true;
        else if (name == "sequential") o.sequential = true;
        else if (name == "help") {
            print_usage();
            return ParseResult{std::nullopt, 0};
        } else if (name == "version") {
            print_version();
            return ParseResult{std::nullopt, 0};
        } else if (name == "level") {
            if (!take_value() || !set_level(value)) return invalid_level(value);
        } else if (name == "suffix") {
            if (!take_value()) return fail("option --suffix needs a value");
            o.suffix = std::string(value);
            suffix_given = true;
        } else if (name == "threads") {
            if (!take_value() || !parse_count(value, kMaxThreads, o.threads)) return fail(thread_count_error(value));
        } else if (name == "chunk") {
            if (!take_value() || !parse_size(value, o.chunk_size) || o.chunk_size < kMinChunkSize ||
                o.chunk_size > kMaxChunkSize)
                return fail("invalid chunk size (4096 bytes .. 1 GiB; K and M suffixes): \"" +
                            std::string(value) + "\"");
        } else if (name == "format") {
            if (!take_value()) return fail("option --format needs a value");
            if (value == "gzip") o.format = Format::gzip;
            else if (value == "zlib") o.format = Format::zlib;
            else if (value == "deflate" || value == "raw") o.format = Format::deflate;
            else return fail("invalid value for --format (gzip, zlib or deflate): \"" + std::string(value) + "\"");
        } else if (name == "ahead" || name == "ring" || name == "search-concurrency" ||
                   name == "code-concurrency") {
            int& target = name == "ahead" ? o.ahead
                          : name == "ring" ? o.ring
                          : name == "search-concurrency" ? o.search_concurrency
                                                         : o.code_concurrency;
            const int max = name == "ahead" ? kMaxAhead : name == "ring" ? kMaxRing : kMaxThreads;
            if (!take_value() || !parse_count(value, max, target))
                return fail("invalid value for --" + std::string(name) + ": \"" + std::string(value) + "\" (1.." +
                            std::to_string(max) + ")");
        } else if (name == "stats") {
            if (!take_value() || value.empty()) return fail("option --stats needs a file name");
            o.stats_file = std::string(value);
        } else if (name == "export-index" || name == "import-index") {
            if (!take_value() || value.empty()) return fail("option --" + std::string(name) + " needs a file name");
            (name == "export-index" ? o.export_index : o.import_index) = std::string(value);
        } else if (name == "index-span") {
            std::size_t span = 0;
            if (!take_value() || !parse_size(value, span) || span == 0)
                return fail("invalid index span (bytes, at least 1; K, M and G suffixes): \"" + std::string(value) + "\"");
            o.index_span = span;
        } else if (name == "index-format") {
            if (!take_value()) return fail("option --index-format needs a value");
            if (value == "gztool") o.index_format = IndexFormat::gztool;
            else if (value == "indexed_gzip") o.index_format = IndexFormat::indexed_gzip;
            else return fail("invalid value for --index-format (gztool or indexed_gzip): \"" + std::string(value) + "\"");
        } else if (name == "range") {
            const auto colon = take_value() ? value.find(':') : std::string_view::npos;
            std::size_t offset = 0, length = 0;
            if (colon == std::string_view::npos || !parse_size(value.substr(0, colon), offset) ||
                !parse_size(value.substr(colon + 1), length))
                return fail("invalid value for --range (OFFSET:LENGTH in bytes; K, M and G suffixes): \"" +
                            std::string(value) + "\"");
            o.range = std::pair<std::uint64_t, std::uint64_t>(offset, length);
        } else if (name == "tracks") {
            if (!take_value()) return fail("option --tracks needs a value");
            if (value == "auto") o.tracks = Tracks::automatic;
            else if (value == "history") o.tracks = Tracks::history;
            else if (value == "all") o.tracks = Tracks::all;
            else return fail("invalid value for --tracks (auto, history or all): \"" + std::string(value) + "\"");
        } else {
            return fail("unrecognized option '" + std::string(a) + "'");
        }
        return std::nullopt;
    }

    // Short options, possibly combined: -9ck, -S.z, -p4.
    std::optional<ParseResult> short_options(std::string_view a) {
        for (std::size_t j = 1; j < a.size(); ++j) {
            const char ch = a[j];
            if (ch >= '0' && ch <= '9') {
                std::size_t k = j;
                while (k + 1 < a.size() && a[k + 1] >= '0' && a[k + 1] <= '9') ++k;
                // libdeflate's gzip takes the rest of the word as the level's ("-1a" is an
                // invalid level, said in its words); a letter that is an option here goes
                // on as one ("-9ck", as GNU gzip and pigz take it).
                if (k + 1 < a.size() && std::string_view(kShortOptions).find(a[k + 1]) == std::string_view::npos)
                    return invalid_level(a.substr(j));
                if (!set_level(a.substr(j, k - j + 1))) return invalid_level(a.substr(j, k - j + 1));
                j = k;
                continue;
            }
            auto rest_or_next = [&](std::string& out) -> bool {
                if (j + 1 < a.size()) {
                    out = std::string(a.substr(j + 1));
                } else if (i + 1 < argc) {
                    out = argv[++i];
                } else {
                    return false;
                }
                j = a.size();
                return true;
            };
            switch (ch) {
                case 'c': o.to_stdout = true; break;
                case 'd': o.decompress = true; break;
                case 't': o.test = true; break;
                case 'f': o.force = true; break;
                case 'k': o.keep = true; break;
                case 'n': break;
                case 'q': o.quiet = true; break;
                case 'v': o.verbose = true; break;
                case 'h': print_usage(); return ParseResult{std::nullopt, 0};
                case 'V': print_version(); return ParseResult{std::nullopt, 0};
                case 'S': {
                    std::string v;
                    if (!rest_or_next(v)) return fail("option requires an argument -- 'S'");
                    o.suffix = v;
                    suffix_given = true;
                    break;
                }
                case 'L':
                case 'p': {
                    std::string v;
                    if (!rest_or_next(v)) return fail(std::string("option requires an argument -- '") + ch + "'");
                    if (ch == 'L') {
                        if (!set_level(v)) return invalid_level(v);
                    } else if (!parse_count(v, kMaxThreads, o.threads)) {
                        return fail(thread_count_error(v));
                    }
                    break;
                }
                default: return fail(std::string("invalid option -- '") + ch + "'");
            }
        }
        return std::nullopt;
    }

    // After the last word: the suffix and what the options imply.
    ParseResult finish() {
        if (suffix_given && o.suffix.empty()) {
            fmt::print(stderr, "{}: invalid suffix\n", g_program_name);
            return {std::nullopt, 1};
        }
        if (!suffix_given) o.suffix = o.format == Format::zlib ? ".zz" : o.format == Format::deflate ? ".deflate" : ".gz";
        // Every flag was checked against the library's bounds above, in the flag's own words;
        // this catches only what a new flag's check would miss (its message names the Options field).
        try {
            o.validate();
        } catch (const Error& e) {
            return fail(e.what());
        }
        if (o.test) o.decompress = true;
        if (o.files.empty()) o.files.emplace_back("-");
        // An index belongs to one gzip file.
        if ((!o.export_index.empty() || !o.import_index.empty()) && o.files.size() != 1)
            return fail("--export-index and --import-index take one input file");
        if ((!o.import_index.empty() || o.range) && !o.decompress)
            return fail("--import-index and --range are for decompressing (-d)");
        if (!o.export_index.empty() && !o.import_index.empty())
            return fail("--export-index and --import-index do not go together");
        if (o.range && !o.to_stdout && !o.test) return fail("--range writes to standard output: give -c");
        if (o.format != Format::gzip && (!o.export_index.empty() || !o.import_index.empty() || o.range))
            return fail("an index is for the gzip format");
        return {o, 0};
    }
};

}  // namespace

ParseResult parse_options(int argc, char** argv) {
    ArgParser p(argc, argv);
    if (argc > 0 && argv[0] != nullptr) {
        const std::string_view argv0 = argv[0];
        if (const auto name = argv0.substr(argv0.rfind('/') + 1); !name.empty()) g_program_name = std::string(name);
        p.o.decompress = is_gunzip_name(g_program_name);
    }
    bool options_done = false;
    for (; p.i < argc; ++p.i) {
        const std::string_view a = argv[p.i];
        if (options_done || a == "-" || a.size() < 2 || a[0] != '-') {
            p.o.files.emplace_back(a);
            continue;
        }
        if (a == "--") {
            options_done = true;
            continue;
        }
        const std::optional<ParseResult> ended = a.substr(0, 2) == "--" ? p.long_option(a) : p.short_options(a);
        if (ended) return *ended;
    }
    return p.finish();
}

}  // namespace flowdeflate::cli
