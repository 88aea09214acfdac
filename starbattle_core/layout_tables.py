"""The transfer tables behind the layout bank: how layouts are counted, ranked and unranked without enumerating.

A row-by-row transfer over states (last row, column counts). ``levels[j]`` holds, for every state reachable
after ``j`` rows, the number of ``j``-row partial layouts ending in that state. Turning the board upside down
maps a top part onto a bottom part, so the same tables also count completions: after rows 0..r-1 with column
counts ``c``, putting row ``t`` next leaves exactly ``levels[size - r][(t, stars - c)]`` ways to finish
(compatibility of ``t`` with row r-1 checked separately). That identity drives unrank and rank, and through them
the bank, the enumeration and exact uniform sampling (``starbattle_core.layouts``).

States are int64 codes (column counts packed in bit fields) held in sorted numpy arrays; each level is grouped
by code so one search finds every last row that goes with a code. Tables are cached per (size, stars).

States that can no longer be completed are pruned as they appear: in ``m`` remaining rows, a column can take at
most ceil(m / 2) more stars, and so can any two neighbouring columns together (two stars in neighbouring columns
must sit in rows at least two apart); a row the last row blocks does not count. Pruning only drops states with
no completion, so every count stays exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from .puzzle import InputError


@dataclass(frozen=True)
class Level:
    """The states after some number of rows, grouped by column-count code so one search finds all rows."""

    codes: np.ndarray  # distinct packed column-count codes, ascending
    starts: np.ndarray  # the states with codes[i] are entries starts[i]:starts[i + 1]
    row_index: np.ndarray  # each entry's last row (index into the row masks), ascending within a code
    ways: np.ndarray  # each entry's number of partial layouts

    def entries(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat (owner, entry) pairs: every state whose code is codes[owner], owners ascending, then rows."""
        if len(self.codes) == 0 or len(codes) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.codes, codes), len(self.codes) - 1)
        first = self.starts[at]
        lengths = np.where(self.codes[at] == codes, self.starts[at + 1] - first, 0)
        owner = np.repeat(np.arange(len(codes)), lengths)
        offset = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        return owner, np.repeat(first, lengths) + offset


@dataclass(frozen=True)
class LayoutTables:
    """The transfer tables of one (size, stars): row masks, their compatibility and every level's states."""

    size: int
    stars: int
    rows: np.ndarray  # every row mask with `stars` non-touching stars, ascending, int64
    row_codes: np.ndarray  # packed column-count code of each row mask
    compatible: np.ndarray  # (R, R) bool: row a may sit directly above row b (symmetric)
    full: int  # packed code with every column at `stars`
    levels: tuple[Level, ...]  # levels[j]: states after j rows (levels[0] is empty)

    @cached_property
    def total(self) -> int:
        """Number of full layouts: states after `size` rows whose column counts are all `stars`."""
        level = self.levels[self.size]
        _, entry = level.entries(np.array([self.full], dtype=np.int64))
        return int(level.ways[entry].sum())

    def unrank(self, index: np.ndarray) -> np.ndarray:
        """Layouts (len(index), size) at the given positions of the enumeration order, vectorised."""
        n = self.size
        rest = np.asarray(index, dtype=np.int64).copy()
        out = np.zeros((len(rest), n), dtype=np.uint32)
        code = np.zeros(len(rest), dtype=np.int64)
        prev = np.zeros(len(rest), dtype=np.int64)
        for r in range(n):
            # Candidates for row r of sample i: the states (t, stars - counts) after n - r rows, t ascending;
            # each one's ways count the layouts that continue sample i's first r rows with row t (module doc).
            # A valid index leaves every sample at least one candidate, so each sample owns one run.
            level = self.levels[n - r]
            owner, entry = level.entries(self.full - code)
            row = level.row_index[entry]
            ways = level.ways[entry]
            if r:
                ways = np.where(self.compatible[prev[owner], row], ways, 0)
            # Running totals per sample; one cumsum over all samples may wrap around int64 on huge boards,
            # but the differences taken inside a sample's run are exact in modular arithmetic.
            running = np.cumsum(ways)
            run_start = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
            base = np.repeat(running[run_start] - ways[run_start], np.diff(np.append(run_start, len(owner))))
            within = running - base
            # The chosen row is the first candidate whose running total passes the sample's remaining index.
            passed = np.bincount(owner[within <= rest[owner]], minlength=len(rest))
            chosen = run_start + passed
            rest -= within[chosen] - ways[chosen]
            out[:, r] = self.rows[row[chosen]]
            code += self.row_codes[row[chosen]]
            prev = row[chosen]
        return out

    def every_layout(self) -> np.ndarray:
        """All layouts (total, size) in enumeration order, grown row by row from every viable prefix.

        Cheaper than unranking every index: early rows have few distinct prefixes, late rows few candidates.
        """
        n = self.size
        prefixes = np.zeros((1, 0), dtype=np.uint32)
        code = np.zeros(1, dtype=np.int64)
        prev = np.zeros(1, dtype=np.int64)
        for r in range(n):
            level = self.levels[n - r]
            owner, entry = level.entries(self.full - code)
            row = level.row_index[entry]
            # Every stored state has partial layouts, so a compatible candidate always leads to full layouts.
            if r:
                viable = self.compatible[prev[owner], row]
                owner, row = owner[viable], row[viable]
            prefixes = np.concatenate((prefixes[owner], self.rows[row, None].astype(np.uint32)), axis=1)
            code = code[owner] + self.row_codes[row]
            prev = row
        return prefixes

    def rank(self, layout: np.ndarray) -> int:
        """Position of a valid layout in the enumeration order."""
        n = self.size
        row_index = np.searchsorted(self.rows, layout.astype(np.int64))
        position = 0
        code = 0
        for r in range(n):
            t = int(row_index[r])
            level = self.levels[n - r]
            _, entry = level.entries(np.array([self.full - code], dtype=np.int64))
            earlier = entry[level.row_index[entry] < t]
            if r:
                earlier = earlier[self.compatible[int(row_index[r - 1]), level.row_index[earlier]]]
            position += int(level.ways[earlier].sum())
            code += int(self.row_codes[t])
        return position


def row_masks(size: int, stars: int) -> np.ndarray:
    masks = np.arange(1 << size, dtype=np.int64)
    popcount = np.zeros_like(masks)
    for c in range(size):
        popcount += (masks >> c) & 1
    return masks[(popcount == stars) & ((masks & (masks << 1)) == 0)]


class ColumnCounts:
    """Column counts packed into one int64: `field_bits` bits per column, column c in the c-th field."""

    def __init__(self, size: int, stars: int) -> None:
        self.size, self.stars = size, stars
        self.field_bits = int(stars).bit_length()
        self.shifts = np.arange(size, dtype=np.int64) * self.field_bits
        self.full = sum(stars << int(shift) for shift in self.shifts)

    def of_rows(self, rows: np.ndarray) -> np.ndarray:
        """Code of single row masks: a 1 in the field of each starred column."""
        bits = (rows[:, None] >> np.arange(self.size)) & 1
        return (bits << self.shifts).sum(axis=1)

    def column_counts(self, codes: np.ndarray) -> np.ndarray:
        """(len(codes), size) int8 matrix of stars per column."""
        return ((codes[:, None] >> self.shifts) & ((1 << self.field_bits) - 1)).astype(np.int8)

    def full_columns(self, codes: np.ndarray) -> np.ndarray:
        """Column mask (bit c) of the columns that already hold `stars` stars."""
        done = (self.column_counts(codes) == self.stars).astype(np.int64)
        return (done << np.arange(self.size, dtype=np.int64)).sum(axis=1)

    def completable(self, codes: np.ndarray, last: np.ndarray, remaining: int) -> np.ndarray:
        """Mask of states (codes, last row mask) not ruled out for `remaining` more rows (see module doc)."""
        need = self.stars - self.column_counts(codes)
        all_columns = (1 << self.size) - 1
        blocked_rows = (last | (last << 1) | (last >> 1)) & all_columns
        blocked = ((blocked_rows[:, None] >> np.arange(self.size)) & 1).astype(np.int8)
        alive = ~(need > (remaining + 1 - blocked) // 2).any(axis=1)
        if self.size > 1:
            both = blocked[:, 1:] & blocked[:, :-1]
            alive &= ~(need[:, 1:] + need[:, :-1] > (remaining + 1 - both) // 2).any(axis=1)
        return alive


def _group_by_code(row_index: np.ndarray, codes: np.ndarray, ways: np.ndarray, row_bits: int) -> Level:
    order = np.argsort((codes << row_bits) | row_index, kind="stable")
    codes, row_index, ways = codes[order], row_index[order], ways[order]
    first = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1]))) if len(codes) else codes[:0]
    starts = np.concatenate((first, [len(codes)])).astype(np.int64)
    return Level(codes[first], starts, row_index, ways)


@lru_cache(maxsize=8)
def layout_tables(size: int, stars: int) -> LayoutTables:
    rows = row_masks(size, stars)
    row_count = len(rows)
    row_bits = max(1, row_count.bit_length())
    compatible = (rows[:, None] & (rows[None, :] | (rows[None, :] << 1) | (rows[None, :] >> 1))) == 0
    packing = ColumnCounts(size, stars)
    row_codes = packing.of_rows(rows)
    empty = np.zeros(0, dtype=np.int64)

    # The level being extended, ordered by (last row, code) so each last row owns one slice.
    alive = packing.completable(row_codes, rows, size - 1)
    last, codes, ways = np.flatnonzero(alive).astype(np.int64), row_codes[alive], np.ones(int(alive.sum()), np.int64)
    levels = [_group_by_code(empty, empty, empty, row_bits), _group_by_code(last, codes, ways, row_bits)]
    for level in range(2, size + 1):
        if ways.size and int(ways.max()) >= (1 << 62) // max(row_count, 1):
            raise InputError(f"{size}x{size} {stars}-star has too many layouts to count in 64-bit tables")
        full = packing.full_columns(codes)
        bounds = np.searchsorted(last, np.arange(row_count + 1))
        present = [a for a in range(row_count) if bounds[a] < bounds[a + 1]]
        next_last, next_codes, next_ways = [], [], []
        for t in range(row_count):
            sources = [slice(bounds[a], bounds[a + 1]) for a in present if compatible[a, t]]
            if not sources:
                continue
            source_codes = np.concatenate([codes[s] for s in sources])
            fits = (np.concatenate([full[s] for s in sources]) & rows[t]) == 0
            if not fits.any():
                continue
            new_codes = source_codes[fits] + row_codes[t]
            new_ways = np.concatenate([ways[s] for s in sources])[fits]
            order = np.argsort(new_codes, kind="stable")
            new_codes, new_ways = new_codes[order], new_ways[order]
            first = np.flatnonzero(np.concatenate(([True], new_codes[1:] != new_codes[:-1])))
            next_codes.append(new_codes[first])
            next_ways.append(np.add.reduceat(new_ways, first))
            next_last.append(np.full(len(first), t, dtype=np.int64))
        if next_codes:
            last, codes, ways = np.concatenate(next_last), np.concatenate(next_codes), np.concatenate(next_ways)
            alive = packing.completable(codes, rows[last], size - level)
            last, codes, ways = last[alive], codes[alive], ways[alive]
        else:
            last, codes, ways = empty, empty, empty
        levels.append(_group_by_code(last, codes, ways, row_bits))
    return LayoutTables(size, stars, rows, row_codes, compatible, packing.full, tuple(levels))
