"""Puzzle formats: JSON (shared data and Meowdoku), text pictures, puzz.link URLs, files of many puzzles, and the
errors bad input gets. Property tests: round trips on random region maps, and garbage or mutated input must give
a Puzzle or one single-line PuzzleError, never another exception."""

from __future__ import annotations

import io
import json
import random
import sys
from dataclasses import replace
from itertools import islice

import pytest
from conftest import shared_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from starbattle_core.formats import (
    parse_puzzles,
    puzzle_from_json,
    puzzle_from_puzzlink,
    puzzle_from_text,
    puzzle_to_json,
    puzzle_to_puzzlink,
    puzzle_to_text,
    read_jsonl,
    read_puzzles,
)
from starbattle_core.puzzle import (
    REGION_SYMBOLS,
    InputError,
    Puzzle,
    PuzzleError,
    cells_to_coords,
    is_solution,
    layouts_exist,
)
from starbattle_core.render import render_board

HANDMADE = list(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))
QUEENS = list(islice(read_jsonl(str(shared_file("queens/linkedin.jsonl"))), 60))
SAMPLES = HANDMADE + QUEENS
SMALL = [p for p in SAMPLES if p.size <= 10]
FIVE = ["AAABC", "AAABC", "AADBC", "AEDBC", "AEEBB"]  # 5puzzle1 of the shared data; answer below
FIVE_ANSWER = [[0, 3], [1, 0], [2, 2], [3, 4], [4, 1]]


def same(a: Puzzle, b: Puzzle) -> bool:
    """Equal as boards, and with the same id and published answer (which Puzzle equality ignores)."""
    return a == b and a.id == b.id and a.solution == b.solution


def random_region_map(size: int, rng: random.Random) -> list[list[int]]:
    """`size` connected regions grown from random seeds, one random frontier cell at a time."""
    grid = [[-1] * size for _ in range(size)]
    cells = rng.sample(range(size * size), size)
    frontier = []
    for region, cell in enumerate(cells):
        grid[cell // size][cell % size] = region
        frontier.append(cell)
    while frontier:
        cell = frontier.pop(rng.randrange(len(frontier)))
        r, c = divmod(cell, size)
        free = [
            (rr, cc)
            for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))
            if 0 <= rr < size and 0 <= cc < size and grid[rr][cc] < 0
        ]
        if free:
            rr, cc = rng.choice(free)
            grid[rr][cc] = grid[r][c]
            frontier += [cell, rr * size + cc]
    # Number the regions in reading order of their first cell, as every reader does.
    order: dict[int, int] = {}
    return [[order.setdefault(x, len(order)) for x in row] for row in grid]


@st.composite
def random_puzzles(draw: st.DrawFn) -> Puzzle:
    size = draw(st.integers(4, 14))
    stars = draw(st.sampled_from([k for k in (1, 2, 3) if layouts_exist(size, k)]))
    grid = random_region_map(size, random.Random(draw(st.integers(0, 2**32))))
    game = draw(st.sampled_from(["starbattle", "queens"])) if stars == 1 else "starbattle"
    return Puzzle.from_grid(grid, stars, game)


# --- round trips ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("puzzle", SAMPLES[:20], ids=lambda p: p.id)
def test_json_and_text_round_trip_keep_everything(puzzle: Puzzle) -> None:
    assert same(puzzle_from_json(puzzle_to_json(puzzle)), puzzle)
    assert same(puzzle_from_json(json.loads(json.dumps(puzzle_to_json(puzzle)))), puzzle)
    assert same(puzzle_from_text(puzzle_to_text(puzzle)), puzzle)


def test_puzzlink_round_trip_on_the_shared_puzzles() -> None:
    for puzzle in SAMPLES:
        url = puzzle_to_puzzlink(puzzle)
        assert url.startswith(f"https://puzz.link/p?starbattle/{puzzle.size}/{puzzle.size}/{puzzle.stars}/")
        back = puzzle_from_puzzlink(url)
        assert back.regions == puzzle.regions and back.stars == puzzle.stars
        assert puzzle_to_puzzlink(back) == url


@settings(max_examples=60, deadline=None)
@given(random_puzzles())
def test_round_trips_on_random_region_maps(puzzle: Puzzle) -> None:
    assert puzzle_from_json(puzzle_to_json(puzzle)) == puzzle
    assert puzzle_from_text(puzzle_to_text(puzzle)) == puzzle
    assert puzzle_from_puzzlink(puzzle_to_puzzlink(puzzle)).regions == puzzle.regions


@settings(max_examples=60, deadline=None)
@given(random_puzzles(), st.randoms(use_true_random=False))
def test_in_reading_order_letters_a_board_as_every_reader_does(puzzle: Puzzle, rng: random.Random) -> None:
    """A board numbered any way (as growth numbers its regions) comes back to the numbering its export reads back
    with, A at the top-left; names given with the regions follow them."""
    assert puzzle.in_reading_order() is puzzle  # random_puzzles are read in reading order
    shuffle = rng.sample(range(puzzle.size), puzzle.size)
    names = tuple(rng.sample(REGION_SYMBOLS, puzzle.size))
    lettered = replace(puzzle, regions=tuple(shuffle[region] for region in puzzle.regions), region_names=names)
    ordered = lettered.in_reading_order()
    assert ordered == puzzle
    assert ordered == puzzle_from_text(puzzle_to_text(replace(lettered, region_names=None)))
    for cell in range(puzzle.size**2):
        assert ordered.unit_label("region", ordered.regions[cell]) == names[lettered.regions[cell]]


def test_givens_round_trip_through_json_and_text() -> None:
    base = puzzle_from_json({"regions": FIVE, "stars": 1})
    puzzle = Puzzle(5, 1, base.regions, given_stars=1 << 3, given_empty=(1 << 5) | (1 << 24), id="five with givens")
    for back in (puzzle_from_json(puzzle_to_json(puzzle)), puzzle_from_text(puzzle_to_text(puzzle))):
        assert same(back, puzzle)
    with pytest.raises(PuzzleError, match="cannot carry given"):
        puzzle_to_puzzlink(puzzle)


# --- the Meowdoku JSON ---------------------------------------------------------------------------------


def meowdoku(puzzle: Puzzle) -> dict:
    """The Meowdoku README's form: regionMap as number[][], solution as the column of each row."""
    columns = [c for _, c in cells_to_coords(puzzle.solution, puzzle.size)]
    return {"name": puzzle.id, "regionMap": puzzle.region_grid(), "solution": columns}


def test_meowdoku_forms_read_the_same_board() -> None:
    # Meowdoku is Queens (one cat per unit): its form reads as a Queens board, without a 'stars' key.
    reference = puzzle_from_json({"regions": FIVE, "game": "queens", "solution": FIVE_ANSWER})
    ints = [[ord(ch) - ord("A") for ch in row] for row in FIVE]
    forms = [
        {"regions": ints, "solution": [3, 0, 2, 4, 1]},
        {"regionMap": ints, "size": 5, "solution": [3, 0, 2, 4, 1]},
        {"regionMap": ["".join(str(x) for x in row) for row in ints]},
        {"regions": [x for row in ints for x in row]},  # flat
        {"regionMap": [x for row in ints for x in row], "size": 5, "solution": FIVE_ANSWER},
    ]
    for form in forms:
        assert puzzle_from_json(form) == reference
    with_solution = puzzle_from_json(forms[0])
    assert with_solution.solution == reference.solution


def test_meowdoku_givens_in_every_spelling() -> None:
    expected = puzzle_from_json({"regions": FIVE, "stars": 1, "given_stars": [[0, 3]], "given_empty": [[0, 0], [2, 1]]})
    assert expected.given_stars == 1 << 3 and expected.given_empty == (1 << 0) | (1 << 11)
    for stars_key in ("cats", "givenCats"):
        for empty_key in ("crosses", "givenCrosses"):
            obj = {"regions": FIVE, "stars": 1, stars_key: [{"r": 0, "c": 3}], empty_key: [[0, 0], {"r": 2, "c": 1}]}
            back = puzzle_from_json(obj)
            assert (back.given_stars, back.given_empty) == (expected.given_stars, expected.given_empty)


def test_meowdoku_round_trip_on_the_queens_set() -> None:
    for puzzle in QUEENS:
        back = puzzle_from_json(meowdoku(puzzle))  # Meowdoku has no game name: its boards are Queens boards
        assert back == puzzle and (back.solution, back.id) == (puzzle.solution, puzzle.id)


def test_solution_as_columns_per_row_with_several_stars() -> None:
    puzzle = HANDMADE[0]  # 10x10, 2 stars
    rows: list[list[int]] = [[] for _ in range(puzzle.size)]
    for r, c in cells_to_coords(puzzle.solution, puzzle.size):
        rows[r].append(c)
    obj = {"regions": puzzle.region_rows(), "stars": 2, "solution": rows}
    assert puzzle_from_json(obj).solution == puzzle.solution


# --- real puzz.link URLs, taken from public pages and code -----------------------------------------------

# From pzprjs's own test (robx/pzprjs test/script/starbattle.js): the URL, its board in pzprv3 file form, and the
# accepted answer of that test.
PZPRJS_URL = "https://puzz.link/p?starbattle/6/6/1/4ilbhgdnmhou"
PZPRJS_REGIONS = ["000111", "011122", "033442", "553342", "544442", "522222"]
PZPRJS_ANSWER = [[0, 1], [1, 3], [2, 5], [3, 2], [4, 4], [5, 0]]
# From cspuz_rs's Star Battle serializer test: the URL and the expected answer (borders given there as booleans).
CSPUZ_URL = "https://puzz.link/p?starbattle/6/6/1/2u9gn9c9jpmk"
CSPUZ_ANSWER = [[0, 1], [1, 4], [2, 2], [3, 0], [4, 5], [5, 3]]
# From penpa-edit's puzz.link import tests and a puzzle-solver's example list.
REAL_URLS = [
    ("https://puzz.link/p?starbattle/10/10/2/5g252c2qkgbakk98igse7g88cp3730so000u", 10, 2),
    ("https://puzz.link/p?starbattle/10/10/2/l95las9vb5mmurbelo2m849c5gp068ci9029", 10, 2),
    ("https://puzz.link/p?starbattle/12/12/2/g0410igil9ck6q3l12glrcp12c081pu07do1ge6c0g0m0628gdkcn0", 12, 2),
    ("https://puzz.link/p?starbattle/13/13/2/40142jhssb4ij4491m8d6b0io4k8ab003vosuc02181v3e00o00fo3g00073phsg", 13, 2),
    ("https://puzz.link/p?starbattle/9/9/2/12a955kh37khi20fe0g13toea1c07g", 9, 2),
    (
        (
            "https://puzz.link/p?starbattle/15/15/3/"
            "31g94h1gk30glmiuum28c52kl8mh0i10o51gh4i1go2h84a4802gt5hah8la6046hc9aign1ga18424a42h8"
        ),
        15,
        3,
    ),
]


def test_pzprjs_test_url_decodes_to_its_board() -> None:
    puzzle = puzzle_from_puzzlink(PZPRJS_URL)
    assert puzzle == puzzle_from_json({"regions": PZPRJS_REGIONS, "stars": 1})
    assert puzzle_from_json({"regions": PZPRJS_REGIONS, "stars": 1, "solution": PZPRJS_ANSWER}).solution is not None
    assert puzzle_to_puzzlink(puzzle) == PZPRJS_URL


def test_cspuz_test_url_decodes_to_the_board_of_its_answer() -> None:
    puzzle = puzzle_from_puzzlink(CSPUZ_URL)
    assert puzzle.region_rows() == ["AAAABB", "ACDABB", "CCDDDB", "CBBBBB", "CEEBEF", "CCEEEF"]
    answer = sum(1 << (r * 6 + c) for r, c in CSPUZ_ANSWER)
    assert is_solution(puzzle, answer)
    assert puzzle_to_puzzlink(puzzle) == CSPUZ_URL


@pytest.mark.parametrize(("url", "size", "stars"), REAL_URLS, ids=lambda x: str(x)[-12:])
def test_real_urls_decode_and_encode_back(url: str, size: int, stars: int) -> None:
    puzzle = puzzle_from_puzzlink(url)
    assert (puzzle.size, puzzle.stars, len(set(puzzle.regions))) == (size, stars, size)
    assert puzzle_to_puzzlink(puzzle) == url


def test_other_hosts_and_schemes_read_the_same() -> None:
    body = PZPRJS_URL.split("?", 1)[1]
    expected = puzzle_from_puzzlink(PZPRJS_URL)
    for prefix in ("http://puzz.link/p?", "puzz.link/p?", "http://pzv.jp/p.html?", "https://pzprxs.vercel.app/p?"):
        assert puzzle_from_puzzlink(prefix + body) == expected


# --- files of many puzzles -----------------------------------------------------------------------------


def test_read_puzzles_equals_read_jsonl_on_the_shared_files() -> None:
    for name in ("starbattle/handmade.jsonl", "queens/community.jsonl"):
        path = str(shared_file(name))
        assert [(p, p.id, p.solution) for p in read_puzzles(path)] == [(p, p.id, p.solution) for p in read_jsonl(path)]


def test_format_detection(tmp_path) -> None:
    puzzles = HANDMADE[:3]
    texts = {
        "lines.jsonl": "\n".join(json.dumps(puzzle_to_json(p)) for p in puzzles) + "\n",
        "array.json": json.dumps([puzzle_to_json(p) for p in puzzles], indent=2),
        "urls.txt": "# three boards\n" + "\n".join(puzzle_to_puzzlink(p) for p in puzzles) + "\n",
        "pictures.txt": "\n\n".join(puzzle_to_text(p) for p in puzzles),
    }
    for name, text in texts.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert list(read_puzzles(str(path))) == puzzles, name
    one = tmp_path / "one.json"
    one.write_text(json.dumps(puzzle_to_json(puzzles[0]), indent=2), encoding="utf-8")
    assert [same(p, puzzles[0]) for p in read_puzzles(str(one))] == [True]


def test_json_lines_end_only_at_newlines() -> None:
    """A JSON string may hold U+2028 (a line separator to str.splitlines) and stays one line of JSON Lines."""
    text = (
        json.dumps({"id": "odd\u2028id", "regions": FIVE, "stars": 1}, ensure_ascii=False)
        + "\r\n"
        + json.dumps({"regions": FIVE, "stars": 1})
    )
    assert [p.id for p in parse_puzzles(text)] == ["odd\u2028id", None]


def test_text_picture_forms() -> None:
    reference = puzzle_from_json({"regions": FIVE, "stars": 1})
    assert puzzle_from_text("\n".join(FIVE), stars=1) == reference
    assert puzzle_from_text("# a comment\nstars: 1\n" + "\n".join(FIVE)) == reference
    spaced = "\n".join(" ".join(str(ord(ch) - 65) for ch in row) for row in FIVE)
    assert puzzle_from_text(spaced, stars=1) == reference
    header_apart = list(parse_puzzles("stars: 1\n\n" + "\n".join(FIVE)))
    assert header_apart == [reference]


def test_stdin_is_read_for_dash(monkeypatch) -> None:
    text = "\n".join(json.dumps(puzzle_to_json(p)) for p in HANDMADE[:2])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert list(read_puzzles("-")) == HANDMADE[:2]


# --- bad input: one line that names the problem and where it is ------------------------------------------

BAD_JSON = [
    ({"regions": ["AAB", "ABB", "CC"], "stars": 1}, "'regions' row 3, column 1: the row has 2 cells, expected 3"),
    ({"regions": ["AABB", "AABB", "CCDD"], "stars": 1}, "3 rows by 4 columns: it must be square"),
    ({"regions": ["AABC", "ABBC", "CC.D", "CCDD"], "stars": 1}, "'regions' row 3, column 3: unknown symbol '.'"),
    (
        {"regions": ["AABC", "ABBC", "CDDD", "DDDD"], "stars": 1},
        "region 'C' is not connected: 'regions' row 1, column 4 and 'regions' row 3, column 1 are in separate pieces",
    ),
    ({"regions": ["AAAA", "ABBB", "CCBB", "CCBB"], "stars": 1}, "3 regions (A, B, C) on a 4x4 board"),
    ({"regions": FIVE, "stars": 1, "size": 6}, "size 6 disagrees with 'regions', which has 5 rows"),
    ({"regions": FIVE, "stars": 2}, "no valid layout exists for a 5x5 board with 2 stars"),
    ({"regions": FIVE, "stars": 0}, "stars 0 out of range"),
    ({"regions": FIVE, "stars": "2"}, 'stars "2" is not a whole number'),
    ({"regions": FIVE, "stars": 1, "cats": [[0, 9]]}, "'cats' item 1: [0, 9] is off the 5x5 board"),
    ({"regions": FIVE, "stars": 1, "cats": [[0, 0], [1, 1]]}, "given stars R1C1 and R2C2 touch"),
    (
        {"regions": FIVE, "stars": 1, "cats": [[2, 2]], "crosses": [{"r": 2, "c": 2}]},
        "R3C3 is given both as a star and as empty",
    ),
    ({"regions": FIVE, "stars": 1, "cats": [[0, 0]], "givenCats": [[0, 0]]}, "both 'cats' and 'givenCats'"),
    ({"regions": FIVE, "stars": 1, "solution": [0, 1, 2, 3, 4]}, "the solution does not fit: "),
    ({"regions": FIVE, "stars": 1, "solution": [[0, 3], [1, 0]]}, "the solution does not fit: row 3 has 0 stars"),
    ({"regions": FIVE, "game": "chess"}, "unknown game 'chess'"),
    ({"regions": FIVE, "game": "queens", "stars": 2}, "queens has one queen per unit, not 2"),
    ({"regionMap": [0, 0, 1, 1, 2]}, "flat 'regionMap' has 5 cells, not a square number"),
    ({"regions": [0, 0, 1, 1], "size": 3}, "flat 'regions' has 4 cells, a 3x3 board needs 9"),
    ({"regions": [[0, 1], [1, None]]}, "'regions' row 2, column 2: unknown symbol null"),
    ({"stars": 1}, "missing 'regions'"),
    ([1, 2], "expected a JSON object"),
]


@pytest.mark.parametrize(("obj", "message"), BAD_JSON, ids=lambda x: str(x)[:30])
def test_bad_json_names_problem_and_place(obj, message: str) -> None:
    with pytest.raises(PuzzleError) as error:
        puzzle_from_json(obj, where="line 4")
    text = str(error.value)
    assert text.startswith("line 4: ") and message in text, text
    assert "\n" not in text


BAD_FILES = [
    ('{"regions": ["AB", "BA"], "stars": 1}\nnot json\n', "bad line 1: "),
    (
        json.dumps({"regions": FIVE, "stars": 1}) + "\n\n" + '{"regions": 5, "stars": 1}\n',
        "bad line 3: 'regions' must be",
    ),
    (json.dumps({"regions": FIVE, "stars": 1}) + "\n" + '{"regions": [', "bad line 2: not JSON"),
    ("stars: 1\nAAABC\nAAABC\nAAD#C\nAEDBC\nAEEBB\n", "bad line 4, column 4: unknown symbol '#'"),
    ("stars: 1\nAAABC\nAAABC\nAADBC\nAEDBC\nAEEB\n", "bad line 6, column 1: the row has 4 cells"),
    ("AAABC\nAAABC\nAADBC\nAEDBC\nAEEBB\n", "bad line 1: the picture does not say how many stars"),
    ("stars: two\nAAB\n", "bad line 1: stars 'two' is not a whole number"),
    ("stars: 1\ngiven stars: R9C1\n" + "\n".join(FIVE), "bad line 2: given stars: R9C1 is off the 5x5 board"),
    ("stars: 1\ncolour: red\n" + "\n".join(FIVE), "bad line 2: unknown header 'colour'"),
    (PZPRJS_URL + "\n" + PZPRJS_URL[:-6], "bad line 2: puzz.link URL: border data"),
    ("https://puzz.link/p?slither/5/5/gch1222ch331bg222", "bad line 1: not a Star Battle URL"),
    ("https://puzz.link/p?starbattle/6/5/1/4ilbhgdnmhou", "the board is 6x5"),
    ("https://puzz.link/p?starbattle/6/6/1/4ilbhgdnmhoz", "border data character 12 is 'z'"),
    ("https://puzz.link/p?starbattle/6/6/x/4ilbhgdnmhou", "star count 'x' is not a whole number"),
    ("https://puzz.link/p?starbattle/6/6/1/000000000000", "cut the 6x6 board into 1 regions, it needs 6"),
    ("stars: ²\n" + "\n".join(FIVE), "bad line 1: stars '²' is not a whole number"),
    ("stars: " + "9" * 5000 + "\n" + "\n".join(FIVE), "bad line 1: stars '99999"),
    ("https://puzz.link/p?starbattle/6/²/1/4ilbhgdnmhou", "row count '²' is not a whole number"),
    ("https://puzz.link/p?starbattle/6/6/" + "1" * 5000 + "/4ilbhgdnmhou", "star count '1111"),
    ("", "bad: no puzzle in it"),
    ("[]", "bad: the JSON array holds no puzzle"),
    (b"\xff\xfe\x00garbage", "bad: not UTF-8 text"),
]


@pytest.mark.parametrize(("content", "message"), BAD_FILES, ids=lambda x: str(x)[:30])
def test_bad_files_name_the_line(content, message: str) -> None:
    with pytest.raises(PuzzleError) as error:
        list(parse_puzzles(content, "bad"))
    text = str(error.value)
    assert message in text, text
    assert "\n" not in text


def test_missing_file_is_an_input_error() -> None:
    with pytest.raises(InputError, match="cannot read /no/such/file"):
        list(read_puzzles("/no/such/file"))


# --- property tests: garbage and mutations never raise anything but PuzzleError ---------------------------


def parse_or_error(content: str | bytes) -> list[Puzzle] | PuzzleError:
    try:
        return list(parse_puzzles(content, "input"))
    except PuzzleError as error:
        message = str(error)
        assert message and "\n" not in message and "\r" not in message, repr(message)
        return error


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_garbage_gives_a_puzzle_or_a_puzzle_error(content) -> None:
    parse_or_error(content)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet='ABCDE.#*01²٣ \n:{}[]",?/', max_size=80))
def test_near_miss_garbage_gives_a_puzzle_or_a_puzzle_error(content: str) -> None:
    parse_or_error(content)


def _mutate_text(text: str, data: st.DataObject) -> str:
    lines = text.split("\n")
    kind = data.draw(st.sampled_from(["symbol", "drop row", "drop char", "new symbol", "insert", "dup row"]))
    i = data.draw(st.integers(0, len(text) - 1)) if text else 0
    if kind == "symbol":
        return text[:i] + data.draw(st.sampled_from('ABCZz09.#*: \n{}[]"/')) + text[i + 1 :]
    if kind == "drop row" and len(lines) > 1:
        del lines[data.draw(st.integers(0, len(lines) - 1))]
        return "\n".join(lines)
    if kind == "drop char":
        return text[:i] + text[i + 1 :]
    if kind == "new symbol":
        return text[:i] + "Q" + text[i + 1 :]
    if kind == "dup row":
        row = data.draw(st.integers(0, len(lines) - 1))
        return "\n".join(lines[: row + 1] + lines[row:])
    return text[:i] + data.draw(st.text(max_size=3)) + text[i:]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SMALL[:12]), st.sampled_from(["json", "text", "url"]), st.data())
def test_mutated_puzzles_give_a_puzzle_or_a_puzzle_error(puzzle: Puzzle, form: str, data: st.DataObject) -> None:
    if form == "json":
        text = json.dumps(puzzle_to_json(puzzle))
    elif form == "text":
        text = puzzle_to_text(puzzle)
    else:
        text = puzzle_to_puzzlink(puzzle)
    for _ in range(data.draw(st.integers(1, 3))):
        text = _mutate_text(text, data)
    parse_or_error(text)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(SMALL[:12]), st.data())
def test_mutated_json_fields_give_a_puzzle_or_a_puzzle_error(puzzle: Puzzle, data: st.DataObject) -> None:
    obj = puzzle_to_json(puzzle)
    n = puzzle.size
    anything = st.one_of(
        st.none(), st.booleans(), st.integers(-3, 40), st.text(max_size=4), st.lists(st.integers(-1, 12), max_size=3)
    )
    kind = data.draw(st.sampled_from(["cell", "row", "stars", "size", "given", "move given", "solution", "field"]))
    if kind == "cell":
        r, c = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
        row = obj["regions"][r]
        obj["regions"][r] = row[:c] + data.draw(st.sampled_from("ABCDEFGHIJKLQz9.")) + row[c + 1 :]
    elif kind == "row":
        del obj["regions"][data.draw(st.integers(0, n - 1))]
    elif kind in ("stars", "size"):
        obj[kind] = data.draw(anything)
    elif kind == "given":
        obj[data.draw(st.sampled_from(["cats", "givenCrosses", "given_stars"]))] = data.draw(
            st.lists(st.one_of(st.lists(st.integers(-2, n + 1), min_size=2, max_size=2), anything), max_size=4)
        )
    elif kind == "move given":
        # a given star moved from the solution onto any cell, maybe touching another or off the board
        star = cells_to_coords(puzzle.solution, n)[0]
        obj["cats"] = [list(star), [data.draw(st.integers(-1, n)), data.draw(st.integers(-1, n))]]
    elif kind == "solution":
        pairs = st.lists(st.lists(st.integers(-1, n), min_size=2, max_size=2), max_size=n * 3)
        obj["solution"] = data.draw(st.one_of(anything, pairs))
    else:
        obj[data.draw(st.sampled_from(["regions", "regionMap", "game", "id"]))] = data.draw(anything)
    result = parse_or_error(json.dumps(obj))
    if isinstance(result, list):
        for back in result:
            assert back.solution is None or is_solution(back, back.solution)


# --- the rendered board --------------------------------------------------------------------------------


def test_render_draws_borders_exactly_between_regions() -> None:
    for puzzle in SAMPLES[:25]:
        n = puzzle.size
        lines = render_board(puzzle, puzzle.solution).split("\n")
        assert len(lines) == 2 * n + 1 and {len(line) for line in lines} == {4 * n + 1}
        grid = puzzle.region_grid()
        for r in range(n):
            for c in range(n - 1):  # the character between cells (r, c) and (r, c + 1)
                assert (lines[2 * r + 1][4 * c + 4] == "┃") == (grid[r][c] != grid[r][c + 1])
        for r in range(n - 1):
            for c in range(n):  # the segment between cells (r, c) and (r + 1, c)
                assert (lines[2 * r + 2][4 * c + 2] == "━") == (grid[r][c] != grid[r + 1][c])
        assert "".join(lines).count("★") == n * puzzle.stars
        for r, c in cells_to_coords(puzzle.solution, n):
            assert lines[2 * r + 1][4 * c + 2] == "★"


def test_render_marks_givens_and_has_an_ascii_form() -> None:
    base = puzzle_from_json({"regions": FIVE, "stars": 1})
    puzzle = Puzzle(5, 1, base.regions, given_stars=1 << 3, given_empty=1 << 10)
    board = render_board(puzzle, empty=1 << 4, letters=True)
    lines = board.split("\n")
    assert lines[1][13:16] == "[★]" and lines[5][1:4] == "[×]" and lines[1][17:20] == " · "
    assert lines[3][1:4] == " A "
    plain = render_board(puzzle, stars=1 << 24, ascii=True)
    assert plain.isascii() and "[*]" in plain and "[x]" in plain and " * " in plain
    assert plain.split("\n")[0] == "+-----------+---+---+"
