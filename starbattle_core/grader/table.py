"""The technique tables: every technique the solver knows, in order, with its name, code, cost and family.

Costs live here and nowhere else. Star Battle costs run from 1 (a star's neighbours are empty) to 3,840 (every way
to fill a line followed through whole-board chains of chains); Queens uses the four tiers weighted 1, 3, 6 and 12.
The solver tries techniques cheapest first (table order among equal costs). The version string is a hash of both
tables and the solver's code version, so changing a technique, a variant parameter, a cost or an on/off switch
changes it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
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
    """One row of a technique table."""

    name: str
    code: str
    cost: int
    family: str
    rule: Rule
    params: dict[str, Any] = field(default_factory=dict)
    enabled: bool = True
    tier: int = 0  # Queens only: 1-4

    def apply(self, geometry: Geometry, state: State) -> Deduction | None:
        return self.rule(geometry, state, **self.params)


def _t(name: str, code: str, cost: int, family: str, rule: Rule, tier: int = 0, **params: Any) -> Technique:
    return Technique(name, code, cost, family, rule, params, True, tier)


# The Star Battle table, one literal row per technique in the order the solver tries them: by cost, cheapest first
# (tests/test_grader_table.py checks the order). Codes: H = a hypothetical, then S/E (assume a star / empty), the
# propagation level (1 trivial .. 4 cases), S/L (a short chain of 3 rounds / a long one) and the depth.
STARBATTLE_TECHNIQUES: tuple[Technique, ...] = (
    _t("star neighbours", "SN", 1, "trivial", star_neighbours),
    _t("unit complete", "UC", 1, "trivial", unit_complete),
    _t("last cell", "LC", 2, "trivial", unit_fill, need_min=1, need_max=1),
    _t("unit fill", "UF", 3, "trivial", unit_fill, need_min=2, need_max=99),
    _t("attack from a pair", "A2", 4, "attack", one_star_attack, max_open=2),
    _t("attack from a block", "A4", 6, "attack", one_star_attack, max_open=4),
    _t("region inside a line", "C1R", 8, "confinement", union_confinement, inner="regions", size=1),
    _t("line inside a region", "C1L", 8, "confinement", union_confinement, inner="lines", size=1),
    _t("tight line", "TL", 9, "blocks", tight_room, kind="lines"),
    _t("attack from a unit", "AN", 10, "attack", one_star_attack, max_open=999),
    _t("line cases, few", "CL3", 12, "blocks", unit_cases, kind="lines", limit=3),
    _t("region cases, few", "CR3", 15, "shapes", unit_cases, kind="regions", limit=3),
    _t("line pressure, two stars", "PL2", 18, "pressure", pressure, kind="lines", need=2),
    _t("region in 2x2 blocks", "BR", 20, "blocks", region_blocks),
    _t("band cases, few", "CB4", 25, "blocks", unit_cases, kind="bands", limit=4),
    _t("region pressure, two stars", "PR2", 25, "pressure", pressure, kind="regions", need=2),
    _t("tight band", "TB", 28, "blocks", tight_room, kind="bands"),
    _t("two regions inside two lines", "U2R", 30, "counting", union_confinement, inner="regions", size=2),
    _t("two lines inside two regions", "U2L", 30, "counting", union_confinement, inner="lines", size=2),
    _t(
        "one regions inside one lines, remainder",
        "X1R",
        35,
        "counting",
        union_remainder,
        inner="regions",
        size=1,
        limit=12,
    ),
    _t(
        "one lines inside one regions, remainder",
        "X1L",
        35,
        "counting",
        union_remainder,
        inner="lines",
        size=1,
        limit=12,
    ),
    _t("line pressure, three stars", "PL3", 35, "pressure", pressure, kind="lines", need=3),
    _t(
        "one regions inside one lines, rest in 2x2 blocks",
        "B1R",
        40,
        "blocks",
        remainder_blocks,
        inner="regions",
        size=1,
    ),
    _t(
        "one lines inside one regions, rest in 2x2 blocks", "B1L", 40, "blocks", remainder_blocks, inner="lines", size=1
    ),
    _t("line cases, many", "CL12", 40, "blocks", unit_cases, kind="lines", limit=12),
    _t("region pressure, three stars", "PR3", 45, "pressure", pressure, kind="regions", need=3),
    _t("region cases, many", "CR12", 50, "shapes", unit_cases, kind="regions", limit=12),
    _t("band pressure, two stars", "PB2", 55, "pressure", pressure, kind="bands", need=2),
    _t("band pressure, three stars", "PB3", 60, "pressure", pressure, kind="bands", need=3),
    _t("two touching regions' cases, few", "CP12", 60, "shapes", pair_cases, limit=12),
    _t("a line and a region crossing it, cases, few", "CX12", 65, "shapes", crossing_cases, limit=12),
    _t(
        "two regions inside two lines, remainder",
        "X2R",
        65,
        "counting",
        union_remainder,
        inner="regions",
        size=2,
        limit=12,
    ),
    _t(
        "two lines inside two regions, remainder",
        "X2L",
        65,
        "counting",
        union_remainder,
        inner="lines",
        size=2,
        limit=12,
    ),
    _t("band pressure, four stars", "PB4", 65, "pressure", pressure, kind="bands", need=4),
    _t(
        "two regions inside two lines, rest in 2x2 blocks",
        "B2R",
        70,
        "blocks",
        remainder_blocks,
        inner="regions",
        size=2,
    ),
    _t(
        "two lines inside two regions, rest in 2x2 blocks", "B2L", 70, "blocks", remainder_blocks, inner="lines", size=2
    ),
    _t("three regions inside three lines", "U3R", 70, "counting", union_confinement, inner="regions", size=3),
    _t("three lines inside three regions", "U3L", 70, "counting", union_confinement, inner="lines", size=3),
    _t("band pressure, five stars", "PB5", 75, "pressure", pressure, kind="bands", need=5),
    _t("band pressure, six stars", "PB6", 85, "pressure", pressure, kind="bands", need=6),
    _t("band cases, many", "CB16", 100, "blocks", unit_cases, kind="bands", limit=16),
    _t(
        "three regions inside three lines, remainder",
        "X3R",
        120,
        "counting",
        union_remainder,
        inner="regions",
        size=3,
        limit=12,
    ),
    _t(
        "three lines inside three regions, remainder",
        "X3L",
        120,
        "counting",
        union_remainder,
        inner="lines",
        size=3,
        limit=12,
    ),
    _t(
        "three regions inside three lines, rest in 2x2 blocks",
        "B3R",
        130,
        "blocks",
        remainder_blocks,
        inner="regions",
        size=3,
    ),
    _t(
        "three lines inside three regions, rest in 2x2 blocks",
        "B3L",
        130,
        "blocks",
        remainder_blocks,
        inner="lines",
        size=3,
    ),
    _t("two touching regions' cases, many", "CP40", 140, "shapes", pair_cases, limit=40),
    _t("a line and a region crossing it, cases, many", "CX40", 145, "shapes", crossing_cases, limit=40),
    _t("four regions inside four lines", "U4R", 150, "counting", union_confinement, inner="regions", size=4),
    _t("four lines inside four regions", "U4L", 150, "counting", union_confinement, inner="lines", size=4),
    _t(
        "assume star, trivial chain, short",
        "HS1S1",
        150,
        "hypothetical",
        assumption,
        assume="star",
        level=TRIVIAL,
        budget=3,
        depth=1,
    ),
    _t("region cases, wide", "CR60", 200, "shapes", unit_cases, kind="regions", limit=60),
    _t(
        "assume empty, trivial chain, short",
        "HE1S1",
        200,
        "hypothetical",
        assumption,
        assume="empty",
        level=TRIVIAL,
        budget=3,
        depth=1,
    ),
    _t(
        "four regions inside four lines, remainder",
        "X4R",
        220,
        "counting",
        union_remainder,
        inner="regions",
        size=4,
        limit=12,
    ),
    _t(
        "four lines inside four regions, remainder",
        "X4L",
        220,
        "counting",
        union_remainder,
        inner="lines",
        size=4,
        limit=12,
    ),
    _t(
        "four regions inside four lines, rest in 2x2 blocks",
        "B4R",
        240,
        "blocks",
        remainder_blocks,
        inner="regions",
        size=4,
    ),
    _t(
        "four lines inside four regions, rest in 2x2 blocks",
        "B4L",
        240,
        "blocks",
        remainder_blocks,
        inner="lines",
        size=4,
    ),
    _t("five regions inside five lines", "U5R", 250, "counting", union_confinement, inner="regions", size=5),
    _t("five lines inside five regions", "U5L", 250, "counting", union_confinement, inner="lines", size=5),
    _t(
        "assume star, trivial chain, long",
        "HS1L1",
        250,
        "hypothetical",
        assumption,
        assume="star",
        level=TRIVIAL,
        budget=0,
        depth=1,
    ),
    _t(
        "assume empty, trivial chain, long",
        "HE1L1",
        300,
        "hypothetical",
        assumption,
        assume="empty",
        level=TRIVIAL,
        budget=0,
        depth=1,
    ),
    _t(
        "assume star, attack chain, short",
        "HS2S1",
        350,
        "hypothetical",
        assumption,
        assume="star",
        level=ATTACK,
        budget=3,
        depth=1,
    ),
    _t(
        "five regions inside five lines, remainder",
        "X5R",
        380,
        "counting",
        union_remainder,
        inner="regions",
        size=5,
        limit=12,
    ),
    _t(
        "five lines inside five regions, remainder",
        "X5L",
        380,
        "counting",
        union_remainder,
        inner="lines",
        size=5,
        limit=12,
    ),
    _t(
        "five regions inside five lines, rest in 2x2 blocks",
        "B5R",
        400,
        "blocks",
        remainder_blocks,
        inner="regions",
        size=5,
    ),
    _t(
        "five lines inside five regions, rest in 2x2 blocks",
        "B5L",
        400,
        "blocks",
        remainder_blocks,
        inner="lines",
        size=5,
    ),
    _t("six regions inside six lines", "U6R", 400, "counting", union_confinement, inner="regions", size=6),
    _t("six lines inside six regions", "U6L", 400, "counting", union_confinement, inner="lines", size=6),
    _t(
        "assume empty, attack chain, short",
        "HE2S1",
        450,
        "hypothetical",
        assumption,
        assume="empty",
        level=ATTACK,
        budget=3,
        depth=1,
    ),
    _t("seven regions inside seven lines", "U7R", 500, "counting", union_confinement, inner="regions", size=7),
    _t("seven lines inside seven regions", "U7L", 500, "counting", union_confinement, inner="lines", size=7),
    _t(
        "assume star, attack chain, long",
        "HS2L1",
        500,
        "hypothetical",
        assumption,
        assume="star",
        level=ATTACK,
        budget=0,
        depth=1,
    ),
    _t(
        "assume empty, attack chain, long",
        "HE2L1",
        600,
        "hypothetical",
        assumption,
        assume="empty",
        level=ATTACK,
        budget=0,
        depth=1,
    ),
    _t(
        "region cases followed to the end",
        "FR",
        700,
        "hypothetical",
        unit_chains,
        kind="regions",
        limit=8,
        level=CONFINE,
    ),
    _t(
        "assume star, confine chain, short",
        "HS3S1",
        800,
        "hypothetical",
        assumption,
        assume="star",
        level=CONFINE,
        budget=3,
        depth=1,
    ),
    _t("line cases followed to the end", "FL", 900, "hypothetical", unit_chains, kind="lines", limit=8, level=CONFINE),
    _t(
        "assume empty, confine chain, short",
        "HE3S1",
        1000,
        "hypothetical",
        assumption,
        assume="empty",
        level=CONFINE,
        budget=3,
        depth=1,
    ),
    _t(
        "assume star, confine chain, long",
        "HS3L1",
        1200,
        "hypothetical",
        assumption,
        assume="star",
        level=CONFINE,
        budget=0,
        depth=1,
    ),
    _t(
        "assume empty, confine chain, long",
        "HE3L1",
        1500,
        "hypothetical",
        assumption,
        assume="empty",
        level=CONFINE,
        budget=0,
        depth=1,
    ),
    _t(
        "assume star, cases chain, short",
        "HS4S1",
        1600,
        "hypothetical",
        assumption,
        assume="star",
        level=CASES,
        budget=3,
        depth=1,
    ),
    _t(
        "assume empty, cases chain, short",
        "HE4S1",
        1800,
        "hypothetical",
        assumption,
        assume="empty",
        level=CASES,
        budget=3,
        depth=1,
    ),
    _t(
        "assume star, cases chain, long",
        "HS4L1",
        2000,
        "hypothetical",
        assumption,
        assume="star",
        level=CASES,
        budget=0,
        depth=1,
    ),
    _t(
        "assume empty, cases chain, long",
        "HE4L1",
        2400,
        "hypothetical",
        assumption,
        assume="empty",
        level=CASES,
        budget=0,
        depth=1,
    ),
    _t(
        "assume star, attack chain of chains",
        "HS2L2",
        2800,
        "hypothetical",
        assumption,
        assume="star",
        level=ATTACK,
        budget=0,
        depth=2,
    ),
    _t(
        "assume empty, attack chain of chains",
        "HE2L2",
        3000,
        "hypothetical",
        assumption,
        assume="empty",
        level=ATTACK,
        budget=0,
        depth=2,
    ),
    _t(
        "assume star, cases chain of chains",
        "HS4L2",
        3300,
        "hypothetical",
        assumption,
        assume="star",
        level=CASES,
        budget=0,
        depth=2,
    ),
    _t(
        "assume empty, cases chain of chains",
        "HE4L2",
        3500,
        "hypothetical",
        assumption,
        assume="empty",
        level=CASES,
        budget=0,
        depth=2,
    ),
    _t(
        "assume star, cases whole-board chain of chains",
        "HS4L3",
        3600,
        "hypothetical",
        assumption,
        assume="star",
        level=CASES,
        budget=0,
        depth=3,
    ),
    _t(
        "assume empty, cases whole-board chain of chains",
        "HE4L3",
        3700,
        "hypothetical",
        assumption,
        assume="empty",
        level=CASES,
        budget=0,
        depth=3,
    ),
    _t(
        "region cases followed through chains of chains",
        "FRW",
        3800,
        "hypothetical",
        unit_chains,
        kind="regions",
        limit=60,
        level=CASES,
        wide=True,
    ),
    _t(
        "line cases followed through chains of chains",
        "FLW",
        3840,
        "hypothetical",
        unit_chains,
        kind="lines",
        limit=60,
        level=CASES,
        wide=True,
    ),
)

QUEENS_TIER_WEIGHTS = {1: 1, 2: 3, 3: 6, 4: 12}


def _queen(name: str, code: str, tier: int, family: str, rule: Rule, **params: Any) -> Technique:
    return _t(name, code, QUEENS_TIER_WEIGHTS[tier], family, rule, tier, **params)


QUEENS_TECHNIQUES: tuple[Technique, ...] = (
    _queen("queen neighbours", "Q1N", 1, "forced", star_neighbours),
    _queen("unit complete", "Q1C", 1, "forced", unit_complete),
    _queen("last cell", "Q1L", 1, "forced", unit_fill, need_min=1, need_max=1),
    _queen("region inside a line", "Q2R", 2, "confinement", union_confinement, inner="regions", size=1),
    _queen("line inside a region", "Q2L", 2, "confinement", union_confinement, inner="lines", size=1),
    _queen("attack from a unit", "Q2A", 2, "confinement", one_star_attack, max_open=999),
    _queen("2 regions inside 2 lines", "Q3R2", 3, "pigeonhole", union_confinement, inner="regions", size=2),
    _queen("2 lines inside 2 regions", "Q3L2", 3, "pigeonhole", union_confinement, inner="lines", size=2),
    _queen("3 regions inside 3 lines", "Q3R3", 3, "pigeonhole", union_confinement, inner="regions", size=3),
    _queen("3 lines inside 3 regions", "Q3L3", 3, "pigeonhole", union_confinement, inner="lines", size=3),
    _queen("4 regions inside 4 lines", "Q3R4", 3, "pigeonhole", union_confinement, inner="regions", size=4),
    _queen("4 lines inside 4 regions", "Q3L4", 3, "pigeonhole", union_confinement, inner="lines", size=4),
    _queen("5 regions inside 5 lines", "Q3R5", 3, "pigeonhole", union_confinement, inner="regions", size=5),
    _queen("5 lines inside 5 regions", "Q3L5", 3, "pigeonhole", union_confinement, inner="lines", size=5),
    _queen("6 regions inside 6 lines", "Q3R6", 3, "pigeonhole", union_confinement, inner="regions", size=6),
    _queen("6 lines inside 6 regions", "Q3L6", 3, "pigeonhole", union_confinement, inner="lines", size=6),
    _queen("7 regions inside 7 lines", "Q3R7", 3, "pigeonhole", union_confinement, inner="regions", size=7),
    _queen("7 lines inside 7 regions", "Q3L7", 3, "pigeonhole", union_confinement, inner="lines", size=7),
    _queen("8 regions inside 8 lines", "Q3R8", 3, "pigeonhole", union_confinement, inner="regions", size=8),
    _queen("8 lines inside 8 regions", "Q3L8", 3, "pigeonhole", union_confinement, inner="lines", size=8),
    _queen("9 regions inside 9 lines", "Q3R9", 3, "pigeonhole", union_confinement, inner="regions", size=9),
    _queen("9 lines inside 9 regions", "Q3L9", 3, "pigeonhole", union_confinement, inner="lines", size=9),
    _queen(
        "assume a queen, chain", "Q4S", 4, "hypothetical", assumption, assume="star", level=ATTACK, budget=0, depth=1
    ),
    _queen(
        "assume a queen, confine chain",
        "Q4C",
        4,
        "hypothetical",
        assumption,
        assume="star",
        level=CONFINE,
        budget=0,
        depth=1,
    ),
    _queen(
        "assume no queen, chain", "Q4E", 4, "hypothetical", assumption, assume="empty", level=CONFINE, budget=0, depth=1
    ),
    _queen(
        "assume a queen, chain of chains",
        "Q4D",
        4,
        "hypothetical",
        assumption,
        assume="star",
        level=CONFINE,
        budget=0,
        depth=2,
    ),
    _queen(
        "assume no queen, chain of chains",
        "Q4F",
        4,
        "hypothetical",
        assumption,
        assume="empty",
        level=CONFINE,
        budget=0,
        depth=2,
    ),
)


def techniques_for(game: str) -> tuple[Technique, ...]:
    return QUEENS_TECHNIQUES if game == "queens" else STARBATTLE_TECHNIQUES


def solver_version(
    starbattle: tuple[Technique, ...] = STARBATTLE_TECHNIQUES, queens: tuple[Technique, ...] = QUEENS_TECHNIQUES
) -> str:
    """The version of a pair of technique tables (the built-in ones by default): 'grader-<code>-<hash>'."""
    rows = [
        [game, t.name, t.code, t.cost, t.family, t.enabled, t.tier, t.rule.__name__, sorted(t.params.items())]
        for game, techniques in (("starbattle", starbattle), ("queens", queens))
        for t in techniques
    ]
    text = json.dumps([CODE_VERSION, rows], sort_keys=True, default=str)
    return f"grader-{CODE_VERSION}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


SOLVER_VERSION = solver_version()
