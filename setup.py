"""Build hook: ship the top-level ``templates/`` and ``card_models/`` inside the package.

The product brief fixes those folders at the top of the repository; an installed
wheel still needs them, so they are copied into ``dealer_assist/`` at build time.
"""

from pathlib import Path
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED = ("templates", "card_models")


class BuildWithTopLevelData(build_py):
    def run(self) -> None:
        super().run()
        root = Path(__file__).parent
        for name in SHIPPED:
            source = root / name
            if source.is_dir():
                target = Path(self.build_lib) / "dealer_assist" / name
                if target.exists():
                    shutil.rmtree(target)
                shutil.copytree(source, target)


setup(cmdclass={"build_py": BuildWithTopLevelData})
