"""The `/v1` views, one module per resource. Importing a module declares its endpoints."""

from __future__ import annotations

import importlib

MODULES = (
    "users",
    "teams",
    "roles",
    "employment_types",
    "providers",
    "labels",
    "pay_codes",
    "shifts",
    "time_off",
    "timekeeping",
    "sign_offs",
    "appointment_types",
    "appointments",
    "slots",
    "reports",
    "forecasting",
    "permissions",
    "work_rules",
    "pay_preview",
    "balances",
    "people",
    "audit",
    "availability",
    "notifications",
    "shift_swaps",
)


def load() -> None:
    """Import every route module (idempotent: Python imports each once)."""
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")
