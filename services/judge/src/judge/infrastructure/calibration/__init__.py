"""The verdict's confidence calibration, shipped as data (``verdict_confidence.json``): ``calibrated_confidence``."""

from judge.infrastructure.calibration.verdict_confidence import (
    ConfidenceMap,
    calibrated_confidence,
    confidence_maps,
    standing_strength,
)

__all__ = ["ConfidenceMap", "calibrated_confidence", "confidence_maps", "standing_strength"]
