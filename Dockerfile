# syntax=docker/dockerfile:1
# Gaple Online: one app node. Production mode; the settings come from GAPLE_* variables
# (docs/DEPLOY.md). Build: docker build -t gaple-online .   Run the migration once per release
# (`gaple migrate`), then any number of nodes (`gaple serve`, the default command).

ARG PYTHON_VERSION=3.11

# --- build: wheels of the project and of every dependency ------------------------------------------
FROM python:${PYTHON_VERSION}-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src
# The dependencies exactly as locked (versions and hashes: requirements.lock, README "Locked
# dependencies"), then the project itself.
COPY requirements.lock ./
RUN pip wheel --wheel-dir /wheels --require-hashes -r requirements.lock
# The compiled engine (docs/ENGINE.md): mypyc and a C compiler, in this stage only.
COPY requirements-build.lock ./
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/* \
 && pip install --require-hashes -r requirements-build.lock
# Everything the wheel is built from: the migrations are inside app/, and setup.py copies the
# browser client (static/) into the wheel as app/static. GAPLE_COMPILE=1: the engine's hot
# modules go in compiled, beside their source.
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY engine ./engine
COPY app ./app
COPY static ./static
RUN GAPLE_COMPILE=1 pip wheel --no-deps --no-build-isolation --wheel-dir /wheels .

# --- runtime: the installed project, no build tools, no dev extras ---------------------------------
FROM python:${PYTHON_VERSION}-slim AS runtime

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH

# The wheels are bind-mounted from the build stage, so no layer keeps them. The lock is installed
# with its hashes checked again; the project on top adds nothing unlocked (--no-deps).
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    --mount=type=bind,from=build,source=/src/requirements.lock,target=/tmp/requirements.lock \
    python -m venv /opt/venv \
 && pip install --no-index --find-links=/wheels --require-hashes -r /tmp/requirements.lock \
 && pip install --no-index --find-links=/wheels --no-deps gaple-online \
 && gaple --help >/dev/null

RUN groupadd --system --gid 10001 gaple \
 && useradd --system --uid 10001 --gid gaple --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin gaple \
 && mkdir -p /app/var \
 && chown gaple:gaple /app/var

WORKDIR /app
USER 10001:10001

# Production: no generated secret key, no migration at start, proxy headers trusted (from the
# addresses in FORWARDED_ALLOW_IPS, uvicorn's variable; the compose file sets it for nginx).
# GAPLE_SECRET_KEY has no default on purpose: a node without one refuses to start.
ENV GAPLE_PRODUCTION=true \
    GAPLE_DATA_DIR=/app/var

EXPOSE 8000

# Liveness: /livez never touches the database, so an outage of PostgreSQL does not mark every node
# unhealthy (restarting them would not help). Readiness (/readyz) is for load balancers and
# depends_on: docker-compose.yml checks that one.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/livez', timeout=4).status != 200)"]

# Exec form: gaple (uvicorn) is PID 1 and gets docker's SIGTERM itself.
CMD ["gaple", "serve", "--host", "0.0.0.0", "--port", "8000"]
