// fuzz_decompress.cpp - libFuzzer target: decompression of arbitrary bytes in every format
// (flowdeflate::decompress, the command line's -d/-t path).  It must return the data or
// throw flowdeflate::Error; never crash, hang or run away with memory.  When it succeeds,
// compressing the result and decompressing that must give it back.  A StreamDecompressor
// fed the same bytes in pieces (sizes taken from the input) must give the same verdict
// and the same bytes; so must the parallel gzip decoder (graph/parallel_inflate, tiny
// regions, the main line waiting for its workers), except where it accepts what ISA-L
// rejects and libdeflate accepts (a one-codeword code read as '1': see DESIGN.md).  The
// same bytes read as a seek index (read_index) give an index or an IndexError; a gzip
// input that decodes is indexed (a point every 500 bytes) and decoded again from that
// index, to the same bytes.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>

#include "flowdeflate/flowdeflate.hpp"
#include "graph/indexed_inflate.hpp"
#include "graph/parallel_inflate.hpp"
#include "index/index_decoders.hpp"
#include "support/reference.hpp"

namespace {

std::optional<flowdeflate::Bytes> in_pieces(std::span<const std::uint8_t> in, flowdeflate::Format format) {
    flowdeflate::Bytes out;
    try {
        flowdeflate::StreamDecompressor stream(flowdeflate::iterator_sink(std::back_inserter(out)), format);
        for (std::size_t at = 0, i = 0; at < in.size(); ++i) {
            const std::size_t piece = std::min<std::size_t>(in.size() - at, 1 + in[i % in.size()] % 97);
            stream.write(in.subspan(at, piece));
            at += piece;
        }
        stream.finish();
    } catch (const flowdeflate::Error&) {
        return std::nullopt;
    }
    return out;
}

std::optional<flowdeflate::Bytes> in_parallel(std::span<const std::uint8_t> in) {
    flowdeflate::Bytes out;
    flowdeflate::graph::ParallelInflateOptions o;
    o.threads = 3;
    o.region_bytes = 256;
    o.wait_for_workers = true;
    // Either form of the workers' stretches, as the input's size says.
    o.form = in.size() % 2 ? flowdeflate::graph::ParallelInflateOptions::Form::markers
                           : flowdeflate::graph::ParallelInflateOptions::Form::tokens;
    try {
        flowdeflate::graph::parallel_gunzip(in, flowdeflate::iterator_sink(std::back_inserter(out)), o);
    } catch (const flowdeflate::Error&) {
        return std::nullopt;
    }
    return out;
}

// Index parsing of any bytes, and a decodable gzip input through its own index.
void check_indexes(std::span<const std::uint8_t> in, const std::optional<flowdeflate::Bytes>& gunzipped) {
    // Both ways of reading windows; a packed one is inflated when written in indexed_gzip's
    // format.
    for (const auto windows : {flowdeflate::IndexWindows::inflated, flowdeflate::IndexWindows::packed}) {
        try {
            const flowdeflate::Index index = flowdeflate::read_index(in, windows);
            for (const auto f : {flowdeflate::IndexFormat::gztool, flowdeflate::IndexFormat::indexed_gzip})
                (void)flowdeflate::read_index(flowdeflate::write_index(index, f));
        } catch (const flowdeflate::IndexError&) {
        } catch (const flowdeflate::Error&) {
            // (an index too large for indexed_gzip's format)
        }
    }
    if (!gunzipped) return;
    flowdeflate::Index index;
    flowdeflate::Bytes out, again;
    try {
        flowdeflate::index::gunzip_recording(in, flowdeflate::iterator_sink(std::back_inserter(out)), index, 500);
    } catch (const flowdeflate::Error&) {
        return;  // (the block-level decoder is libdeflate's: it may refuse what ISA-L took)
    }
    if (out != *gunzipped) __builtin_trap();
    flowdeflate::graph::indexed_gunzip(in, index, flowdeflate::iterator_sink(std::back_inserter(again)), 2);
    if (again != out) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> in(data, size);
    for (const auto format : {flowdeflate::Format::gzip, flowdeflate::Format::zlib, flowdeflate::Format::deflate}) {
        const auto pieces = in_pieces(in, format);
        if (format == flowdeflate::Format::gzip) {
            check_indexes(in, pieces);
            const auto parallel = in_parallel(in);
            if (parallel != pieces) {
                const auto ref = flowdeflate::testing::Reference::get().decompress(in, parallel ? parallel->size() : 0, format);
                if (pieces || !parallel || ref != parallel) __builtin_trap();
            }
        }
        try {
            const auto out = flowdeflate::decompress(in, format);
            if (!pieces || *pieces != out) __builtin_trap();
            flowdeflate::Options o;
            o.format = format;
            o.level = 1;
            o.threads = 1;
            if (flowdeflate::decompress(flowdeflate::compress(out, o), format) != out) __builtin_trap();
        } catch (const flowdeflate::Error&) {
            if (pieces) __builtin_trap();
        }
    }
    return 0;
}
