"""A bare Starlette endpoint that returns a fixed JSON body: the floor for HTTP + JSON transfer."""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

body = Path(sys.argv[1]).read_bytes()


async def page(request: Request) -> Response:
    return Response(body, media_type="application/json")


app = Starlette(routes=[Route("/page", page)])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
