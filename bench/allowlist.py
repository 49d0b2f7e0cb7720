"""A global rule-id allowlist over a tenth of the secrets, and its deactivation, timed over HTTP.

python -m bench.allowlist --data-dir bench/out/data
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import httpx

from bench.generate import HOT_RULE
from bench.list_secrets import PASSWORD, wait


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="bench/out/data")
    args = parser.parse_args()
    env = {**os.environ, "SECMGR_ADMIN_PASSWORD": PASSWORD}
    server = subprocess.Popen([sys.executable, "-m", "secmgr.cli", "serve", "--port", "8933", "--data-dir",
                               args.data_dir], env=env, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait("http://127.0.0.1:8933/health")
        client = httpx.Client(base_url="http://127.0.0.1:8933", timeout=600)
        token = client.post("/auth/login", json={"username": "admin", "password": PASSWORD}).json()["access_token"]
        client.headers["Authorization"] = f"Bearer {token}"
        covered = client.get(f"/secrets/?rule={HOT_RULE}&limit=1").json()["total"]
        started = time.perf_counter()
        created = client.post("/whitelist/", json={"name": HOT_RULE, "global_": True, "type": "rule"})
        created.raise_for_status()
        create_seconds = time.perf_counter() - started
        allowlist = created.json()
        started = time.perf_counter()
        off = client.put(f"/whitelist/{allowlist['id']}", json={"active": False})
        off.raise_for_status()
        off_seconds = time.perf_counter() - started
        print(f"secrets with rule {HOT_RULE}: {covered}")
        print(f"create global allowlist: {create_seconds:.2f}s, secrets_updated={allowlist['secrets_updated']}")
        print(f"deactivate it: {off_seconds:.2f}s, secrets_updated={off.json()['secrets_updated']}")
        whitelisted = client.get("/secrets/?whitelisted=true&limit=1").json()["total"]
        print(f"whitelisted afterwards: {whitelisted}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
