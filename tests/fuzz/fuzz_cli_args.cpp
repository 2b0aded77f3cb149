// fuzz_cli_args.cpp - libFuzzer target: the command line's argument parser on arbitrary
// argument vectors (the input split at NUL bytes, at most 16 arguments).  It must accept
// them or report a usage error; what it accepts must pass Options::validate().
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args = {"flowdeflate"};
    std::string cur;
    for (std::size_t i = 0; i < size && args.size() < 16; ++i) {
        if (data[i] == 0) {
            args.push_back(cur);
            cur.clear();
        } else {
            cur.push_back(char(data[i]));
        }
    }
    if (!cur.empty() && args.size() < 16) args.push_back(cur);
    std::vector<char*> argv;
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    const auto parsed = flowdeflate::cli::parse_options(int(args.size()), argv.data());
    if (parsed.options) {
        parsed.options->validate();  // throws (a crash here) if the parser let a bad value through
        if (parsed.options->files.empty() || parsed.options->suffix.empty()) __builtin_trap();
    }
    return 0;
}
