"""Grading settings: the band cutoffs and how the experience (fun) score reads a solve path.

Technique costs are not here: they live in the technique table (table.py), which the solver version hashes.
The defaults are the project's numbers; `config/starbattle.yaml` (section `grading:`) repeats them, documented.
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ExperienceConfig(BaseModel):
    """How a solve path's steps are read for the experience score (0-100); the score itself is the fitted model
    in grader/fun_model.json (bench/fit_fun.py), see experience.py.

    A step is *quick* when its cost is at most `quick_cost` (Star Battle) or `queens_quick_cost` (Queens): the
    trivial marks. A step is *hard* when it is not quick and costs at least `hard_fraction` of the solve's hardest
    step, so the same rules read an easy board and an expert one on their own scale.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    quick_cost: int = Field(3, ge=1)
    queens_quick_cost: int = Field(1, ge=1)
    hard_fraction: float = Field(0.75, gt=0, le=1)
    # A-ha: a hard step whose run of easier steps right after it places at least `aha_stars` stars.
    aha_stars: int = Field(2, ge=1)


class BandCutoffs(BaseModel):
    """Star Battle band cutoffs of one board size: difficulty below `easy_below` is easy, below `medium_below`
    medium, below `hard_below` hard, else expert."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    easy_below: int = Field(ge=1)
    medium_below: int = Field(ge=1)
    hard_below: int = Field(ge=1)

    @model_validator(mode="after")
    def _increasing(self) -> BandCutoffs:
        if not self.easy_below < self.medium_below < self.hard_below:
            raise ValueError("band cutoffs must rise: easy_below < medium_below < hard_below")
        return self

    def band(self, difficulty: int) -> str:
        if difficulty < self.easy_below:
            return "easy"
        if difficulty < self.medium_below:
            return "medium"
        if difficulty < self.hard_below:
            return "hard"
        return "expert"


# 14x14 3-star: the 10x10 cutoffs carried over by what the same publishers' labels score at both sizes
# (bench/calibrate_bands.py --with-14, docs/performance.md "Calibration"). A difficulty is a sum of step costs, so a
# bigger board scores more for the same label; the 10x10 cutoffs would call nearly no 14x14 board easy.
SIZE_BANDS_DEFAULT: dict[int, BandCutoffs] = {
    14: BandCutoffs(easy_below=560, medium_below=3800, hard_below=5300),
}


class GradingConfig(BaseModel):
    """Band cutoffs and the experience score.

    Star Battle: difficulty (the sum of step costs) below `easy_below` is easy, below `medium_below` medium, below
    `hard_below` hard, else expert; a board size listed in `size_bands` uses that size's cutoffs instead (any other
    size, these). Queens: hard as soon as a tier-4 step is needed; easy when only tiers 1-2 were used and the
    difficulty is below `queens_easy_below`; medium otherwise.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Fitted on labelled 10x10 2-star boards by bench/calibrate_bands.py (docs/performance.md: "Calibration").
    easy_below: int = Field(190, ge=1)
    medium_below: int = Field(1300, ge=1)
    hard_below: int = Field(1800, ge=1)
    # Cutoffs of other board sizes, by size (the board's side): a bigger board's solve path is longer.
    size_bands: dict[Annotated[int, Field(ge=4)], BandCutoffs] = Field(default_factory=lambda: dict(SIZE_BANDS_DEFAULT))
    queens_easy_below: int = Field(60, ge=1)
    experience: ExperienceConfig = Field(default_factory=ExperienceConfig)

    @model_validator(mode="after")
    def _increasing(self) -> GradingConfig:
        if not self.easy_below < self.medium_below < self.hard_below:
            raise ValueError("band cutoffs must rise: easy_below < medium_below < hard_below")
        return self

    def cutoffs(self, size: int | None = None) -> BandCutoffs:
        """The Star Battle cutoffs of a board size: its own row of `size_bands`, else the default ones."""
        if size is not None and size in self.size_bands:
            return self.size_bands[size]
        return self._default_cutoffs

    @cached_property
    def _default_cutoffs(self) -> BandCutoffs:
        # Built once: the generator asks for a slot's cutoffs for every candidate it grades.
        return BandCutoffs(easy_below=self.easy_below, medium_below=self.medium_below, hard_below=self.hard_below)

    def band(self, difficulty: int, size: int | None = None) -> str:
        """The Star Battle band of a difficulty on a board of this size (None: the default cutoffs)."""
        return self.cutoffs(size).band(difficulty)
