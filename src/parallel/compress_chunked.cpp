// compress_chunked.cpp - see compress_chunked.hpp.
#include "parallel/compress_chunked.hpp"

#include "parallel/assembler.hpp"
#include "parallel/chunker.hpp"
#include "parallel/encoder.hpp"
#include "parallel/searcher.hpp"

namespace flowdeflate::parallel {

std::vector<u8> compress_chunked(std::span<const u8> in, int level, Format format, const ChunkedOptions& options,
                                 ResolverStats* stats) {
    struct Collect final : SegmentSink {
        std::vector<u8> bytes;
        void write(SegmentBuffer&& segment) override {
            bytes.insert(bytes.end(), segment.data(), segment.data() + segment.size());
        }
    } sink;
    SegmentedOutput out(sink, 1u << 20);
    Assembler assembler(out, format, level);
    ChunkSearcher searcher(level);
    Resolver resolver(level, options.tracks, options.workers);
    if (options.resolver_load) resolver.fix_resolver_load(*options.resolver_load);
    Encoder encoder;
    CodedBlock coded;
    const u8* const end = in.data() + in.size();
    Chunker chunker(in.data(), options.chunk_size);
    do {
        // What a reader would know when it hands the chunk out.
        const ChunkJob job = *chunker.next_from(end, true);
        TrackPlan plan = resolver.plan();
        if (options.arm_margin) plan.arm_margin = *options.arm_margin;
        resolver.resolve(searcher.search(job, plan), [&](std::unique_ptr<ResolvedBlock> block) {
            encoder.encode(*block, coded);
            assembler.append(coded);
        });
    } while (!chunker.done());
    assembler.finish();
    if (stats) *stats = resolver.stats();
    return std::move(sink.bytes);
}

}  // namespace flowdeflate::parallel
