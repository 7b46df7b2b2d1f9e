"""Real git servers on 127.0.0.1 for tests (a pytest plugin: `pytest_plugins = ["gitservers"]`).

`git_remotes` (function scope) hands out URLs of new empty bare repositories, served by
servers that start on first use and live for the whole session:

    git_remotes.path("r")        /abs/path/to/<ns>/r.git
    git_remotes.file_url("r")    file:///abs/path/to/<ns>/r.git
    git_remotes.daemon("r")      git://127.0.0.1:PORT/<ns>/r.git          (git daemon)
    git_remotes.http("r")        http://127.0.0.1:PORT/git/<ns>/r.git     (nginx + fcgiwrap
    git_remotes.http("r", auth=True)                                        + git-http-backend)
    git_remotes.ssh("r")         ssh://gitmem-test-host/abs/path/to/<ns>/r.git   (sshd)
    git_remotes.scp("r")         gitmem-test-host:/abs/path/to/<ns>/r.git

`<ns>` is a directory per test, so names never clash between tests. Within one test a name
is one repository: `git_remotes.ssh("r")` and `git_remotes.http("r")` reach the same repo.

Credentials work as they do for a user of git: the authenticated HTTP server wants basic
auth (`git_remotes.http_user` / `.http_password`; `store_http_credentials()` writes them to
a `store` credential helper in the test's HOME), and the ssh server is reached through a
`Host gitmem-test-host` entry in the test's `~/.ssh/config`. OpenSSH reads its config from
the passwd entry's home, never from $HOME, so the test's global git config (the isolated
$GIT_CONFIG_GLOBAL) also gets `core.sshCommand = ssh -F $HOME/.ssh/config`, which is what a
user whose ssh config is not in the default place would write.

A server whose program is missing fails the test under CI (which installs them) and is
reported as skipped elsewhere, with the packages to install.
"""

from __future__ import annotations

import getpass
import itertools
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SSH_HOST_ALIAS = "gitmem-test-host"
HTTP_USER = "gitmem"
HTTP_PASSWORD = "s3cret-pass"
GIT_CORE = Path("/usr/lib/git-core")
_START_TIMEOUT = 10.0
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_ns_counter = itertools.count(1)


# ---------------------------------------------------------------- helpers


def _need(program: str, *also: str) -> str:
    """The absolute path of `program` (searched on PATH and in `also`), or fail the test."""
    found = shutil.which(program)
    if found is None:
        for d in also:
            cand = Path(d) / program
            if cand.is_file() and os.access(cand, os.X_OK):
                found = str(cand)
                break
    if found is None:
        message = (f"gitservers: `{program}` is not installed (needed for a git server fixture; "
                   f"`apt-get install nginx fcgiwrap openssh-server`, as .ci/run does)")
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)  # CI installs them: missing is a failure there
        # A fresh machine without the servers: say so (reported as skipped, never as passed).
        pytest.skip(message)
    return found


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env(root: Path) -> dict[str, str]:
    """A fixed environment for server processes: they start inside some test whose HOME and
    git config are that test's own, and must not keep using them for the session."""
    home = root / "server-home"
    home.mkdir(exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"),
        "HOME": str(home),
        "LANG": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
    }


def _tail(path: Path, n: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


@dataclass
class _Proc:
    name: str
    popen: subprocess.Popen
    log: Path

    def stop(self) -> None:
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(timeout=5)
        # Children left in the group (fcgiwrap workers, sshd sessions) go too.
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the pytest process dies, even by SIGKILL."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no libc prctl: the fixtures still stop it
        pass


def _spawn(name: str, argv: list[str], log: Path, env: dict[str, str], cwd: Path) -> _Proc:
    fh = open(log, "ab")
    try:
        popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT,
                                 env=env, cwd=cwd, start_new_session=True,
                                 preexec_fn=_die_with_parent if sys.platform == "linux" else None)
    finally:
        fh.close()
    return _Proc(name, popen, log)


def _wait_port(proc: _Proc, port: int, banner: bytes | None = None) -> None:
    deadline = time.monotonic() + _START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.popen.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                if banner is None or s.recv(64).startswith(banner):
                    return
        except OSError:
            pass
        time.sleep(0.02)
    proc.stop()
    pytest.fail(f"gitservers: {proc.name} did not start listening on 127.0.0.1:{port} "
                f"(exit={proc.popen.poll()}); log {proc.log}:\n{_tail(proc.log)}", pytrace=False)


def _wait_path(proc: _Proc, path: Path) -> None:
    deadline = time.monotonic() + _START_TIMEOUT
    while time.monotonic() < deadline and proc.popen.poll() is None:
        if path.exists():
            return
        time.sleep(0.01)
    proc.stop()
    pytest.fail(f"gitservers: {proc.name} did not create {path} (exit={proc.popen.poll()}); "
                f"log {proc.log}:\n{_tail(proc.log)}", pytrace=False)


def _run(argv: list[str], **kw) -> None:
    res = subprocess.run(argv, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        pytest.fail(f"gitservers: {' '.join(argv)} failed: {res.stderr.strip()}", pytrace=False)


# ---------------------------------------------------------------- session: servers


@dataclass
class GitServerRoot:
    root: Path        # scratch directory of the servers (configs, logs, keys)
    repos: Path       # every bare repo lives below this; all servers serve it
    env: dict[str, str]
    startup_seconds: dict[str, float] = field(default_factory=dict)


@dataclass
class GitDaemonServer:
    port: int
    base_path: Path


@dataclass
class GitHttpServer:
    port: int           # no authentication
    auth_port: int      # HTTP basic auth (user/password below)
    user: str
    password: str


@dataclass
class GitSshServer:
    port: int
    user: str
    identity_file: Path   # the client's private key (authorized on the server)
    host_alias: str = SSH_HOST_ALIAS


@pytest.fixture(scope="session")
def git_server_root(tmp_path_factory) -> GitServerRoot:
    root = tmp_path_factory.mktemp("gitservers")
    repos = root / "repos"
    repos.mkdir()
    return GitServerRoot(root=root, repos=repos, env=_server_env(root))


@pytest.fixture(scope="session")
def git_daemon_server(git_server_root) -> GitDaemonServer:
    git = _need("git")
    _need("git-daemon", str(GIT_CORE))
    t0 = time.monotonic()
    base = git_server_root.repos
    port = _free_port()
    proc = _spawn("git daemon", [
        git, "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack", "--informative-errors",
        f"--base-path={base}", "--listen=127.0.0.1", f"--port={port}", "--log-destination=stderr",
    ], git_server_root.root / "git-daemon.log", git_server_root.env, git_server_root.root)
    _wait_port(proc, port)
    git_server_root.startup_seconds["daemon"] = time.monotonic() - t0
    yield GitDaemonServer(port=port, base_path=base)
    proc.stop()


_NGINX_CONF = """\
{user}
daemon off;
master_process on;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/nginx-error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log {d}/nginx-access.log;
    client_body_temp_path {d}/tmp/client_body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
    client_max_body_size 0;
    server {{
        listen 127.0.0.1:{port};
        location ~ ^/git(/.*)$ {{
{fastcgi}
            fastcgi_param REMOTE_USER anonymous;
        }}
    }}
    server {{
        listen 127.0.0.1:{auth_port};
        location ~ ^/git(/.*)$ {{
            auth_basic "gitmem test";
            auth_basic_user_file {d}/htpasswd;
{fastcgi}
            fastcgi_param REMOTE_USER $remote_user;
        }}
    }}
}}
"""

_FASTCGI = """\
            fastcgi_pass unix:{sock};
            fastcgi_read_timeout 120s;
            fastcgi_param SCRIPT_FILENAME {backend};
            fastcgi_param GIT_PROJECT_ROOT {repos};
            fastcgi_param GIT_HTTP_EXPORT_ALL 1;
            fastcgi_param PATH_INFO $1;
            fastcgi_param QUERY_STRING $query_string;
            fastcgi_param REQUEST_METHOD $request_method;
            fastcgi_param CONTENT_TYPE $content_type;
            fastcgi_param CONTENT_LENGTH $content_length;
            fastcgi_param SERVER_PROTOCOL $server_protocol;
            fastcgi_param REMOTE_ADDR $remote_addr;
            fastcgi_param HOME {home};
            fastcgi_param GIT_CONFIG_NOSYSTEM 1;
            fastcgi_param GIT_CONFIG_GLOBAL {home}/.gitconfig;"""


@pytest.fixture(scope="session")
def git_http_server(git_server_root) -> GitHttpServer:
    nginx = _need("nginx", "/usr/sbin")
    fcgiwrap = _need("fcgiwrap", "/usr/sbin")
    backend = GIT_CORE / "git-http-backend"
    if not backend.is_file():
        pytest.fail(f"gitservers: {backend} is missing", pytrace=False)
    t0 = time.monotonic()
    d = git_server_root.root / "http"
    (d / "tmp").mkdir(parents=True)
    # A unix socket path must stay under ~108 bytes; pytest's basetemp can be deep.
    sock_dir = d if len(str(d / "fcgi.sock")) < 100 else Path(tempfile.mkdtemp(prefix="gm-fcgi-"))
    sock = sock_dir / "fcgi.sock"
    (d / "htpasswd").write_text(f"{HTTP_USER}:{{PLAIN}}{HTTP_PASSWORD}\n")
    port, auth_port = _free_port(), _free_port()
    while auth_port == port:
        auth_port = _free_port()
    fastcgi = _FASTCGI.format(sock=sock, backend=backend, repos=git_server_root.repos,
                              home=git_server_root.env["HOME"])
    # As root, nginx workers would drop to `nobody`, who cannot reach the socket.
    user = "user root root;" if os.geteuid() == 0 else ""
    conf = d / "nginx.conf"
    conf.write_text(_NGINX_CONF.format(user=user, d=d, port=port, auth_port=auth_port, fastcgi=fastcgi))

    # fcgiwrap's master does not take its preforked workers with it when it gets SIGTERM;
    # a shell in front kills the whole group when pytest dies.
    group_kill = 'trap "trap - TERM; kill 0" TERM; "$0" "$@" & wait'
    fcgi = _spawn("fcgiwrap", ["/bin/sh", "-c", group_kill, fcgiwrap, "-c", "4", "-f", "-s", f"unix:{sock}"],
                  d / "fcgiwrap.log", git_server_root.env, d)
    _wait_path(fcgi, sock)
    web = _spawn("nginx", [nginx, "-p", str(d), "-c", str(conf), "-e", str(d / "nginx-error.log")],
                 d / "nginx.log", git_server_root.env, d)
    try:
        _wait_port(web, port)
        _wait_port(web, auth_port)
    except BaseException:
        fcgi.stop()
        raise
    git_server_root.startup_seconds["http"] = time.monotonic() - t0
    yield GitHttpServer(port=port, auth_port=auth_port, user=HTTP_USER, password=HTTP_PASSWORD)
    web.stop()
    fcgi.stop()
    if sock_dir != d:
        shutil.rmtree(sock_dir, ignore_errors=True)


# The post-quantum default key exchange costs ~0.13 s a connection; SHLVL=1 keeps
# the non-interactive bash that sshd runs the git command with from sourcing the server
# user's ~/.bashrc (bash does that when it sees SSH_CLIENT and SHLVL < 2).
_SSHD_CONF = """\
ListenAddress 127.0.0.1
Port {port}
HostKey {d}/ssh_host_ed25519_key
PidFile {d}/sshd.pid
AuthorizedKeysFile {d}/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowUsers {user}
AcceptEnv GIT_PROTOCOL
KexAlgorithms curve25519-sha256,curve25519-sha256@libssh.org
SetEnv GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL={home}/.gitconfig SHLVL=1
PrintMotd no
PrintLastLog no
LogLevel ERROR
"""


@pytest.fixture(scope="session")
def git_ssh_server(git_server_root) -> GitSshServer:
    sshd = _need("sshd", "/usr/sbin")
    keygen = _need("ssh-keygen")
    _need("ssh")
    t0 = time.monotonic()
    d = git_server_root.root / "ssh"
    d.mkdir()
    user = getpass.getuser()
    _run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "gitmem-test-host", "-f", str(d / "ssh_host_ed25519_key")])
    _run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "gitmem-test-client", "-f", str(d / "id_ed25519")])
    (d / "authorized_keys").write_text((d / "id_ed25519.pub").read_text())
    (d / "authorized_keys").chmod(0o600)
    privsep = Path("/run/sshd")
    if os.geteuid() == 0 and not privsep.is_dir():
        privsep.mkdir(mode=0o755, parents=True)
    port = _free_port()
    conf = d / "sshd_config"
    conf.write_text(_SSHD_CONF.format(port=port, d=d, user=user, home=git_server_root.env["HOME"]))
    _run([sshd, "-t", "-f", str(conf)])
    proc = _spawn("sshd", [sshd, "-D", "-e", "-f", str(conf)], d / "sshd.log", git_server_root.env, d)
    _wait_port(proc, port, banner=b"SSH-")
    git_server_root.startup_seconds["ssh"] = time.monotonic() - t0
    yield GitSshServer(port=port, user=user, identity_file=d / "id_ed25519")
    proc.stop()


# ---------------------------------------------------------------- function: repos


class GitRemotes:
    """Factory of bare repositories and their URLs (see the module docstring)."""

    http_user = HTTP_USER
    http_password = HTTP_PASSWORD
    ssh_host = SSH_HOST_ALIAS

    def __init__(self, request, root: GitServerRoot):
        self._request = request
        self._root = root
        self.dir = root.repos / f"t{next(_ns_counter):04d}"   # this test's namespace
        self.dir.mkdir()
        self.ssh_config: Path | None = None   # the ~/.ssh/config written on the first ssh()/scp()

    # ---- repositories

    def _repo(self, name: str, deny_rewind: bool) -> Path:
        if name.endswith(".git"):
            name = name[:-4]
        if not _NAME_RE.match(name):
            raise ValueError(f"bad repository name {name!r}")
        repo = self.dir / f"{name}.git"
        if not repo.exists():
            _run(["git", "init", "-q", "--bare", str(repo)])
            _run(["git", "--git-dir", str(repo), "config", "receive.denyNonFastForwards", "false"])
        if deny_rewind:
            _run(["git", "--git-dir", str(repo), "config", "receive.denyNonFastForwards", "true"])
            _run(["git", "--git-dir", str(repo), "config", "receive.denyDeletes", "true"])
        return repo

    def bare(self, name: str) -> Path:
        """The bare repository `name` as a Path (created if needed)."""
        return self._repo(name, False)

    def path(self, name: str, *, deny_rewind: bool = False) -> str:
        return str(self._repo(name, deny_rewind))

    def file_url(self, name: str, *, deny_rewind: bool = False) -> str:
        return self._repo(name, deny_rewind).as_uri()

    def daemon(self, name: str, *, deny_rewind: bool = False) -> str:
        server: GitDaemonServer = self._request.getfixturevalue("git_daemon_server")
        rel = self._repo(name, deny_rewind).relative_to(server.base_path)
        return f"git://127.0.0.1:{server.port}/{rel.as_posix()}"

    def http(self, name: str, auth: bool = False, *, deny_rewind: bool = False) -> str:
        server: GitHttpServer = self._request.getfixturevalue("git_http_server")
        rel = self._repo(name, deny_rewind).relative_to(self._root.repos)
        port = server.auth_port if auth else server.port
        return f"http://127.0.0.1:{port}/git/{rel.as_posix()}"

    def ssh(self, name: str, *, deny_rewind: bool = False) -> str:
        self._setup_ssh_client()
        return f"ssh://{SSH_HOST_ALIAS}{self._repo(name, deny_rewind)}"

    def scp(self, name: str, *, deny_rewind: bool = False) -> str:
        self._setup_ssh_client()
        return f"{SSH_HOST_ALIAS}:{self._repo(name, deny_rewind)}"

    # ---- client side credentials, in the current test's HOME

    @property
    def http_auth_port(self) -> int:
        return self._request.getfixturevalue("git_http_server").auth_port

    def store_http_credentials(self, user: str | None = None, password: str | None = None) -> Path:
        """Configure `credential.helper store --file=~/.git-credentials` in the test's global
        git config holding the auth server's credentials (or the ones given); returns the file."""
        server: GitHttpServer = self._request.getfixturevalue("git_http_server")
        home = Path(os.environ["HOME"])
        creds = home / ".git-credentials"
        creds.write_text(f"http://{user or server.user}:{password or server.password}"
                         f"@127.0.0.1:{server.auth_port}\n")
        creds.chmod(0o600)
        _run(["git", "config", "--global", "credential.helper", f"store --file={shlex.quote(str(creds))}"])
        return creds

    def _setup_ssh_client(self) -> None:
        server: GitSshServer = self._request.getfixturevalue("git_ssh_server")
        if self.ssh_config is not None:
            return
        home = Path(os.environ["HOME"])
        ssh_dir = home / ".ssh"
        ssh_dir.mkdir(mode=0o700, exist_ok=True)
        config = ssh_dir / "config"
        block = (
            f"Host {SSH_HOST_ALIAS}\n"
            f"    HostName 127.0.0.1\n"
            f"    Port {server.port}\n"
            f"    User {server.user}\n"
            f"    IdentityFile {server.identity_file}\n"
            f"    IdentitiesOnly yes\n"
            f"    StrictHostKeyChecking no\n"
            f"    UserKnownHostsFile /dev/null\n"
            f"    LogLevel ERROR\n"
            f"    BatchMode yes\n"
        )
        old = config.read_text() if config.exists() else ""
        if f"Host {SSH_HOST_ALIAS}\n" not in old:
            config.write_text(old + ("\n" if old and not old.endswith("\n") else "") + block)
        config.chmod(0o600)
        # ssh reads ~/.ssh/config from the passwd entry's home, not $HOME.
        _run(["git", "config", "--global", "core.sshCommand", f"ssh -F {shlex.quote(str(config))}"])
        self.ssh_config = config


@pytest.fixture
def git_remotes(request, git_server_root) -> GitRemotes:
    return GitRemotes(request, git_server_root)
