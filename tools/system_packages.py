"""The system packages the test run needs: Chromium (the browser test) and TeX Live (the PDF).

The setup stage of the test run (``dodo.py``, task ``system``). A package already present
is left alone. A missing one is installed with Debian's apt when running as root, one
apt command at a time, waiting up to 15 minutes for the dpkg lock held by another
installation; a failure names the step and shows apt's output. Without root (or apt) it
stops with the command to run.

    python -m tools.system_packages          # install what is missing
    python -m tools.system_packages --check  # only report what is missing
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
TEX_PACKAGES = ["texlive-xetex", "texlive-latex-recommended", "texlive-latex-extra",
                "texlive-fonts-recommended", "fonts-freefont-otf", "latexmk"]
TEX_PROGRAMS = ("xelatex", "latexmk")
LOCK = ["-o", "DPkg::Lock::Timeout=900"]  # wait for another installation to finish


class SetupError(RuntimeError):
    """A system package is missing and could not be installed; the message says what to do."""


def missing_tex() -> list[str]:
    return [p for p in TEX_PROGRAMS if shutil.which(p) is None]


def missing() -> dict[str, list[str]]:
    """``{what: [Debian packages]}`` for each requirement that is not met."""
    out = {}
    if not CHROMIUM.exists():
        out["Chromium (the browser test)"] = ["chromium"]
    if missing_tex():
        out[f"TeX Live (the PDF; {', '.join(missing_tex())} missing)"] = TEX_PACKAGES
    return out


def _apt(*args: str) -> None:
    step = ["apt-get", *LOCK, *args]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    proc = subprocess.run(step, capture_output=True, text=True, timeout=2400, env=env)
    if proc.returncode != 0:
        raise SetupError(f"'{' '.join(step)}' failed (exit {proc.returncode}):\n"
                         f"{(proc.stdout + proc.stderr)[-3000:]}")


def install() -> list[str]:
    """Install what is missing; the Debian packages installed."""
    needed = missing()
    if not needed:
        return []
    packages = [p for group in needed.values() for p in group]
    command = f"apt-get update && apt-get install -y --no-install-recommends {' '.join(packages)}"
    if not (hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get")):
        raise SetupError(f"missing: {'; '.join(needed)}. Install with: sudo "
                         + command.replace("&& ", "&& sudo "))
    _apt("update")
    _apt("install", "-y", "--no-install-recommends", *packages)
    still = missing()
    if still:
        raise SetupError(f"after '{command}', still missing: {'; '.join(still)}")
    return packages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report what is missing")
    args = parser.parse_args(argv)
    if args.check:
        for what, packages in missing().items():
            print(f"missing: {what} (Debian: {' '.join(packages)})")
        return 1 if missing() else 0
    try:
        installed = install()
    except SetupError as err:
        print(f"system packages: {err}", file=sys.stderr)
        return 1
    print(f"system packages: installed {' '.join(installed)}" if installed
          else "system packages: Chromium and TeX Live present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
