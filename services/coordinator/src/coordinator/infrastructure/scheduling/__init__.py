"""Cron slots and exchange trading days (croniter, exchange_calendars)."""
