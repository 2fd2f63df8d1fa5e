"""The ``dealer-assist`` command. Each area adds its commands from ``dealer_assist.commands``."""

from __future__ import annotations

import importlib

import click

#: Modules under dealer_assist.commands; each defines ``register(group)``.
COMMAND_MODULES = ("settle", "analyze", "store", "web", "scan", "photos", "report")

#: Commands other programs call once per job, loaded alone so they start fast (the
#: store and web modules pull in SQLAlchemy and Flask). Any other name loads every module.
LIGHT_COMMANDS = {"settle": "settle", "analyze": "analyze"}


class _Commands(click.Group):
    """Imports command modules only when a command is looked up."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._loaded: set[str] = set()

    def _load(self, module: str) -> None:
        if module not in self._loaded:
            self._loaded.add(module)
            importlib.import_module(f"dealer_assist.commands.{module}").register(self)

    def _load_all(self) -> None:
        for module in COMMAND_MODULES:
            self._load(module)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LIGHT_COMMANDS:
            self._load(LIGHT_COMMANDS[cmd_name])
        else:
            self._load_all()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_all()
        return super().list_commands(ctx)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dealer-assist")
def main() -> None:
    """Settle, log and audit Three Card Poker at a live table."""

