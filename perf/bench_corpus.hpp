// bench_corpus.hpp - what the corpus benchmarks share: which files and levels to run.
//   files:  FLOWDEFLATE_CORPUS, else build/corpus (scripts/corpus); regular files of at
//           most max_bytes, without the manifest and dot files, sorted;
//   levels: FLOWDEFLATE_BENCH_LEVELS ("1 6 9"), else the given default;
//   id:     "/L<level>/<file name>", the benchmark name's tail;
//   slurp:  a file's bytes (at most max_bytes).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace flowdeflate::bench {

/// FLOWDEFLATE_CORPUS, else build/corpus.
inline std::filesystem::path corpus_dir() {
    const char* env = std::getenv("FLOWDEFLATE_CORPUS");
    return env ? std::filesystem::path(env) : std::filesystem::path(FLOWDEFLATE_SOURCE_DIR) / "build/corpus";
}

inline std::vector<std::filesystem::path> corpus_files(std::uintmax_t max_bytes) {
    const std::filesystem::path corpus = corpus_dir();
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(corpus))
        for (const auto& e : std::filesystem::directory_iterator(corpus))
            if (e.is_regular_file() && e.file_size() <= max_bytes && e.path().filename().string()[0] != '.' &&
                e.path().filename() != "MANIFEST.sha256" && e.path().filename() != "SOURCES.txt")
                files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

inline std::vector<int> bench_levels(std::vector<int> fallback) {
    const char* l = std::getenv("FLOWDEFLATE_BENCH_LEVELS");
    if (!l) return fallback;
    std::vector<int> levels;
    std::istringstream is(l);
    for (int v; is >> v;) levels.push_back(v);
    return levels;
}

// (Built with append: operator+ on these trips GCC 12's -Wrestrict false positive.)
inline std::string bench_id(int level, const std::filesystem::path& file) {
    std::string id = "/L";
    id.append(std::to_string(level)).append("/").append(file.filename().string());
    return id;
}

inline std::vector<std::uint8_t> slurp(const std::filesystem::path& p, std::size_t max_bytes = SIZE_MAX) {
    std::ifstream f(p, std::ios::binary);
    std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(f)), {});
    if (data.size() > max_bytes) data.resize(max_bytes);
    return data;
}

}  // namespace flowdeflate::bench
