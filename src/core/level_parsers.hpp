// level_parsers.hpp - from a level's ParserKind (levels.hpp) to the parser type, for the
// code that is a template over the parser: the sequential compressor, the parallel search
// and the resolver.  One switch, so that a level cannot run one parser here and another
// there.
#pragma once

#include <type_traits>

#include "core/levels.hpp"
#include "core/parser_fastest.hpp"
#include "core/parser_lazy.hpp"
#include "core/parser_near_optimal.hpp"
#include "flowdeflate/core.hpp"

namespace flowdeflate::core {

/// Calls @p f with std::type_identity<Parser> for @p kind's parser and returns what it
/// returns; ParserKind::stored (no parser) throws.
template <class F>
decltype(auto) with_parser_type(ParserKind kind, F&& f) {
    switch (kind) {
        case ParserKind::fastest: return f(std::type_identity<FastestParser>{});
        case ParserKind::greedy: return f(std::type_identity<LazyParser<LazyMode::greedy>>{});
        case ParserKind::lazy: return f(std::type_identity<LazyParser<LazyMode::lazy>>{});
        case ParserKind::lazy2: return f(std::type_identity<LazyParser<LazyMode::lazy2>>{});
        case ParserKind::near_optimal: return f(std::type_identity<NearOptimalParser>{});
        case ParserKind::stored: break;
    }
    throw Error("this level stores its input: it has no parser");
}

/// The same for the parses the parallel stages run (runs_in_parallel()); the others throw.
template <class F>
decltype(auto) with_parallel_parser_type(ParserKind kind, F&& f) {
    using Result = decltype(f(std::type_identity<FastestParser>{}));
    return with_parser_type(kind, [&]<class Parser>(std::type_identity<Parser> type) -> Result {
        if constexpr (std::is_same_v<Parser, NearOptimalParser>)
            throw Error("the parallel stages cover levels 1-9");
        else
            return f(type);
    });
}

}  // namespace flowdeflate::core
