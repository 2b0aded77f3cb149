#!/usr/bin/env python3
"""Generates the default literal/length symbol costs of the near-optimal parser.

For an estimated match probability p (0.25, 0.5, 0.75) and n distinct literals, a literal
costs int(-log2((1 - p) / n) * BIT_COST) and a length symbol int(-log2(p / 29) * BIT_COST)
with BIT_COST = 16 (n = 0 is priced as n = 1).  These are the values libdeflate uses.
Prints a C++ initializer for src/core/parser_near_optimal.cpp.
"""
import math

BIT_COST = 16
NUM_LEN_SLOTS = 29

for p in (0.25, 0.5, 0.75):
    lits = [int(-math.log2((1 - p) / max(n, 1)) * BIT_COST) for n in range(257)]
    length = int(-math.log2(p / NUM_LEN_SLOTS) * BIT_COST)
    print("    {{ // match probability %s" % p)
    for i in range(0, 257, 16):
        print("        " + ", ".join(str(v) for v in lits[i:i + 16]) + ",")
    print("     }, %d}," % length)
