#!/usr/bin/env python
"""Django's command-line utility for Mnemo."""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    try:
        from django.core.management import execute_from_command_line
    except ImportError as exc:  # pragma: no cover - only without the virtualenv
        raise ImportError(
            "Django is not importable: run `make run` (or `make install`) to create .venv first."
        ) from exc
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
