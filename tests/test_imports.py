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


def test_secmgr_scan_imports_nothing_of_the_web_stack(tmp_path: Path) -> None:
    (tmp_path / "app.env").write_text("DB_PASSWORD=Xk9#mP2vLq\n")
    script = (
        "import sys; from secmgr.cli import main;"
        f" code = main(['scan', {str(tmp_path)!r}, '--no-git', '--report', {str(tmp_path / 'r.json')!r}]);"
        " loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn', 'sqlite3')"
        " or m in ('secmgr.web', 'secmgr.db', 'secmgr.app', 'secmgr.ingest', 'secmgr.allowlists'));"
        " print(code, loaded)"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.stdout.strip() == "1 []", (result.stdout, result.stderr[-2000:])


def test_lower_layers_never_import_higher_ones() -> None:
    # scanner/, sca/ and vcs_providers/ know nothing of HTTP; shared types sit below the modules with routes.
    import ast

    package = Path(secmgr.__file__).parent
    routed = {p.stem for p in package.glob("*.py") if "routes = [" in p.read_text()}
    web = {"web", "app", "ui", "auth", "login"} | routed
    offenders = []
    layers = ("scanner", "vcs_providers", "findings.py", "timeutil.py", "severity.py", "hashing.py", "ids.py", "db",
              "sql.py", "job_queue.py", "jobs.py")  # fmt: skip
    for layer in layers:
        for path in [package / layer] if layer.endswith(".py") else sorted((package / layer).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module and node.level:
                    if node.module.split(".")[-1] in web or node.module.split(".")[0] in web:
                        offenders.append(f"{path.relative_to(package)} imports {node.module}")
    assert offenders == []
