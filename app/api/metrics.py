"""GET /metrics: this node's metrics in the Prometheus text format (see app/metrics.py).

The route sits at the root, not under /api: /metrics is where Prometheus looks by default. It is
for the scraper on the internal network; the bundled nginx (deploy/nginx.conf) does not pass it
through, and Prometheus scrapes each node directly (docs/DEPLOY.md).
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.metrics import Metrics

router = APIRouter(tags=["metrics"])


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    source: Metrics = request.app.state.metrics
    body, content_type = source.render(request.headers.get("accept"))
    return Response(body, media_type=content_type, headers={"Cache-Control": "no-store"})
