"""Each technique on a constructed board: where it must fire and what it must conclude, and where it must not.

Boards are drawn as region letters; marks as a picture: '*' star, '.' empty, '?' open.
"""

from __future__ import annotations

from conftest import shared_file

from starbattle_core.board_tables import path_room
from starbattle_core.formats import read_jsonl
from starbattle_core.grader import Geometry, State, grade
from starbattle_core.grader.basic import one_star_attack, star_neighbours, unit_complete, unit_fill
from starbattle_core.grader.blocks import block_cover, region_blocks, remainder_blocks
from starbattle_core.grader.cases import pressure, tight_room, unit_cases
from starbattle_core.grader.counting import union_confinement, union_remainder
from starbattle_core.grader.hypothetical import assumption, unit_chains
from starbattle_core.grader.propagation import ATTACK, CASES, CONFINE, TRIVIAL, propagate
from starbattle_core.grader.room import fits
from starbattle_core.grader.table import STARBATTLE_TECHNIQUES
from starbattle_core.grader.ways import placements
from starbattle_core.puzzle import Cells, Puzzle, is_solution

# A 6x6 one-star board with a solution: R1C2, R2C4, R3C6, R4C1, R5C3, R6C5.
SIX = ["AAABBB", "AABBBC", "DDDCCC", "DDEECC", "EEEEFC", "FFFFFF"]
OPEN6 = ["??????"] * 6
# An 8x8 two-star board whose regions are its rows.
ROWS8 = ["AAAAAAAA", "BBBBBBBB", "CCCCCCCC", "DDDDDDDD", "EEEEEEEE", "FFFFFFFF", "GGGGGGGG", "HHHHHHHH"]
OPEN8 = ["????????"] * 8


def board(rows: list[str], stars: int = 1) -> Geometry:
    letters: dict[str, int] = {}
    grid = [[letters.setdefault(ch, len(letters)) for ch in row] for row in rows]
    return Geometry(Puzzle.from_grid(grid, stars))


def marks(picture: list[str]) -> State:
    n = len(picture)
    stars = empty = 0
    for r, row in enumerate(picture):
        for c, ch in enumerate(row):
            if ch == "*":
                stars |= 1 << (r * n + c)
            elif ch == ".":
                empty |= 1 << (r * n + c)
    return State(stars, empty)


def cells(geometry: Geometry, *names: str) -> Cells:
    mask = 0
    for name in names:
        r, c = name[1:].split("C")
        mask |= 1 << ((int(r) - 1) * geometry.size + int(c) - 1)
    return mask


def six_solution(g: Geometry) -> Cells:
    solution = cells(g, "R1C2", "R2C4", "R3C6", "R4C1", "R5C3", "R6C5")
    assert is_solution(g.puzzle, solution)
    return solution


def test_star_neighbours_empties_the_touching_cells() -> None:
    g = board(SIX)
    found = star_neighbours(g, marks(["??????", "??????", "??*???", "??????", "??????", "??????"]))
    assert found is not None and found.stars == 0
    assert found.empties == cells(g, "R2C2", "R2C3", "R2C4", "R3C2", "R3C4", "R4C2", "R4C3", "R4C4")
    assert star_neighbours(g, marks(["??????", ".....?", "..*.??", ".....?", "??????", "??????"])) is None


def test_unit_complete_empties_the_rest_of_a_full_unit() -> None:
    g = board(SIX)
    found = unit_complete(g, marks(["?.*.??", "?...??", "??????", "??????", "??????", "??????"]))
    assert found is not None and found.empties == cells(g, "R1C1", "R1C5", "R1C6") and found.units == ("row 1",)
    assert unit_complete(g, marks(OPEN6)) is None


def test_last_cell_of_a_region() -> None:
    g = board(SIX)
    found = unit_fill(g, marks(["??????", "??????", "...???", ".?????", "??????", "??????"]), need_min=1, need_max=1)
    assert found is not None and found.stars == cells(g, "R4C2") and found.empties == 0
    assert found.sentence == "R4C2 must be a star: it is the last cell left for region D"
    assert unit_fill(g, marks(OPEN6), need_min=1, need_max=1) is None


def test_unit_fill_with_two_stars() -> None:
    g = board(ROWS8, 2)
    found = unit_fill(g, marks(["?.?.....", *OPEN8[1:]]), need_min=2, need_max=2)
    assert found is not None and found.stars == cells(g, "R1C1", "R1C3")
    # Three open cells for two stars: not a fill.
    assert unit_fill(g, marks(["???.....", *OPEN8[1:]]), need_min=2, need_max=2) is None


def test_one_star_attack() -> None:
    g = board(SIX)
    # Row 6 and region F keep R6C1 and R6C2 open: whichever is the star touches R5C1 and R5C2.
    pair = marks(["??????", "??????", "??????", "??????", "????.?", "??...."])
    found = one_star_attack(g, pair, max_open=2)
    assert found is not None and found.empties == cells(g, "R5C1", "R5C2")
    # Region B keeps R1C5, R1C6, R2C5: all three touch R2C6 (region C); three cells are beyond the pair variant.
    corner = marks(["???.??", "??..??", *OPEN6[2:]])
    assert one_star_attack(g, corner, max_open=2) is None
    found = one_star_attack(g, corner, max_open=4)
    assert found is not None and found.empties == cells(g, "R2C6") and found.units == ("region B",)


def test_region_inside_a_line() -> None:
    g = board(SIX)
    found = union_confinement(
        g, marks(["??????", "??????", "??????", "..????", "??????", "??????"]), inner="regions", size=1
    )
    assert found is not None and found.empties == cells(g, "R3C4", "R3C5", "R3C6")
    assert found.sentence.startswith("region D lies inside row 3")
    assert union_confinement(g, marks(OPEN6), inner="regions", size=1) is None


def test_line_inside_a_region() -> None:
    g = board(SIX)
    # Row 6 lies wholly in region F on the empty board: F's other cell R5C5 is empty.
    found = union_confinement(g, marks(OPEN6), inner="lines", size=1)
    assert found is not None and found.empties == cells(g, "R5C5")
    assert found.units == ("row 6", "region F")
    assert union_confinement(g, marks(["??????"] * 4 + ["????.?", "??????"]), inner="lines", size=1) is None


def test_two_regions_inside_two_rows() -> None:
    g = board(SIX)
    # Regions A and B lie inside rows 1-2 and need two stars, as the rows do: R2C6 (region C) is empty.
    found = union_confinement(g, marks(OPEN6), inner="regions", size=2)
    assert found is not None and found.empties == cells(g, "R2C6")
    assert set(found.units) == {"region A", "region B", "row 1", "row 2"}
    assert union_confinement(g, marks(["??????", "?????.", *OPEN6[2:]]), inner="regions", size=2) is None


def test_line_cases_settle_a_row_with_one_way() -> None:
    g = board(ROWS8, 2)
    found = unit_cases(g, marks(["???.....", *OPEN8[1:]]), kind="lines", limit=3)
    assert found is not None and found.stars == cells(g, "R1C1", "R1C3")
    assert found.empties == cells(g, "R1C2", "R2C1", "R2C2", "R2C3", "R2C4")
    assert unit_cases(g, marks(OPEN8), kind="lines", limit=3) is None


def test_region_cases() -> None:
    g = board(["AAAABBBB", "AAAABBBB", "CCCCDDDD", "CCCCDDDD", "EEEEFFFF", "EEEEFFFF", "GGGGHHHH", "GGGGHHHH"], 2)
    found = unit_cases(g, marks(["???.????", "....????", *OPEN8[2:]]), kind="regions", limit=3)
    assert found is not None and found.stars == cells(g, "R1C1", "R1C3")
    assert unit_cases(g, marks(OPEN8), kind="regions", limit=3) is None


def test_band_cases_one_star_per_block() -> None:
    g = board(ROWS8, 2)
    # Rows 1-2 need 4 stars and their open cells fold onto columns 1, 3-4, 6, 8: one star per block, and the block
    # R2C3-R2C4 lies in row 2, so R3C3 and R3C4 touch its star whichever it is. Six ways in all.
    state = marks(["?....?.?", "?.??.?.?", *OPEN8[2:]])
    assert len(placements(g, state, g.bands[0], 100) or []) == 6
    assert placements(g, state, g.bands[0], 4) is None  # too many ways for the "few" variant
    found = unit_cases(g, state, kind="bands", limit=16)
    assert found is not None and found.units == ("rows 1-2",)
    assert found.stars == 0 and found.empties == cells(g, "R3C3", "R3C4")
    assert unit_cases(g, marks(OPEN8), kind="bands", limit=16) is None


def test_pressure_empties_a_cell_that_would_starve_a_row() -> None:
    g = board(ROWS8, 2)
    # Row 2 needs 2 stars in R2C1-R2C4; a star at R1C1 would leave only R2C3-R2C4, room for one.
    found = pressure(g, marks(["????????", "????....", *OPEN8[2:]]), kind="lines", need=2)
    assert found is not None and found.empties == cells(g, "R1C1") and found.units == ("row 2",)
    assert pressure(g, marks(OPEN8), kind="lines", need=2) is None


def test_assume_a_star_refutes_it() -> None:
    g = board(SIX)
    solution = six_solution(g)
    found = assumption(g, marks(OPEN6), assume="star", level=TRIVIAL, budget=0, depth=1)
    assert found is not None and found.stars == 0 and found.empties.bit_count() == 1
    assert found.empties & solution == 0
    assert assumption(board(ROWS8, 2), marks(OPEN8), assume="star", level=ATTACK, budget=0, depth=1) is None


def test_assume_empty_refutes_it() -> None:
    g = board(SIX)
    state = marks(["??????", "??????", "...???", ".?????", "??????", "??????"])  # R4C2 is region D's last cell
    found = assumption(g, state, assume="empty", level=TRIVIAL, budget=1, depth=1)
    assert found is not None and found.stars == cells(g, "R4C2")
    assert assumption(g, marks(OPEN6), assume="empty", level=TRIVIAL, budget=1, depth=1) is None


def test_chain_of_chains_is_sound() -> None:
    g = board(SIX)
    found = assumption(g, marks(OPEN6), assume="star", level=CONFINE, budget=0, depth=2)
    assert found is not None and found.empties & six_solution(g) == 0


def test_whole_board_chain_of_chains_moves_a_board_nothing_cheaper_moves() -> None:
    """A 14x14 three-star archive board (read from the shared folder, never copied) on which every technique
    below the whole-board chain of chains gets stuck after a few steps: the depth-2 chain finds nothing there,
    the depth-3 one refutes a cell, and its conclusion agrees with the known solution. On a board with many
    solutions (every cell a star in one of them) it must find nothing."""
    puzzle = next(p for p in read_jsonl(str(shared_file("starbattle/archive.jsonl"))) if p.id == "8:18473")
    cheaper = tuple(t for t in STARBATTLE_TECHNIQUES if t.params.get("depth", 0) < 3 and not t.params.get("wide"))
    stuck = grade(puzzle, techniques=cheaper)
    assert not stuck.solved and stuck.open.bit_count() > 150
    g = Geometry(puzzle)
    state = State(stuck.stars, stuck.empty)
    for assume in ("star", "empty"):
        assert assumption(g, state, assume=assume, level=CASES, budget=0, depth=2) is None
    found = assumption(g, state, assume="star", level=CASES, budget=0, depth=3)
    assert found is not None and found.stars == 0 and found.empties.bit_count() == 1
    assert found.empties & puzzle.solution == 0
    rows6 = board(["AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD", "EEEEEE", "FFFFFF"])  # 90 solutions cover every cell
    for assume in ("star", "empty"):
        assert assumption(rows6, marks(OPEN6), assume=assume, level=CASES, budget=0, depth=3) is None
    for kind in ("regions", "lines"):
        assert unit_chains(rows6, marks(OPEN6), kind=kind, limit=60, level=CASES, wide=True) is None


def test_room_and_propagation() -> None:
    assert path_room(0b1111).capacity == 2 and path_room(0b10101).capacity == 3 and path_room(0).capacity == 0
    g = board(SIX)
    block = cells(g, "R1C1", "R1C2", "R2C1", "R2C2")
    assert fits(g.neighbours, block, 1) and not fits(g.neighbours, block, 2)
    start = marks(["*?????", *OPEN6[1:]])
    outcome = propagate(g, start.stars, start.empty, TRIVIAL)
    assert outcome.contradiction is None
    assert outcome.empty & cells(g, "R1C2", "R2C1", "R2C2", "R1C6", "R6C1") == cells(
        g, "R1C2", "R2C1", "R2C2", "R1C6", "R6C1"
    )
    touching = marks(["*?????", "?*????", *OPEN6[2:]])
    assert propagate(g, touching.stars, touching.empty, TRIVIAL).contradiction == "two stars would touch"
    assert propagate(g, 0, 0, ATTACK).contradiction is None


QUARTERS8 = ["AAAABBBB", "AAAABBBB", "CCCCDDDD", "CCCCDDDD", "EEEEFFFF", "EEEEFFFF", "GGGGHHHH", "GGGGHHHH"]


def test_tight_line_and_tight_band() -> None:
    g = board(ROWS8, 2)
    found = tight_room(g, marks(["???.....", *OPEN8[1:]]), kind="lines")
    assert found is not None and found.stars == cells(g, "R1C1", "R1C3") and found.empties == cells(g, "R1C2")
    assert tight_room(g, marks(OPEN8), kind="lines") is None
    # Rows 1-2 fold onto columns 1, 3-4, 6, 8: room for exactly 4; the pair R2C3-R2C4 holds one star.
    found = tight_room(g, marks(["?....?.?", "?.??.?.?", *OPEN8[2:]]), kind="bands")
    assert found is not None and found.units == ("rows 1-2",) and found.empties == cells(g, "R3C3", "R3C4")
    assert tight_room(g, marks(OPEN8), kind="bands") is None


def test_region_in_two_by_two_blocks() -> None:
    g = board(QUARTERS8, 2)
    # Region A keeps R1C3-R2C4 and R2C1-R2C2: two blocks for two stars, so R2C1/R2C2 holds one and R3C1, R3C2 go.
    found = region_blocks(g, marks(["..??????", *OPEN8[1:]]))
    assert found is not None and found.units == ("region A",) and found.empties == cells(g, "R3C1", "R3C2")
    assert region_blocks(g, marks(OPEN8)) is None
    assert [b.bit_count() for b in block_cover(g, g.regions[0].mask)] == [4, 4]


def test_remainder_of_a_confinement() -> None:
    g = board(QUARTERS8, 2)
    # Row 1 lies inside regions A and B, which need 4: the rest of A and B (row 2) holds exactly 2, and only
    # R2C1, R2C2, R2C3 are open there: one way, R2C1 + R2C3.
    state = marks(["????????", "???.....", *OPEN8[2:]])
    found = union_remainder(g, state, inner="lines", size=2, limit=12)
    assert found is not None and found.stars == cells(g, "R2C1", "R2C3")
    assert set(found.units) == {"row 1", "region A", "region B"}
    found = remainder_blocks(g, state, inner="lines", size=2)
    assert found is not None and found.stars == cells(g, "R2C3")
    assert found.empties == cells(g, "R1C1", "R1C2", "R3C1", "R3C2")
    assert union_remainder(g, marks(OPEN8), inner="lines", size=2, limit=12) is None
    assert remainder_blocks(g, marks(OPEN8), inner="lines", size=2) is None


def test_unit_chains_keep_what_every_case_agrees_on() -> None:
    g = board(SIX)
    found = unit_chains(g, marks(OPEN6), kind="regions", limit=8, level=CONFINE)
    assert found is not None and found.stars | found.empties
    solution = six_solution(g)
    assert found.stars & ~solution == 0 and found.empties & solution == 0
    # Rows of eight cells needing two stars have far more than eight ways: nothing to follow.
    assert unit_chains(board(ROWS8, 2), marks(OPEN8), kind="regions", limit=8, level=CONFINE) is None
