// flowdeflate/flow.hpp - compression as a node of an application's own tbb::flow::graph.
//
// compress_node takes pieces of input and emits pieces of output.  A piece with
// last == true ends a stream: its output ends with a piece whose last == true, and the
// next piece starts a new stream (a new gzip member, zlib or DEFLATE stream).  Output
// pieces are byte-identical, concatenated, to compress() of the concatenated input.
//
//     tbb::flow::graph g;
//     flowdeflate::flow::compress_node z(g, options);
//     tbb::flow::function_node<flowdeflate::flow::Piece> save(g, tbb::flow::serial, ...);
//     tbb::flow::make_edge(z, save);
//     z.try_put({bytes, false}); ... z.try_put({{}, true});
//     g.wait_for_all();
//
// The node is serial (a stream's pieces are compressed in order).  Set Options::arena to
// the arena the application's graph runs in, so that the compressor shares its workers;
// its internal graph waits by helping, never by blocking a worker.
#pragma once

#include <tbb/flow_graph.h>

#include <memory>
#include <tuple>

#include "flowdeflate/compress.hpp"

namespace flowdeflate::flow {

struct Piece {
    Bytes bytes;
    bool last = false;  ///< ends the stream
};

class compress_node : public tbb::flow::composite_node<std::tuple<Piece>, std::tuple<Piece>> {
    using base = tbb::flow::composite_node<std::tuple<Piece>, std::tuple<Piece>>;

public:
    compress_node(tbb::flow::graph& g, Options options)
        : base(g),
          options_(std::move(options)),
          out_(g),
          in_(g, tbb::flow::serial, [this](const Piece& piece) { take(piece); }) {
        options_.validate();
        base::set_external_ports(typename base::input_ports_type(in_), typename base::output_ports_type(out_));
    }

    /// Puts @p piece into the node (as tbb::flow::input_port<0>(node).try_put() does).
    bool try_put(const Piece& piece) { return in_.try_put(piece); }

private:
    void take(const Piece& piece) {
        if (!stream_)
            stream_ = std::make_unique<StreamCompressor>(options_, [this](std::span<const std::uint8_t> b) {
                out_.try_put(Piece{Bytes(b.begin(), b.end()), false});
            });
        stream_->write(piece.bytes);
        if (piece.last) {
            stream_->finish();
            stream_.reset();
            out_.try_put(Piece{{}, true});
        }
    }

    Options options_;
    tbb::flow::broadcast_node<Piece> out_;
    tbb::flow::function_node<Piece, tbb::flow::continue_msg> in_;
    std::unique_ptr<StreamCompressor> stream_;
};

}  // namespace flowdeflate::flow
