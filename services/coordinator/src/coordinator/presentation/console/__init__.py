"""The web console: static ES modules and CSS served at ``/console`` (no build step)."""
