"""The operator packaging, checked without a Docker engine: docker-compose.yml, deploy/nginx.conf
and the Dockerfile are parsed and held against the settings the app really reads."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml  # PyYAML: a dependency of uvicorn[standard]
from sqlalchemy.engine import make_url

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"

APP_PORT = 8000  # `gaple serve --port 8000` in the image
LB_PORT = 8080
APP_NODES = {"app1", "app2"}
SECRET = "s3cret-for-the-test-of-32-bytes-or-more"
ENV_PREFIX = str(Settings.model_config.get("env_prefix", ""))
SETTING_VARS = {f"{ENV_PREFIX}{name}".upper() for name in Settings.model_fields}


# --- docker compose's variable interpolation -------------------------------------------------

_VAR = re.compile(
    r"\$(?:\$|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}"
    r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))"
)


class MissingVariable(Exception):
    pass


def interpolate(text: str, env: dict[str, str]) -> str:
    """${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}, ${VAR:+alt}, $$."""

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group("name") or match.group("bare")
        op, arg = match.group("op"), match.group("arg") or ""
        value = env.get(name)
        unset_or_empty = not value
        missing = unset_or_empty if op and op.startswith(":") else value is None
        if op in (":-", "-"):
            return arg if missing else str(value)
        if op in (":?", "?"):
            if missing:
                raise MissingVariable(f"{name}: {arg}")
            return str(value)
        if op in (":+", "+"):
            return "" if missing else arg
        return value or ""

    return _VAR.sub(substitute, text)


def load_compose(env: dict[str, str] | None = None) -> dict[str, Any]:
    env = {"GAPLE_SECRET_KEY": SECRET} if env is None else env
    data: dict[str, Any] = yaml.safe_load(interpolate(COMPOSE.read_text(), env))
    return data


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return load_compose()


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = compose["services"]
    return result


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # the KEY=value list form
        env = dict(item.split("=", 1) for item in env)
    # `KEY: ${VAR:-}` interpolates to a YAML null, which compose passes as an empty value.
    return {key: "" if value is None else str(value) for key, value in env.items()}


def depends_on(service: dict[str, Any]) -> dict[str, str]:
    deps = service.get("depends_on") or {}
    if isinstance(deps, list):
        return dict.fromkeys(deps, "service_started")
    return {name: spec.get("condition", "service_started") for name, spec in deps.items()}


def healthcheck_command(service: dict[str, Any]) -> str:
    test = (service.get("healthcheck") or {}).get("test")
    if isinstance(test, list):
        return " ".join(test[1:]) if test and test[0] in ("CMD", "CMD-SHELL") else ""
    return str(test or "")


# --- compose: services, ports, health checks -------------------------------------------------


def test_services_exist(services: dict[str, Any]) -> None:
    assert {"postgres", "redis", "migrate", "nginx", *APP_NODES} <= set(services)


def test_app_nodes_and_migrate_run_the_project_image(services: dict[str, Any]) -> None:
    images = {services[name].get("image") for name in (*APP_NODES, "migrate")}
    assert len(images) == 1, f"one image for the nodes and the migration, not {images}"
    for name in (*APP_NODES, "migrate"):
        build = services[name].get("build")
        context = build if isinstance(build, str) else (build or {}).get("context")
        assert context in (".", "./"), f"{name} builds the repository's Dockerfile"
    # The nodes run the image's CMD (gaple serve); the migration runs `gaple migrate` only.
    for name in APP_NODES:
        assert "command" not in services[name]
    command = services["migrate"]["command"]
    assert (shlex.split(command) if isinstance(command, str) else command) == ["gaple", "migrate"]


def test_only_the_load_balancer_is_published(services: dict[str, Any]) -> None:
    assert services["nginx"]["ports"] == [f"{LB_PORT}:{LB_PORT}"]
    for name, service in services.items():
        if name != "nginx":
            assert not service.get("ports"), f"{name} must stay on the internal network"
    for name in APP_NODES:
        assert [str(port) for port in services[name].get("expose", [])] == [str(APP_PORT)]


def test_health_checks(services: dict[str, Any]) -> None:
    assert "pg_isready" in healthcheck_command(services["postgres"])
    redis_check = healthcheck_command(services["redis"])
    assert "redis-cli" in redis_check and "ping" in redis_check
    for name in APP_NODES:
        check = healthcheck_command(services[name])
        assert f"http://127.0.0.1:{APP_PORT}/readyz" in check and "urllib" in check
    assert f":{LB_PORT}/lb-health" in healthcheck_command(services["nginx"])
    # A one-shot job must not inherit the image's server health check.
    assert services["migrate"]["healthcheck"] == {"disable": True}
    for name in ("postgres", "redis", *APP_NODES, "nginx"):
        assert services[name].get("restart") == "unless-stopped", name
    assert services["migrate"].get("restart") == "no"


def test_start_order(services: dict[str, Any]) -> None:
    assert depends_on(services["migrate"]) == {"postgres": "service_healthy"}
    for name in APP_NODES:
        assert depends_on(services[name]) == {
            "migrate": "service_completed_successfully",
            "postgres": "service_healthy",
            "redis": "service_healthy",
        }
    assert depends_on(services["nginx"]) == dict.fromkeys(APP_NODES, "service_healthy")


def test_nodes_have_time_to_drain(services: dict[str, Any]) -> None:
    for name in APP_NODES:
        grace = str(services[name].get("stop_grace_period", "10s"))
        assert grace.endswith("s") and int(grace[:-1]) >= 20, name


# --- compose: the environment against app.settings -------------------------------------------


def test_every_gaple_variable_is_a_setting() -> None:
    named = set(re.findall(r"\bGAPLE_[A-Z0-9_]+\b", COMPOSE.read_text()))
    assert named, "the compose file configures the app through GAPLE_* variables"
    unknown = named - SETTING_VARS
    assert not unknown, f"not settings of app/settings.py: {sorted(unknown)}"


def test_the_secret_key_is_required() -> None:
    with pytest.raises(MissingVariable, match="GAPLE_SECRET_KEY"):
        load_compose(env={})
    with pytest.raises(MissingVariable):
        load_compose(env={"GAPLE_SECRET_KEY": ""})  # `:?` refuses an empty value too
    raw = yaml.safe_load(COMPOSE.read_text())
    for name in (*APP_NODES, "migrate"):
        service = raw["services"][name]
        assert environment(service)["GAPLE_SECRET_KEY"].startswith("${GAPLE_SECRET_KEY:?")


def test_app_environment_wiring(services: dict[str, Any]) -> None:
    postgres_env = environment(services["postgres"])
    for name in (*APP_NODES, "migrate"):
        env = environment(services[name])
        assert env["GAPLE_PRODUCTION"] == "true"
        assert env["GAPLE_SECRET_KEY"] == SECRET

        url = make_url(env["GAPLE_DATABASE_URL"])
        assert url.drivername == "postgresql+asyncpg"
        assert url.host == "postgres" and (url.port or 5432) == 5432
        assert url.username == postgres_env["POSTGRES_USER"]
        assert url.password == postgres_env["POSTGRES_PASSWORD"]
        assert url.database == postgres_env["POSTGRES_DB"]

        redis = urlsplit(env["GAPLE_REDIS_URL"])
        assert redis.scheme == "redis" and redis.hostname == "redis"
        assert (redis.port or 6379) == 6379

    node_env = environment(services["app1"])
    assert all(environment(services[name]) == node_env for name in APP_NODES)
    # Behind nginx the nodes must trust its X-Forwarded-* headers (uvicorn's own variable).
    assert node_env["FORWARDED_ALLOW_IPS"] == "*"


def test_the_app_environment_makes_valid_production_settings(
    services: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    for name in list(os.environ):
        if name.startswith(ENV_PREFIX):
            monkeypatch.delenv(name)
    for key, value in environment(services["app1"]).items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    assert settings.production and not settings.migrate_on_start  # `migrate` does it
    assert settings.secret == SECRET
    assert settings.redis_url == "redis://redis:6379/0"
    public = f"http://localhost:{LB_PORT}"
    assert settings.public_url == public
    assert public in settings.allowed_origins  # the browser's origin behind the load balancer


def test_an_operator_can_override_origins_and_public_url() -> None:
    env = {
        "GAPLE_SECRET_KEY": SECRET,
        "GAPLE_PUBLIC_URL": "https://gaple.example",
        "GAPLE_ALLOWED_ORIGINS": "https://gaple.example",
        "POSTGRES_PASSWORD": "pw",
    }
    compose = load_compose(env)
    app_env = environment(compose["services"]["app2"])
    assert app_env["GAPLE_PUBLIC_URL"] == "https://gaple.example"
    assert app_env["GAPLE_ALLOWED_ORIGINS"] == "https://gaple.example"
    assert make_url(app_env["GAPLE_DATABASE_URL"]).password == "pw"
    assert environment(compose["services"]["postgres"])["POSTGRES_PASSWORD"] == "pw"


# --- nginx ------------------------------------------------------------------------------------


@dataclass
class Block:
    name: str
    args: list[str]
    children: list[Block] = field(default_factory=list)
    parent: Block | None = None

    def directives(self, name: str) -> list[Block]:
        return [child for child in self.children if child.name == name]

    def effective(self, name: str) -> list[Block]:
        """nginx inheritance: a block's own directives of this name, else its parent's."""
        block: Block | None = self
        while block is not None:
            found = block.directives(name)
            if found:
                return found
            block = block.parent
        return []


def parse_nginx(text: str) -> Block:
    tokens = re.findall(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'|#[^\n]*|[{};]|[^\s{};]+", text)
    root = Block("", [])
    stack, words = [root], []
    for token in tokens:
        if token.startswith("#"):
            continue
        if token in (";", "{"):
            block = Block(words[0], words[1:], parent=stack[-1])
            stack[-1].children.append(block)
            if token == "{":
                stack.append(block)
            words = []
        elif token == "}":
            assert not words, f"unterminated directive {words}"
            stack.pop()
        else:
            words.append(token[1:-1] if token[0] in "\"'" else token)
    assert len(stack) == 1 and not words, "unbalanced braces in nginx.conf"
    return root


@pytest.fixture(scope="module")
def nginx() -> Block:
    return parse_nginx(NGINX_CONF.read_text())


def _server(nginx: Block) -> Block:
    (http,) = nginx.directives("http")
    (server,) = http.directives("server")
    return server


def _location(server: Block, path: str) -> Block:
    """The location nginx picks for ``path``: exact match, else the longest prefix."""
    exact = [loc for loc in server.directives("location") if loc.args == ["=", path]]
    if exact:
        return exact[0]
    prefixes = [
        loc
        for loc in server.directives("location")
        if len(loc.args) == 1 and path.startswith(loc.args[0])
    ]
    return max(prefixes, key=lambda loc: len(loc.args[0]))


def _seconds(value: str) -> int:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    return int(value[:-1]) * units[value[-1]] if value[-1] in units else int(value)


def test_compose_mounts_the_nginx_config_read_only(services: dict[str, Any]) -> None:
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in services["nginx"]["volumes"]


def _upstream(nginx: Block, location: Block) -> Block:
    """The upstream block a location proxies to."""
    (http,) = nginx.directives("http")
    (proxy_pass,) = location.effective("proxy_pass")
    target = proxy_pass.args[0].removeprefix("http://")
    (upstream,) = [up for up in http.directives("upstream") if up.args == [target]]
    return upstream


def test_every_upstream_lists_every_app_node(nginx: Block, services: dict[str, Any]) -> None:
    (http,) = nginx.directives("http")
    upstreams = http.directives("upstream")
    assert len(upstreams) == 2  # any node, and a room's node
    assert {name for name in services if name.startswith("app")} == APP_NODES
    for upstream in upstreams:
        servers = {block.args[0] for block in upstream.directives("server")}
        assert servers == {f"{name}:{APP_PORT}" for name in APP_NODES}
        # `resolve` (re-resolving a restarted node) needs a resolver and a shared-memory zone.
        if any("resolve" in block.args for block in upstream.directives("server")):
            assert http.directives("resolver") and upstream.directives("zone")


def _room_code(nginx: Block, uri: str) -> str:
    """What deploy/nginx.conf's map makes of a path: the key that picks a room's node."""
    (http,) = nginx.directives("http")
    (mapping,) = [m for m in http.directives("map") if m.args == ["$uri", "$room_code"]]
    default = ""
    for entry in mapping.children:
        if entry.name == "default":
            default = entry.args[0]
        elif entry.name.startswith("~"):
            found = re.match(entry.name[1:].replace("(?<", "(?P<"), uri)
            if found:
                return found.expand(re.sub(r"\$(\w+)", r"\\g<\1>", entry.args[0]))
    return default


def test_a_rooms_sockets_and_calls_share_one_node_and_the_rest_go_to_any(nginx: Block) -> None:
    """A room's sockets and REST calls to the node its code hashes to (the first of them to need
    the table opens it there, so its moves are not relayed through Redis); the rest by load."""
    server = _server(nginx)
    room_paths = ["/ws/rooms/ABC123", "/api/rooms/ABC123", "/api/rooms/ABC123/start"]
    for path in room_paths:
        table = _upstream(nginx, _location(server, path))
        assert [d.args for d in table.directives("hash")] == [["$room_code", "consistent"]]
        assert _room_code(nginx, path) == "ABC123"
    assert _room_code(nginx, "/ws/rooms/XYZ789") == "XYZ789"
    for path in ("/ws/me", "/ws/tournaments/7", "/api/rooms", "/api/quickplay", "/"):
        anywhere = _upstream(nginx, _location(server, path))
        assert anywhere.directives("least_conn") and not anywhere.directives("hash")
        assert _room_code(nginx, path) == ""


def test_listens_on_the_published_port(nginx: Block) -> None:
    assert [block.args for block in _server(nginx).directives("listen")] == [[str(LB_PORT)]]


@pytest.mark.parametrize("path", ["/ws/rooms/ABC123", "/api/rooms", "/"])
def test_requests_are_forwarded_with_upgrade_and_forwarded_headers(nginx: Block, path: str) -> None:
    server = _server(nginx)
    location = _location(server, path)
    (http,) = nginx.directives("http")
    assert _upstream(nginx, location) in http.directives("upstream")
    assert location.effective("proxy_http_version")[0].args == ["1.1"]
    headers = {
        block.args[0].lower(): block.args[1] for block in location.effective("proxy_set_header")
    }
    assert headers["upgrade"] == "$http_upgrade"
    connection = headers["connection"]
    if connection.startswith("$"):
        (mapping,) = [m for m in http.directives("map") if m.args[1] == connection]
        assert mapping.args[0] == "$http_upgrade"
        values = {block.name: block.args for block in mapping.children}
        assert values["default"] == ["upgrade"]
    else:
        assert connection.lower() == "upgrade"
    assert headers["host"] in ("$host", "$http_host")
    # The edge overwrites X-Forwarded-For: appending would let a client pick the address the
    # nodes (FORWARDED_ALLOW_IPS="*") believe.
    assert headers["x-forwarded-for"] == "$remote_addr"
    assert headers["x-forwarded-proto"] == "$scheme"


@pytest.mark.parametrize("path", ["/ws/rooms/ABC123", "/ws/me", "/ws/tournaments/7"])
def test_websockets_may_stay_quiet_for_long(nginx: Block, path: str) -> None:
    location = _location(_server(nginx), path)
    assert location.args[0].startswith("/ws/")
    read_timeout = location.effective("proxy_read_timeout")
    assert read_timeout and _seconds(read_timeout[0].args[0]) >= 600
    assert [d.args for d in location.effective("proxy_buffering")] == [["off"]]


def test_metrics_and_probes_are_not_served_through_the_load_balancer(nginx: Block) -> None:
    for path in ("/metrics", "/livez", "/readyz"):
        location = _location(_server(nginx), path)
        assert location.args == ["=", path]
        assert not location.directives("proxy_pass")


@pytest.mark.parametrize("path", ["/ws/rooms/ABC123", "/ws/me"])
def test_a_draining_node_s_503_handshake_is_retried_elsewhere(nginx: Block, path: str) -> None:
    retry = _location(_server(nginx), path).effective("proxy_next_upstream")
    assert retry and "http_503" in retry[0].args


# --- Dockerfile -------------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    result = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            result.append((keyword.upper(), rest.strip()))
    return result


def _instructions(keyword: str) -> list[str]:
    return [rest for kw, rest in dockerfile_instructions() if kw == keyword]


def test_dockerfile_is_multi_stage_on_slim_python_311() -> None:
    stages = _instructions("FROM")
    assert len(stages) >= 2
    args = dict(arg.split("=", 1) for arg in _instructions("ARG") if "=" in arg)
    for stage in stages:
        image = stage.split()[0].replace("${PYTHON_VERSION}", args.get("PYTHON_VERSION", ""))
        assert re.fullmatch(r"python:3\.11[.\d]*-slim(-\w+)?", image), image
    # The runtime stage takes the build stage's wheels, not its build tools.
    assert "from=build" in " ".join(_instructions("RUN") + _instructions("COPY"))


def test_dockerfile_runs_as_a_non_root_user() -> None:
    users = _instructions("USER")
    assert users, "no USER: the server would run as root"
    final_user = users[-1].split(":")[0]
    assert final_user not in ("root", "0")
    # ... set in the final stage, after its last RUN (installing needs root, serving does not).
    keywords = [kw for kw, _ in dockerfile_instructions()]
    last = {kw: len(keywords) - 1 - keywords[::-1].index(kw) for kw in ("USER", "RUN", "FROM")}
    assert last["USER"] > last["RUN"] > last["FROM"]


def test_dockerfile_health_check_and_command() -> None:
    (healthcheck,) = _instructions("HEALTHCHECK")
    assert f"http://127.0.0.1:{APP_PORT}/livez" in healthcheck and "urllib" in healthcheck
    assert "curl" not in healthcheck
    (cmd,) = _instructions("CMD")
    argv = json.loads(cmd)  # exec form: gaple is PID 1 and receives SIGTERM
    assert argv[:2] == ["gaple", "serve"]
    assert argv[argv.index("--host") + 1] == "0.0.0.0"
    assert argv[argv.index("--port") + 1] == str(APP_PORT)
    assert _instructions("EXPOSE") == [str(APP_PORT)]


def test_dockerfile_production_settings_without_a_baked_secret() -> None:
    env = " ".join(_instructions("ENV"))
    assert "GAPLE_PRODUCTION=true" in env
    assert "GAPLE_SECRET_KEY" not in env
    named = set(re.findall(r"\bGAPLE_[A-Z0-9_]+\b", DOCKERFILE.read_text()))
    # Besides the settings: what setup.py reads while the wheel is built.
    build = set(re.findall(r'environ\.get\("(GAPLE_[A-Z0-9_]+)"', (ROOT / "setup.py").read_text()))
    assert build == {"GAPLE_COMPILE"}
    assert named <= SETTING_VARS | build, sorted(named - SETTING_VARS - build)


def test_dockerfile_installs_the_project_without_dev_extras() -> None:
    runs = " ".join(_instructions("RUN"))
    assert "pip wheel" in runs and "gaple-online" in runs
    # The project's wheel carries the compiled engine (setup.py; docs/ENGINE.md).
    assert "GAPLE_COMPILE=1 pip wheel --no-deps --no-build-isolation" in runs
    assert "[dev]" not in DOCKERFILE.read_text()


def _locked(path: Path) -> dict[str, str]:
    """name -> the text of its entry (version pin, hashes, 'via' comments)."""
    found: dict[str, str] = {}
    name = None
    for line in path.read_text().splitlines():
        match = re.match(r"([A-Za-z0-9_.-]+)==\S+", line)
        if match:
            name = re.sub(r"[-_.]+", "-", match.group(1).lower())
            found[name] = line
        elif name is not None and line.startswith(" "):
            found[name] += "\n" + line
    return found


def _names(requirements: list[str]) -> set[str]:
    return {
        re.sub(r"[-_.]+", "-", re.split(r"[\[<>=~! ]", r, maxsplit=1)[0].lower())
        for r in requirements
    }


def test_the_locks_pin_every_dependency_with_hashes() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime, dev = _locked(ROOT / "requirements.lock"), _locked(ROOT / "requirements-dev.lock")
    assert _names(project["dependencies"]) <= set(runtime)
    assert _names(project["dependencies"] + project["optional-dependencies"]["dev"]) <= set(dev)
    for entry in [*runtime.values(), *dev.values()]:
        assert "--hash=sha256:" in entry, entry.splitlines()[0]
    assert "-e " not in (ROOT / "requirements.lock").read_text()
    # The image's build tools: hashed, and at the dev lock's versions (its constraint file).
    build = _locked(ROOT / "requirements-build.lock")
    assert {"mypy", "setuptools"} <= set(build)
    for name, entry in build.items():
        assert "--hash=sha256:" in entry, entry.splitlines()[0]
        assert entry.splitlines()[0].split()[0] == dev[name].splitlines()[0].split()[0], name


def test_the_image_and_ci_install_from_the_locks() -> None:
    runs = " ".join(_instructions("RUN"))
    assert "--require-hashes -r requirements.lock" in runs
    assert "--require-hashes -r requirements-build.lock" in runs
    assert "--require-hashes -r /tmp/requirements.lock" in runs
    assert "--require-hashes -r requirements-dev.lock" in (ROOT / ".ci" / "run").read_text()


def test_the_build_context_has_what_the_dockerfile_copies() -> None:
    ignored = {
        line.strip().rstrip("/")
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".git", ".venv", "var"} <= ignored
    assert ".env" in ignored  # the compose .env holds the secret key
    copied = [rest.split()[:-1] for rest in _instructions("COPY") if "--from" not in rest]
    sources = {source.rstrip("/") for sources in copied for source in sources}
    # The wheel is built from these: app/ holds the migrations; setup.py copies static/ in.
    assert {"pyproject.toml", "setup.py", "app", "engine", "static"} <= sources
    for source in sources:
        assert (ROOT / source).exists(), source
        assert source not in ignored, f"{source} is copied but .dockerignore leaves it out"
