"""``ITokenQuota`` over the ``limits`` library (``service_kit.rate_limits.DailyTokenQuota``): the
same counter store as the research quota, Redis when ``REDIS_URL`` is set (every coordinator replica shares it)."""

from __future__ import annotations

from coordinator.domain.ports.usage_ledger import ITokenQuota
from service_kit.rate_limits import DailyTokenQuota, storage_uri


class LimitsTokenQuota(ITokenQuota):
    def __init__(self, quota: DailyTokenQuota) -> None:
        self._quota = quota

    @classmethod
    def for_store(cls, redis_url: str | None, daily_tokens: int) -> LimitsTokenQuota:
        return cls(DailyTokenQuota.from_uri(storage_uri(redis_url), daily_tokens))

    async def refusal(self, client_id: str) -> tuple[str, int] | None:
        refused = await self._quota.refusal(client_id)
        return None if refused is None else (refused.detail, refused.retry_after_seconds)

    async def spend(self, client_id: str, tokens: int) -> None:
        await self._quota.spend(client_id, tokens)
