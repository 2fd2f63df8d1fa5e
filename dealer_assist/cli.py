"""The ``dealer-assist`` command. Each area adds its commands from ``dealer_assist.commands``."""

from __future__ import annotations

import importlib

import click

#: Modules under dealer_assist.commands; each defines ``register(group)``.
COMMAND_MODULES = ("settle", "analyze", "store", "web", "scan", "report")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dealer-assist")
def main() -> None:
    """Settle, log and audit Three Card Poker at a live table."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"dealer_assist.commands.{_name}").register(main)
