"""What one solve remembers: work the techniques and propagation would otherwise do again, one table per kind of
question, each typed for what it holds. Every entry is a pure function of its key, so what is remembered changes
no answer, only its speed. The geometry (which never changes) holds a fresh `Recall`, so a solve starts cold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..puzzle import Cells

if TYPE_CHECKING:
    from .counting import Confinement, Side
    from .geometry import Unit
    from .propagation import Agreement, Outcome
    from .ways import SearchedWays, Ways

# The keys that are tuples, named for what they hold (a unit is named by its kind and index).
TightKey = tuple[str, int, Cells]  # unit kind, index, its open cells
WaysKey = tuple[Cells, int, tuple[int, ...]]  # cells a star may take, stars needed, stars each unit lacks
CaseKey = tuple[Cells, int, Cells]  # a unit's free cells, its need, the stars of the units crossing it
PressureKey = tuple[str, int, int, Cells, Cells, Cells]  # unit kind, index, need, open cells, candidates, last ones
CrossingKey = tuple[str, int, int, Cells, tuple[int, ...], int]  # line kind, index, region, free, lacks, limit
UnionKey = tuple[str, str, int, tuple[int, ...], tuple[int, ...]]  # inner, outer kind, size, inner units, spans
Union = tuple[tuple[int, ...], tuple[int, ...]]  # inner units chosen (positions), the outer units they reach
StateKey = tuple[Cells, Cells]  # a state's stars and empty cells
RefutationKey = tuple[Cells, Cells, int, str, int, int]  # state, cell, what is assumed, level, depth


class Recall:
    """The tables of one solve (see the module docstring)."""

    def __init__(self) -> None:
        # Facts about a set of cells alone (hypotheticals ask the same ones thousands of times): the most
        # non-touching stars a row, column or band's open cells hold; the cells touching all, or some, cells of a
        # mask; whether `need` stars fit in a mask (key mask * 64 + need); a cover of an area by 2x2 blocks.
        self.rooms: dict[Cells, int] = {}
        self.common: dict[Cells, Cells] = {}
        self.near: dict[Cells, Cells] = {}
        self.fitting: dict[int, bool] = {}
        self.covers: dict[Cells, list[Cells]] = {}
        # The lines holding all the open cells of a region, and the region holding all those of a line, by those
        # open cells (one-unit confinement).
        self.region_holders: dict[Cells, tuple[Cells, ...]] = {}
        self.line_holders: dict[Cells, tuple[Cells, ...]] = {}
        # A tight row, column or band's forced stars and empty cells (room.tight_marks).
        self.tight: dict[TightKey, tuple[Cells, Cells]] = {}
        # Every way to place some stars (ways.state_ways), and what a unit's ways agree on in propagation.
        self.ways: dict[WaysKey, SearchedWays] = {}
        self.agreements: dict[CaseKey, Agreement] = {}
        # The first cell a star at which would squeeze a unit out of room, or -1 (cases.pressure).
        self.squeezed: dict[PressureKey, int] = {}
        # The joint ways of a line and a region crossing it (composite.crossing_cases); the touching pairs of
        # regions (they depend on the regions alone: found once).
        self.crossings: dict[CrossingKey, Ways | None] = {}
        self.touching_pairs: tuple[tuple[Unit, Unit], ...] | None = None
        # Union confinement (counting.py): the outer units an inner unit's open cells reach, per kind of outer unit
        # and by those cells; the unions of inner units a set of spans allows.
        self.spans: dict[str, dict[Cells, int]] = {}
        self.unions: dict[UnionKey, list[Union]] = {}
        # One solution of the board (its stars), found the first time a dear hypothetical asks (hypothetical.py);
        # None when the board has none, unset before.
        self.witness: Cells | None = None
        self.witness_known = False
        # The stars each unit lacks, for the last stars asked about.
        self.lacks: tuple[int, ...] = ()
        self.lacks_for: Cells | None = None
        # Work on one state, keyed by its marks: the confinements and sides of union confinement, the cells a
        # hypothetical tries (tightest first) and what assuming each one leads to. A solve forgets them when it
        # moves on (`forget_states`): no later step asks about an earlier state.
        self.confinements: dict[tuple[Cells, Cells, str, int], list[Confinement]] = {}
        self.sides: dict[tuple[Cells, Cells, str], list[Side]] = {}
        self.candidates: dict[StateKey, list[int]] = {}
        self.refutations: dict[RefutationKey, Outcome] = {}

    def forget_states(self) -> None:
        """Drop the work on states the solve has moved past (everything keyed by a state's marks)."""
        self.confinements.clear()
        self.sides.clear()
        self.candidates.clear()
        self.refutations.clear()
