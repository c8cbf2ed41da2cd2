"""The statistics that score verdicts (``metrics``: intervals, Brier, calibration, Sharpe, drawdown, IC), the
scorecard sections built from them (``scorecard``) and the score's size/liquidity benchmark (``benchmarks``),
shared by the coordinator's live scorecard and the walk-forward evaluation so their figures mean the same thing.
"""
