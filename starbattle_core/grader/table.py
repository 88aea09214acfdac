"""The technique tables: every technique the solver knows, one row each, in the order the solver tries them.

A row (HoDoKu's `DEFAULT_SOLVER_STEPS`): the name a player reads in a walkthrough, a short code, the cost, the
family (what the experience score and the chains read), and the rule that finds the technique with the parameters
of this variant (a pure function: board and marks in, a deduction or None out). Costs live here and nowhere else.
Star Battle costs run from 1 (a star's neighbours are empty) to 3,840 (every way to fill a line followed through
whole-board chains of chains); Queens rows also give their tier (1-4), and cost the tier's weight (1, 3, 6, 12).

The solver tries the rows in table order, which is cheapest first (equal costs: as written), and the first row that
decides a cell is the step (tests/test_grader_table.py checks the order). The version string is a hash of both
tables and the solver's code version, so changing a row (its name, code, cost, family, rule or parameters), adding,
removing or moving one changes it.
"""

# ruff: noqa: E501
# The tables are one row per line with aligned columns, wider than the project's 120: a row that wraps is no
# longer a row.

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .basic import one_star_attack, star_neighbours, unit_complete, unit_fill
from .blocks import region_blocks, remainder_blocks
from .cases import pressure, tight_room, unit_cases
from .composite import crossing_cases, pair_cases
from .counting import union_confinement, union_remainder
from .geometry import Geometry, State
from .hypothetical import assumption, unit_chains
from .propagation import ATTACK, CASES, CONFINE, TRIVIAL
from .step import Deduction

# Bump when the solver's behaviour changes in code rather than in the tables (the order of scans, a rule's reach).
# 3: the canonical form is graded (one path for every symmetry and lettering of a board).
# 4: cases over two units at once (composite.py: two touching regions, a line and a region), before any
# hypothetical.
CODE_VERSION = "4"

Rule = Callable[..., Deduction | None]


@dataclass(frozen=True)
class Technique:
    """One row of a technique table (see the module docstring)."""

    name: str
    code: str
    cost: int
    family: str
    rule: Rule
    params: Mapping[str, Any] = field(default_factory=dict)
    tier: int = 0  # Queens only: 1-4

    def apply(self, geometry: Geometry, state: State) -> Deduction | None:
        return self.rule(geometry, state, **self.params)


# Codes: H = a hypothetical, then S/E (assume a star / empty), the propagation level (1 trivial .. 4 cases), S/L (a
# short chain of 3 rounds / a long one) and the depth; F = a unit's cases followed to their ends.
# fmt: off
STARBATTLE_TECHNIQUES: tuple[Technique, ...] = (
    #         name                                                    code     cost  family          rule               parameters
    Technique("star neighbours",                                      "SN",       1, "trivial",      star_neighbours),
    Technique("unit complete",                                        "UC",       1, "trivial",      unit_complete),
    Technique("last cell",                                            "LC",       2, "trivial",      unit_fill,         {"need_min": 1, "need_max": 1}),
    Technique("unit fill",                                            "UF",       3, "trivial",      unit_fill,         {"need_min": 2, "need_max": 99}),
    Technique("attack from a pair",                                   "A2",       4, "attack",       one_star_attack,   {"max_open": 2}),
    Technique("attack from a block",                                  "A4",       6, "attack",       one_star_attack,   {"max_open": 4}),
    Technique("region inside a line",                                 "C1R",      8, "confinement",  union_confinement, {"inner": "regions", "size": 1}),
    Technique("line inside a region",                                 "C1L",      8, "confinement",  union_confinement, {"inner": "lines", "size": 1}),
    Technique("tight line",                                           "TL",       9, "blocks",       tight_room,        {"kind": "lines"}),
    Technique("attack from a unit",                                   "AN",      10, "attack",       one_star_attack,   {"max_open": 999}),
    Technique("line cases, few",                                      "CL3",     12, "blocks",       unit_cases,        {"kind": "lines", "limit": 3}),
    Technique("region cases, few",                                    "CR3",     15, "shapes",       unit_cases,        {"kind": "regions", "limit": 3}),
    Technique("line pressure, two stars",                             "PL2",     18, "pressure",     pressure,          {"kind": "lines", "need": 2}),
    Technique("region in 2x2 blocks",                                 "BR",      20, "blocks",       region_blocks),
    Technique("band cases, few",                                      "CB4",     25, "blocks",       unit_cases,        {"kind": "bands", "limit": 4}),
    Technique("region pressure, two stars",                           "PR2",     25, "pressure",     pressure,          {"kind": "regions", "need": 2}),
    Technique("tight band",                                           "TB",      28, "blocks",       tight_room,        {"kind": "bands"}),
    Technique("two regions inside two lines",                         "U2R",     30, "counting",     union_confinement, {"inner": "regions", "size": 2}),
    Technique("two lines inside two regions",                         "U2L",     30, "counting",     union_confinement, {"inner": "lines", "size": 2}),
    Technique("one regions inside one lines, remainder",              "X1R",     35, "counting",     union_remainder,   {"inner": "regions", "size": 1, "limit": 12}),
    Technique("one lines inside one regions, remainder",              "X1L",     35, "counting",     union_remainder,   {"inner": "lines", "size": 1, "limit": 12}),
    Technique("line pressure, three stars",                           "PL3",     35, "pressure",     pressure,          {"kind": "lines", "need": 3}),
    Technique("one regions inside one lines, rest in 2x2 blocks",     "B1R",     40, "blocks",       remainder_blocks,  {"inner": "regions", "size": 1}),
    Technique("one lines inside one regions, rest in 2x2 blocks",     "B1L",     40, "blocks",       remainder_blocks,  {"inner": "lines", "size": 1}),
    Technique("line cases, many",                                     "CL12",    40, "blocks",       unit_cases,        {"kind": "lines", "limit": 12}),
    Technique("region pressure, three stars",                         "PR3",     45, "pressure",     pressure,          {"kind": "regions", "need": 3}),
    Technique("region cases, many",                                   "CR12",    50, "shapes",       unit_cases,        {"kind": "regions", "limit": 12}),
    Technique("band pressure, two stars",                             "PB2",     55, "pressure",     pressure,          {"kind": "bands", "need": 2}),
    Technique("band pressure, three stars",                           "PB3",     60, "pressure",     pressure,          {"kind": "bands", "need": 3}),
    Technique("two touching regions' cases, few",                     "CP12",    60, "shapes",       pair_cases,        {"limit": 12}),
    Technique("a line and a region crossing it, cases, few",          "CX12",    65, "shapes",       crossing_cases,    {"limit": 12}),
    Technique("two regions inside two lines, remainder",              "X2R",     65, "counting",     union_remainder,   {"inner": "regions", "size": 2, "limit": 12}),
    Technique("two lines inside two regions, remainder",              "X2L",     65, "counting",     union_remainder,   {"inner": "lines", "size": 2, "limit": 12}),
    Technique("band pressure, four stars",                            "PB4",     65, "pressure",     pressure,          {"kind": "bands", "need": 4}),
    Technique("two regions inside two lines, rest in 2x2 blocks",     "B2R",     70, "blocks",       remainder_blocks,  {"inner": "regions", "size": 2}),
    Technique("two lines inside two regions, rest in 2x2 blocks",     "B2L",     70, "blocks",       remainder_blocks,  {"inner": "lines", "size": 2}),
    Technique("three regions inside three lines",                     "U3R",     70, "counting",     union_confinement, {"inner": "regions", "size": 3}),
    Technique("three lines inside three regions",                     "U3L",     70, "counting",     union_confinement, {"inner": "lines", "size": 3}),
    Technique("band pressure, five stars",                            "PB5",     75, "pressure",     pressure,          {"kind": "bands", "need": 5}),
    Technique("band pressure, six stars",                             "PB6",     85, "pressure",     pressure,          {"kind": "bands", "need": 6}),
    Technique("band cases, many",                                     "CB16",   100, "blocks",       unit_cases,        {"kind": "bands", "limit": 16}),
    Technique("three regions inside three lines, remainder",          "X3R",    120, "counting",     union_remainder,   {"inner": "regions", "size": 3, "limit": 12}),
    Technique("three lines inside three regions, remainder",          "X3L",    120, "counting",     union_remainder,   {"inner": "lines", "size": 3, "limit": 12}),
    Technique("three regions inside three lines, rest in 2x2 blocks", "B3R",    130, "blocks",       remainder_blocks,  {"inner": "regions", "size": 3}),
    Technique("three lines inside three regions, rest in 2x2 blocks", "B3L",    130, "blocks",       remainder_blocks,  {"inner": "lines", "size": 3}),
    Technique("two touching regions' cases, many",                    "CP40",   140, "shapes",       pair_cases,        {"limit": 40}),
    Technique("a line and a region crossing it, cases, many",         "CX40",   145, "shapes",       crossing_cases,    {"limit": 40}),
    Technique("four regions inside four lines",                       "U4R",    150, "counting",     union_confinement, {"inner": "regions", "size": 4}),
    Technique("four lines inside four regions",                       "U4L",    150, "counting",     union_confinement, {"inner": "lines", "size": 4}),
    Technique("assume star, trivial chain, short",                    "HS1S1",  150, "hypothetical", assumption,        {"assume": "star", "level": TRIVIAL, "budget": 3, "depth": 1}),
    Technique("region cases, wide",                                   "CR60",   200, "shapes",       unit_cases,        {"kind": "regions", "limit": 60}),
    Technique("assume empty, trivial chain, short",                   "HE1S1",  200, "hypothetical", assumption,        {"assume": "empty", "level": TRIVIAL, "budget": 3, "depth": 1}),
    Technique("four regions inside four lines, remainder",            "X4R",    220, "counting",     union_remainder,   {"inner": "regions", "size": 4, "limit": 12}),
    Technique("four lines inside four regions, remainder",            "X4L",    220, "counting",     union_remainder,   {"inner": "lines", "size": 4, "limit": 12}),
    Technique("four regions inside four lines, rest in 2x2 blocks",   "B4R",    240, "blocks",       remainder_blocks,  {"inner": "regions", "size": 4}),
    Technique("four lines inside four regions, rest in 2x2 blocks",   "B4L",    240, "blocks",       remainder_blocks,  {"inner": "lines", "size": 4}),
    Technique("five regions inside five lines",                       "U5R",    250, "counting",     union_confinement, {"inner": "regions", "size": 5}),
    Technique("five lines inside five regions",                       "U5L",    250, "counting",     union_confinement, {"inner": "lines", "size": 5}),
    Technique("assume star, trivial chain, long",                     "HS1L1",  250, "hypothetical", assumption,        {"assume": "star", "level": TRIVIAL, "budget": 0, "depth": 1}),
    Technique("assume empty, trivial chain, long",                    "HE1L1",  300, "hypothetical", assumption,        {"assume": "empty", "level": TRIVIAL, "budget": 0, "depth": 1}),
    Technique("assume star, attack chain, short",                     "HS2S1",  350, "hypothetical", assumption,        {"assume": "star", "level": ATTACK, "budget": 3, "depth": 1}),
    Technique("five regions inside five lines, remainder",            "X5R",    380, "counting",     union_remainder,   {"inner": "regions", "size": 5, "limit": 12}),
    Technique("five lines inside five regions, remainder",            "X5L",    380, "counting",     union_remainder,   {"inner": "lines", "size": 5, "limit": 12}),
    Technique("five regions inside five lines, rest in 2x2 blocks",   "B5R",    400, "blocks",       remainder_blocks,  {"inner": "regions", "size": 5}),
    Technique("five lines inside five regions, rest in 2x2 blocks",   "B5L",    400, "blocks",       remainder_blocks,  {"inner": "lines", "size": 5}),
    Technique("six regions inside six lines",                         "U6R",    400, "counting",     union_confinement, {"inner": "regions", "size": 6}),
    Technique("six lines inside six regions",                         "U6L",    400, "counting",     union_confinement, {"inner": "lines", "size": 6}),
    Technique("assume empty, attack chain, short",                    "HE2S1",  450, "hypothetical", assumption,        {"assume": "empty", "level": ATTACK, "budget": 3, "depth": 1}),
    Technique("seven regions inside seven lines",                     "U7R",    500, "counting",     union_confinement, {"inner": "regions", "size": 7}),
    Technique("seven lines inside seven regions",                     "U7L",    500, "counting",     union_confinement, {"inner": "lines", "size": 7}),
    Technique("assume star, attack chain, long",                      "HS2L1",  500, "hypothetical", assumption,        {"assume": "star", "level": ATTACK, "budget": 0, "depth": 1}),
    Technique("assume empty, attack chain, long",                     "HE2L1",  600, "hypothetical", assumption,        {"assume": "empty", "level": ATTACK, "budget": 0, "depth": 1}),
    Technique("region cases followed to the end",                     "FR",     700, "hypothetical", unit_chains,       {"kind": "regions", "limit": 8, "level": CONFINE}),
    Technique("assume star, confine chain, short",                    "HS3S1",  800, "hypothetical", assumption,        {"assume": "star", "level": CONFINE, "budget": 3, "depth": 1}),
    Technique("line cases followed to the end",                       "FL",     900, "hypothetical", unit_chains,       {"kind": "lines", "limit": 8, "level": CONFINE}),
    Technique("assume empty, confine chain, short",                   "HE3S1", 1000, "hypothetical", assumption,        {"assume": "empty", "level": CONFINE, "budget": 3, "depth": 1}),
    Technique("assume star, confine chain, long",                     "HS3L1", 1200, "hypothetical", assumption,        {"assume": "star", "level": CONFINE, "budget": 0, "depth": 1}),
    Technique("assume empty, confine chain, long",                    "HE3L1", 1500, "hypothetical", assumption,        {"assume": "empty", "level": CONFINE, "budget": 0, "depth": 1}),
    Technique("assume star, cases chain, short",                      "HS4S1", 1600, "hypothetical", assumption,        {"assume": "star", "level": CASES, "budget": 3, "depth": 1}),
    Technique("assume empty, cases chain, short",                     "HE4S1", 1800, "hypothetical", assumption,        {"assume": "empty", "level": CASES, "budget": 3, "depth": 1}),
    Technique("assume star, cases chain, long",                       "HS4L1", 2000, "hypothetical", assumption,        {"assume": "star", "level": CASES, "budget": 0, "depth": 1}),
    Technique("assume empty, cases chain, long",                      "HE4L1", 2400, "hypothetical", assumption,        {"assume": "empty", "level": CASES, "budget": 0, "depth": 1}),
    Technique("assume star, attack chain of chains",                  "HS2L2", 2800, "hypothetical", assumption,        {"assume": "star", "level": ATTACK, "budget": 0, "depth": 2}),
    Technique("assume empty, attack chain of chains",                 "HE2L2", 3000, "hypothetical", assumption,        {"assume": "empty", "level": ATTACK, "budget": 0, "depth": 2}),
    Technique("assume star, cases chain of chains",                   "HS4L2", 3300, "hypothetical", assumption,        {"assume": "star", "level": CASES, "budget": 0, "depth": 2}),
    Technique("assume empty, cases chain of chains",                  "HE4L2", 3500, "hypothetical", assumption,        {"assume": "empty", "level": CASES, "budget": 0, "depth": 2}),
    Technique("assume star, cases whole-board chain of chains",       "HS4L3", 3600, "hypothetical", assumption,        {"assume": "star", "level": CASES, "budget": 0, "depth": 3}),
    Technique("assume empty, cases whole-board chain of chains",      "HE4L3", 3700, "hypothetical", assumption,        {"assume": "empty", "level": CASES, "budget": 0, "depth": 3}),
    Technique("region cases followed through chains of chains",       "FRW",   3800, "hypothetical", unit_chains,       {"kind": "regions", "limit": 60, "level": CASES, "wide": True}),
    Technique("line cases followed through chains of chains",         "FLW",   3840, "hypothetical", unit_chains,       {"kind": "lines", "limit": 60, "level": CASES, "wide": True}),
)
# fmt: on

QUEENS_TIER_WEIGHTS = {1: 1, 2: 3, 3: 6, 4: 12}

# fmt: off
QUEENS_TECHNIQUES: tuple[Technique, ...] = (
    #         name                                code  cost  family          rule               parameters                                                   tier
    Technique("queen neighbours",                 "Q1N",   1, "forced",       star_neighbours,   {},                                                             1),
    Technique("unit complete",                    "Q1C",   1, "forced",       unit_complete,     {},                                                             1),
    Technique("last cell",                        "Q1L",   1, "forced",       unit_fill,         {"need_min": 1, "need_max": 1},                                 1),
    Technique("region inside a line",             "Q2R",   3, "confinement",  union_confinement, {"inner": "regions", "size": 1},                                2),
    Technique("line inside a region",             "Q2L",   3, "confinement",  union_confinement, {"inner": "lines", "size": 1},                                  2),
    Technique("attack from a unit",               "Q2A",   3, "confinement",  one_star_attack,   {"max_open": 999},                                              2),
    Technique("2 regions inside 2 lines",         "Q3R2",  6, "pigeonhole",   union_confinement, {"inner": "regions", "size": 2},                                3),
    Technique("2 lines inside 2 regions",         "Q3L2",  6, "pigeonhole",   union_confinement, {"inner": "lines", "size": 2},                                  3),
    Technique("3 regions inside 3 lines",         "Q3R3",  6, "pigeonhole",   union_confinement, {"inner": "regions", "size": 3},                                3),
    Technique("3 lines inside 3 regions",         "Q3L3",  6, "pigeonhole",   union_confinement, {"inner": "lines", "size": 3},                                  3),
    Technique("4 regions inside 4 lines",         "Q3R4",  6, "pigeonhole",   union_confinement, {"inner": "regions", "size": 4},                                3),
    Technique("4 lines inside 4 regions",         "Q3L4",  6, "pigeonhole",   union_confinement, {"inner": "lines", "size": 4},                                  3),
    Technique("5 regions inside 5 lines",         "Q3R5",  6, "pigeonhole",   union_confinement, {"inner": "regions", "size": 5},                                3),
    Technique("5 lines inside 5 regions",         "Q3L5",  6, "pigeonhole",   union_confinement, {"inner": "lines", "size": 5},                                  3),
    Technique("6 regions inside 6 lines",         "Q3R6",  6, "pigeonhole",   union_confinement, {"inner": "regions", "size": 6},                                3),
    Technique("6 lines inside 6 regions",         "Q3L6",  6, "pigeonhole",   union_confinement, {"inner": "lines", "size": 6},                                  3),
    Technique("7 regions inside 7 lines",         "Q3R7",  6, "pigeonhole",   union_confinement, {"inner": "regions", "size": 7},                                3),
    Technique("7 lines inside 7 regions",         "Q3L7",  6, "pigeonhole",   union_confinement, {"inner": "lines", "size": 7},                                  3),
    Technique("8 regions inside 8 lines",         "Q3R8",  6, "pigeonhole",   union_confinement, {"inner": "regions", "size": 8},                                3),
    Technique("8 lines inside 8 regions",         "Q3L8",  6, "pigeonhole",   union_confinement, {"inner": "lines", "size": 8},                                  3),
    Technique("9 regions inside 9 lines",         "Q3R9",  6, "pigeonhole",   union_confinement, {"inner": "regions", "size": 9},                                3),
    Technique("9 lines inside 9 regions",         "Q3L9",  6, "pigeonhole",   union_confinement, {"inner": "lines", "size": 9},                                  3),
    Technique("assume a queen, chain",            "Q4S",  12, "hypothetical", assumption,        {"assume": "star", "level": ATTACK, "budget": 0, "depth": 1},   4),
    Technique("assume a queen, confine chain",    "Q4C",  12, "hypothetical", assumption,        {"assume": "star", "level": CONFINE, "budget": 0, "depth": 1},  4),
    Technique("assume no queen, chain",           "Q4E",  12, "hypothetical", assumption,        {"assume": "empty", "level": CONFINE, "budget": 0, "depth": 1}, 4),
    Technique("assume a queen, chain of chains",  "Q4D",  12, "hypothetical", assumption,        {"assume": "star", "level": CONFINE, "budget": 0, "depth": 2},  4),
    Technique("assume no queen, chain of chains", "Q4F",  12, "hypothetical", assumption,        {"assume": "empty", "level": CONFINE, "budget": 0, "depth": 2}, 4),
)
# fmt: on


def techniques_for(game: str) -> tuple[Technique, ...]:
    return QUEENS_TECHNIQUES if game == "queens" else STARBATTLE_TECHNIQUES


def solver_version(
    starbattle: tuple[Technique, ...] = STARBATTLE_TECHNIQUES, queens: tuple[Technique, ...] = QUEENS_TECHNIQUES
) -> str:
    """The version of a pair of technique tables (the built-in ones by default): 'grader-<code>-<hash>'."""
    # Each row is hashed as version 4 first wrote it, so that the hash, and with it the version of every stored
    # solve path, stays what it was: the `True` stands where those rows had an on/off switch (every row was on).
    rows = [
        [game, t.name, t.code, t.cost, t.family, True, t.tier, t.rule.__name__, sorted(t.params.items())]
        for game, techniques in (("starbattle", starbattle), ("queens", queens))
        for t in techniques
    ]
    text = json.dumps([CODE_VERSION, rows], sort_keys=True, default=str)
    return f"grader-{CODE_VERSION}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


SOLVER_VERSION = solver_version()
