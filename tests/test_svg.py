"""The SVG renderer: one picture per board, borders where regions meet, marks where asked."""

from __future__ import annotations

import base64
import json
import re

from starbattle_core.formats import puzzle_from_json
from starbattle_core.puzzle import Puzzle
from starbattle_core.svg import board_svg, region_colours, svg_data_uri

QUADRANTS = Puzzle.from_grid([[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]], stars=1)


def test_every_cell_is_addressable_with_its_region() -> None:
    picture = board_svg(QUADRANTS, id_prefix="day1")
    cells = re.findall(r'<rect class="cell region-(\d+)" data-r="(\d)" data-c="(\d)" id="day1-(\d)-(\d)"', picture)
    assert len(cells) == 16
    for region, r, c, rid, cid in cells:
        assert (r, c) == (rid, cid)
        assert int(region) == QUADRANTS.regions[int(r) * 4 + int(c)]


def test_thick_walls_only_between_regions() -> None:
    walls = re.search(r'class="walls" d="([^"]*)"', board_svg(QUADRANTS)).group(1)
    # The quadrants meet along one full vertical and one full horizontal line: 4 + 4 unit segments.
    assert walls.count("M") == 8
    one_region = Puzzle.from_grid([[0]], stars=1)
    assert re.search(r'class="walls" d=""', board_svg(one_region))


def test_marks_givens_and_highlights() -> None:
    board = Puzzle.from_grid(
        [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]], stars=1, given_stars=1 << 15, given_empty=1 << 14
    )
    picture = board_svg(board, stars=1 << 1, empties=1 << 2 | 1 << 3, highlight=1 << 1 | 1 << 5)
    assert picture.count('class="star"') == 1 and picture.count('class="star given"') == 1
    assert picture.count('class="dot"') == 2 and picture.count('class="dot given"') == 1
    assert picture.count('class="highlight"') == 2
    assert re.search(r'id="b-mark-0-1"><path class="star"', picture)


def test_every_region_shows_the_letter_the_sentences_name_it_by() -> None:
    picture = board_svg(QUADRANTS)
    letters = re.findall(r'<text class="region-letter" x="([\d.]+)" y="([\d.]+)"[^>]*>(\w)</text>', picture)
    assert [letter for _, _, letter in letters] == ["A", "B", "C", "D"]
    # In the top-left corner of the region's first cell: A's at R1C1, B's at R1C3, C's at R3C1, D's at R3C3.
    corners = [(float(x), float(y)) for x, y, _ in letters]
    assert corners[0][0] < corners[1][0] and corners[0][1] < corners[2][1] and corners[3] > corners[0]
    named = Puzzle.from_grid(QUADRANTS.region_grid(), stars=1, region_names=("P", "Q", "R", "S"))
    assert re.findall(r'class="region-letter"[^>]*>(\w)<', board_svg(named)) == ["P", "Q", "R", "S"]
    assert "region-letter" not in board_svg(QUADRANTS, letters=False)


def test_queens_boards_draw_crowns() -> None:
    queens = Puzzle.from_grid(QUADRANTS.region_grid(), stars=1, game="queens")
    picture = board_svg(queens, stars=1 << 1)
    assert picture.count('class="crown"') == 1 and 'class="star' not in picture
    assert 'data-piece="queen"' in picture and 'data-piece="star"' in board_svg(QUADRANTS)


def test_labels_and_title_are_escaped_text() -> None:
    picture = board_svg(QUADRANTS, title="<day> & night")
    assert "<title>&lt;day&gt; &amp; night</title>" in picture
    assert len(re.findall(r'class="label"', picture)) == 8
    assert 'class="label"' not in board_svg(QUADRANTS, labels=False)


def test_neighbouring_regions_get_different_colours() -> None:
    with open("../shared/data/queens/linkedin.jsonl") as lines:
        boards = [puzzle_from_json(json.loads(line)) for _, line in zip(range(60), lines, strict=False)]
    for board in boards:
        fills = region_colours(board)
        n = board.size
        for cell, region in enumerate(board.regions):
            r, c = divmod(cell, n)
            for rr, cc in ((r + 1, c), (r, c + 1)):
                if rr < n and cc < n and board.regions[rr * n + cc] != region:
                    assert fills[region] != fills[board.regions[rr * n + cc]]


def test_data_uri_round_trips() -> None:
    picture = board_svg(QUADRANTS)
    uri = svg_data_uri(picture)
    assert uri.startswith("data:image/svg+xml;base64,")
    assert base64.b64decode(uri.split(",", 1)[1]).decode() == picture
