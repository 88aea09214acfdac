"""Grading settings: the band cutoffs and the experience (fun) score's weights and thresholds.

Technique costs are not here: they live in the technique table (table.py), which the solver version hashes.
The defaults are the project's numbers; `config/starbattle.yaml` (section `grading:`) repeats them, documented.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ExperienceConfig(BaseModel):
    """How the experience score (0-100) is computed from a solve path; see experience.py for the formula.

    A step is *quick* when its cost is at most `quick_cost` (Star Battle) or `queens_quick_cost` (Queens): the
    trivial marks. A step is *hard* when it is not quick and costs at least `hard_fraction` of the solve's hardest
    step, so the same rules read an easy board and an expert one on their own scale.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    quick_cost: int = Field(3, ge=1)
    queens_quick_cost: int = Field(1, ge=1)
    hard_fraction: float = Field(0.75, gt=0, le=1)
    # Climax: full points when the hardest step comes at or before `climax_best` of the way, none at `climax_worst`.
    climax_best: float = Field(0.2, ge=0, le=1)
    climax_worst: float = Field(0.6, ge=0, le=1)
    # A-ha: a hard step whose run of quick steps right after it places at least `aha_stars` stars.
    aha_stars: int = Field(2, ge=1)
    aha_target: int = Field(2, ge=1)  # a-ha moments that earn full points (measured: hand-made boards ~1-2 here)
    # Follow-up share: the fraction of quick steps; full points inside [low, high], none `follow_tolerance` outside.
    follow_low: float = Field(0.5, ge=0, le=1)
    follow_high: float = Field(0.7, ge=0, le=1)
    follow_tolerance: float = Field(0.3, gt=0)
    # Grind: runs of consecutive hard steps up to `grind_free` long cost nothing; `grind_span` more lose all points.
    grind_free: int = Field(3, ge=1)
    grind_span: int = Field(5, ge=1)
    # Points for each part; they add up to the 100 of a perfect path.
    climax_weight: float = Field(35, ge=0)
    aha_weight: float = Field(25, ge=0)
    follow_weight: float = Field(25, ge=0)
    grind_weight: float = Field(15, ge=0)

    @model_validator(mode="after")
    def _consistent(self) -> ExperienceConfig:
        if self.climax_best >= self.climax_worst:
            raise ValueError("climax_best must be below climax_worst")
        if self.follow_low > self.follow_high:
            raise ValueError("follow_low must not exceed follow_high")
        total = self.climax_weight + self.aha_weight + self.follow_weight + self.grind_weight
        if abs(total - 100) > 1e-9:
            raise ValueError(f"the experience weights add up to {total:g}, not 100")
        return self


class GradingConfig(BaseModel):
    """Band cutoffs and the experience score.

    Star Battle: difficulty (the sum of step costs) below `easy_below` is easy, below `medium_below` medium, below
    `hard_below` hard, else expert. Queens: hard as soon as a tier-4 step is needed; easy when only tiers 1-2 were
    used and the difficulty is below `queens_easy_below`; medium otherwise.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Fitted on labelled 10x10 2-star boards by bench/calibrate_bands.py (README: "Bands").
    easy_below: int = Field(190, ge=1)
    medium_below: int = Field(1300, ge=1)
    hard_below: int = Field(1800, ge=1)
    queens_easy_below: int = Field(60, ge=1)
    experience: ExperienceConfig = Field(default_factory=ExperienceConfig)

    @model_validator(mode="after")
    def _increasing(self) -> GradingConfig:
        if not self.easy_below < self.medium_below < self.hard_below:
            raise ValueError("band cutoffs must rise: easy_below < medium_below < hard_below")
        return self

    def band(self, difficulty: int) -> str:
        """The Star Battle band of a difficulty."""
        if difficulty < self.easy_below:
            return "easy"
        if difficulty < self.medium_below:
            return "medium"
        if difficulty < self.hard_below:
            return "hard"
        return "expert"
