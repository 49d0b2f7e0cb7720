"""Every module imports on its own: an import cycle that one entry point happens to avoid still fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import secmgr

MODULES = sorted(p.stem for p in Path(secmgr.__file__).parent.glob("*.py") if p.stem != "__init__")


def test_each_module_imports_alone() -> None:
    script = "; ".join(
        f"subprocess.run([sys.executable, '-c', 'import secmgr.{name}'], check=True)" for name in MODULES
    )
    result = subprocess.run([sys.executable, "-c", f"import subprocess, sys; {script}"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(MODULES) > 20
