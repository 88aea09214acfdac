"""The generator's settings and the slot it fills.

`GeneratorConfig` defaults are the numbers the generator was measured with (bench/bench_generator.py); the same
defaults are written out in the `generator:` section of config/starbattle.yaml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..layouts import MAX_LAYOUT_SIZE
from ..puzzle import GAMES, InputError, layouts_exist

BANDS = ("easy", "medium", "hard", "expert")


class MotifMix(BaseModel):
    """How often each Queens motif is drawn, relative to the others (growth.MOTIFS has the shapes). Set so that
    gated 9x9 growth holds about as many regions of each shape per board as LinkedIn's 9x9 levels: crosses 0.25,
    ells 0.24, straight bars 0.43 (the bars design mode draws most), rectangles 0.32."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bar: float = Field(0.15, ge=0)
    ell: float = Field(1.0, ge=0)
    cross: float = Field(1.5, ge=0)
    rectangle: float = Field(0.2, ge=0)
    frame: float = Field(0.5, ge=0)
    ring: float = Field(0.5, ge=0)


class DesignMix(BaseModel):
    """How often each Queens design mode is drawn, relative to the others (designs.py has the modes)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    organic: float = Field(0.0, ge=0)
    mirror: float = Field(0.0, ge=0)
    rings: float = Field(0.0, ge=0)
    bars: float = Field(0.0, ge=0)
    frame: float = Field(0.0, ge=0)

    @model_validator(mode="after")
    def _some_mode(self) -> DesignMix:
        if not any(self.model_dump().values()):
            raise ValueError("queens_design_mix: at least one mode needs a weight above 0")
        return self


class GeneratorConfig(BaseModel):
    """How boards are made: repair rounds, gates, tuning rounds, similarity, region-growth shapes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Uniqueness repair: how many impostor moves a candidate may get before it counts as still ambiguous.
    repair_rounds_starbattle: int = Field(15, ge=0)
    repair_rounds_queens: int = Field(40, ge=0)
    # Solutions the counter lists per repair round (2 is the minimum: the intended one and an alternate). More
    # alternates per count let one move break several: measured on 10x10 2-star, 2 -> 30% of candidates end
    # unique, 4 -> 52%, 8 -> 60%, at about the same time per candidate.
    repair_sample: int = Field(8, ge=2)
    # Once unique, give back to its grown region every moved cell the board can spare (a count per moved cell):
    # published Queens 9x9 boards kept little of their drawing without it.
    repair_undo: bool = True
    # Queens repair takes its cells from regions that keep this many while any move breaking as many alternates
    # does: taken from any region, a 9x9 board's small regions ended at the band's minimum (3 cells: 1.4 regions
    # of 3 a published board and 0.85 of 5, LinkedIn's 0.73 and 1.55; with 4, 1.1 and 1.2).
    repair_roomy_queens: int = Field(4, ge=0)
    # Gates: the grader's experience (fun) score and the looks score, both 0-100, both fitted models shifted so that
    # 50 is the designed (real) boards' gate percentile: the fun model of grader/experience.py (fun_model.json,
    # written by bench/fit_fun.py) and the looks model of looks.py (looks_model.json, bench/fit_looks.py). A gate of
    # 50 rejects what plays (looks) less designed than that share of designed boards.
    fun_gate: float = Field(50.0, ge=0, le=100)
    looks_gate: float = Field(50.0, ge=0, le=100)
    # After the gate, keep a board with a chance that grows with how like the real boards it looks (looks.py's looks
    # draw, looks_draw_model.json): the published boards' shapes follow the real boards' instead of the generator's.
    looks_draw: bool = True
    # Hill-climb tuning: boundary nudges tried per candidate that is unique and stuck-free but off target.
    tune_rounds_starbattle: int = Field(12, ge=0)  # a 10x10 grade costs up to a second: fewer, closer nudges
    tune_rounds_queens: int = Field(30, ge=0)
    # ... spent only on boards this close to the band (Star Battle: log of the difficulty ratio; Queens: one band
    # step plus a fraction, see stages.band_miss).
    tune_reach: float = Field(0.7, ge=0)
    tune_reach_queens: float = Field(1.5, ge=0)
    # ... and, inside the band, only on boards whose fun is at most this far under the gate.
    tune_fun_reach: float = Field(8.0, ge=0)
    # Two boards are near-duplicates when they share more than this share of their star positions.
    similarity_threshold: float = Field(0.6, ge=0, le=1)
    # Easy hunting: the capped solver may use only techniques up to this cost (per game).
    easy_max_cost_starbattle: int = Field(30, ge=1)
    easy_max_cost_queens: int = Field(3, ge=1)
    # ... tried first on the raw board, before any counting or repair (completion proves it unique).
    easy_hunt_raw: bool = True
    # Hard Star Battle slots of boards at least this big (None: none) grade under a cap of the hard band's upper
    # cutoff, as medium slots do under theirs: a step dearer than that carries the board past hard, so the capped
    # solver gives the same grade to every hard board and gives up early on the others, skipping the chains of
    # chains (cost 2800-3840) where a 14x14 grade spent up to ten minutes. Smaller boards stay as measured: without
    # the cap an expert board near the band is tuned towards it, with it that board stops as stuck. Medium and hard
    # slots of these sizes also stop once the next step would reach the band's upper cutoff (stages.band_ceiling):
    # the 14x14 hard cutoff is above every technique's cost, so the per-step cap alone skips nothing there.
    cap_hard_from_size: int | None = Field(14, ge=4)
    # A second budget next to the seconds: the number of candidates tried (None: no limit). When it, and not the
    # clock, ends a run, the result is the same on every machine.
    max_candidates: int | None = Field(None, ge=1)
    # Star Battle growth: how strongly a growing region leans towards its missing star (1 = not at all), and how
    # many times a candidate may backtrack before it is dropped.
    growth_pull: float = Field(3.0, ge=1)
    # ... for the hard and expert bands: regions that wander more on their way make tighter boards (10x10 2-star,
    # 30 candidates each: pull 3.0 gave 7 hard or expert boards, pull 1.2 gave 9, a third of them expert).
    growth_pull_hard: float = Field(1.2, ge=1)
    growth_backtracks: int = Field(200, ge=0)
    # Leftover cells feed the region beside them that is smallest for its appetite; appetites are log-normal with
    # this spread (0: all equal, every region the same size).
    growth_size_spread: float = Field(1.5, ge=0)
    # Leftover cells and growing Queens regions prefer cells they touch on several sides: each extra side
    # multiplies the preference by 1 + this (0: no preference; jagged borders, teeth and corridors).
    # Negative values prefer cells touched on one side: real boards have more one-wide runs and teeth than
    # compact growth (archive 10x10: corridor cells 14%, teeth 19%; growth at +1.0: 4% and 10%).
    growth_compactness: float = Field(1.0, gt=-1)
    queens_compactness: float = Field(-0.6, gt=-1)
    # Star Battle leftover cells that carry a straight arm of a region one cell further are picked this many times
    # more often, plus one (setters draw long one-wide arms; 10x10 2-star raw growth with shaping, held-out AUC
    # real vs generated on the looks model's features: 0 -> 0.71, 10 -> 0.64).
    growth_straightness: float = Field(10.0, ge=0)
    # ... and a growing Queens region's cells that do so (LinkedIn's regions are drawn as straight strokes).
    queens_straightness: float = Field(8.0, ge=0)
    # Star Battle shaping (shaping.py): one-cell boundary moves tried per board towards shape statistics drawn from
    # the real boards of its size (shapes.json, bench/fit_shapes.py); 0: none (10x10 2-star raw growth, held-out AUC
    # real vs generated: 0.89 without, 0.70 with 200).
    shaping_moves: int = Field(200, ge=0)
    # ... aiming this much under the drawn target's size spread (coefficient of variation of region sizes), per
    # kind of board ("10x10 2-star"; others 0): repair, tuning and the choice of the published board widen it
    # (10x10 2-star: real boards 0.38, shaped growth 0.39, published 0.45; real vs published held-out AUC 0.76 at
    # offset 0, 0.67 at 0.12, both over 150 published boards). Measured for the daily kind only: on 14x14 3-star
    # the same 0.12 made the medium and hard slots three times dearer and missed budgets.
    shaping_spread_offset: dict[str, Annotated[float, Field(ge=0)]] = Field(
        default_factory=lambda: {"10x10 2-star": 0.12}
    )
    # ... and again after repair, on Star Battle boards repair moved cells on (its impostor moves carry arms and odd
    # sizes into the shaped map), each move kept only while the board stays unique; 0: none. Only the kinds listed
    # in the offsets are reshaped (each move costs a count: measured on the daily kind only); the offset is smaller
    # than shaping's, as only tuning and the choice of the published board come after it (10x10 2-star, 150
    # published boards, real vs published held-out AUC: 0.67 without, 0.66 at offset 0, 0.61 at 0.03, 0.66 at 0.06,
    # 0.76 at 0.12).
    reshaping_moves: int = Field(200, ge=0)
    reshaping_spread_offset: dict[str, Annotated[float, Field(ge=0)]] = Field(
        default_factory=lambda: {"10x10 2-star": 0.03}
    )
    # Regrowths per candidate until one passes the looks gate and the give-away rule (growth is ~1 ms, a repair
    # and a grade of a board the gate would reject later cost far more).
    growth_looks_tries: int = Field(12, ge=1)
    # Give-aways: regions too small for the band (a 1x3 bar of a 2-star board, 1- and 2-cell Queens regions above
    # easy) are never drawn unless a slot's config sets this.
    allow_giveaways: bool = False
    # Queens growth: the share of easy boards with a planted single-cell region (LinkedIn's easy-grading levels),
    # the share of regions placed whole as a motif (bar, rectangle, cross, ell, frame, ring), the background region's
    # appetite, and the appetites of regions told to sprawl or to stay small (an ordinary region has appetite 1).
    queens_single_cell_share: float = Field(0.35, ge=0, le=1)  # LinkedIn 9x9 levels grading easy: 38 of 108
    queens_motif_share: float = Field(0.5, ge=0, le=1)
    # A board's motifs are all of the kind drawn first (LinkedIn builds a level on one idea drawn several times:
    # crosses, Ts, squares, Ls).
    queens_one_motif_kind: bool = True
    # The share of Queens boards (all but exact mirror maps) that first draw one of LinkedIn's repeated shapes
    # several times (growth.place_repeats; the shapes and copies measured by bench/fit_designs.py).
    queens_repeat_share: float = Field(0.5, ge=0, le=1)
    # The share of Queens boards (all but bar maps and exact mirror maps) drawn as a picture: one large symmetric
    # figure placed whole around a queen (growth.place_centrepiece), which repair spares like a repeated shape.
    queens_centrepiece_share: float = Field(0.5, ge=0, le=1)
    # The share of organic and frame Queens boards (9x9 and smaller) drawn by the setter (setter.py): LinkedIn's shapes
    # placed while counting solutions, around one large symmetric figure (organic) or on a background that keeps the
    # edge (frame); growth grows the board when the setter's map has too many solutions.
    queens_setter_share: float = Field(1.0, ge=0, le=1)
    # Exact left-right and top-bottom mirror maps are whittled in image pairs (repair.whittle), not repaired.
    queens_mirror_whittle: bool = True
    # ... then one-cell boundary moves tried towards partial symmetry, a number drawn per board from 0 to twice this
    # (ten times that on a mirror board the queens allow no exact map for); a move is kept only when more borders
    # match their mirror image.
    queens_symmetry_moves: int = Field(100, ge=0)
    queens_motifs: MotifMix = Field(default_factory=MotifMix)
    # Queens design modes (organic, mirror, rings, bars, frame): None draws them as often as LinkedIn's levels
    # are drawn in them (designs.json, measured by bench/fit_designs.py); a mix here replaces those frequencies.
    queens_design_mix: DesignMix | None = None
    # ... with organic and frame at these shares of LinkedIn's frequencies: the setter's organic maps and frames pass
    # repair and the gates about 2.6 and 2 times as often as growth's (bench/looks_auc.py's published boards by the
    # mode drawn), and the published boards, not the drawn ones, should be in each mode as often as growth's were.
    queens_organic_draw: float = Field(0.39, gt=0, le=1)
    queens_frame_draw: float = Field(0.5, gt=0, le=1)
    queens_background_appetite: float = Field(6.0, gt=0)
    # ... times a log-normal factor of this spread drawn per board (LinkedIn's largest region runs from 2 to 4.6
    # times a fair share between its 10th and 90th percentiles).
    queens_background_spread: float = Field(0.7, ge=0)
    queens_sprawl_share: float = Field(0.2, ge=0, le=1)
    queens_small_share: float = Field(0.3, ge=0, le=1)
    queens_sprawl_appetite: float = Field(3.0, gt=0)
    queens_small_appetite: float = Field(0.3, gt=0)

    @model_validator(mode="after")
    def _spread_offset_kinds(self) -> GeneratorConfig:
        for name, offsets in (
            ("shaping_spread_offset", self.shaping_spread_offset),
            ("reshaping_spread_offset", self.reshaping_spread_offset),
        ):
            for kind in offsets:
                if not re.fullmatch(r"(\d+)x\1 \d+-star", kind):  # shaping.kind_key's form
                    raise ValueError(f"{name}: kind {kind!r} is not like '10x10 2-star'")
        return self

    def repair_rounds(self, game: str) -> int:
        return self.repair_rounds_queens if game == "queens" else self.repair_rounds_starbattle

    def growth_pull_for(self, band: str) -> float:
        return self.growth_pull_hard if band in ("hard", "expert") else self.growth_pull

    def tune_rounds(self, game: str) -> int:
        return self.tune_rounds_queens if game == "queens" else self.tune_rounds_starbattle

    def easy_max_cost(self, game: str) -> int:
        return self.easy_max_cost_queens if game == "queens" else self.easy_max_cost_starbattle


@dataclass(frozen=True)
class Slot:
    """What one daily board must be: game, size, stars per unit, band. An impossible slot is an InputError."""

    game: str
    size: int
    stars: int
    band: str

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise InputError(f"slot game {self.game!r}: expected one of {', '.join(GAMES)}")
        if self.band not in BANDS:
            raise InputError(f"slot band {self.band!r}: expected one of {', '.join(BANDS)}")
        if self.game == "queens" and self.stars != 1:
            raise InputError(f"slot stars {self.stars}: queens has one queen per unit")
        if self.game == "queens" and self.band == "expert":
            raise InputError("slot band 'expert': queens bands are easy, medium and hard")
        if not isinstance(self.size, int) or not 4 <= self.size <= MAX_LAYOUT_SIZE:
            raise InputError(f"slot size {self.size!r} out of range 4..{MAX_LAYOUT_SIZE}")
        if not layouts_exist(self.size, self.stars):
            raise InputError(f"slot {self.size}x{self.size} with {self.stars} stars: no valid layout exists")
