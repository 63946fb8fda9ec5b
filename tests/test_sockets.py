"""Where the daemon's socket is, the checks on its folder, and the hello line."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from mesh import __version__
from mesh.sockets import (
    SUN_PATH_BYTES_MAX,
    Hello,
    SocketDirError,
    check_length,
    lock_path,
    peer_uid,
    private_dir,
    read_hello,
    socket_dir,
    socket_path,
)
from mesh.workspace import workspace_id


def test_the_socket_folder_is_chosen_by_mesh_socket_path_then_xdg_runtime_dir_then_home(tmp_path: Path) -> None:
    ws = tmp_path
    name = f"meshd-{workspace_id(ws)}.sock"
    assert socket_path(ws, {"HOME": "/h"}) == Path("/h/.cache/mesh") / name
    assert socket_path(ws, {"HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/7"}) == Path("/run/user/7/mesh") / name
    both = {"HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/7", "MESH_SOCKET_PATH": "/s/dir"}
    assert socket_path(ws, both) == Path("/s/dir") / name
    one_socket = {**both, "MESH_SOCKET_PATH": "/s/only.sock"}
    assert socket_path(ws, one_socket) == Path("/s/only.sock")
    assert socket_dir(one_socket) == Path("/s")
    assert lock_path(Path("/s/meshd-ab.sock")) == Path("/s/meshd-ab.lock")


def test_the_workspace_id_is_16_hex_digits_of_the_canonical_path_and_the_version(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    via_dots = tmp_path / "a" / ".." / "a"
    assert workspace_id(via_dots) == workspace_id(tmp_path / "a")
    assert len(workspace_id(tmp_path)) == 16 and int(workspace_id(tmp_path), 16) >= 0
    assert workspace_id(tmp_path / "a") != workspace_id(tmp_path)


def test_private_dir_creates_0700_and_refuses_folders_others_can_write(tmp_path: Path) -> None:
    folder = private_dir(tmp_path / "new" / "mesh")
    assert folder.stat().st_mode & 0o777 == 0o700
    folder.chmod(0o777)
    with pytest.raises(SocketDirError, match="chmod 700"):
        private_dir(folder)
    folder.chmod(0o755)  # readable by others is fine: the socket itself is 0600
    assert private_dir(folder) == folder


def test_private_dir_refuses_a_symlink_a_file_and_a_folder_of_another_user(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(SocketDirError, match="not a folder"):
        private_dir(tmp_path / "link")
    (tmp_path / "file").write_text("")
    with pytest.raises(SocketDirError, match="cannot create|not a folder"):
        private_dir(tmp_path / "file")
    if os.geteuid() == 0:
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 65534, 65534)
        with pytest.raises(SocketDirError, match="belongs to uid 65534"):
            private_dir(theirs)


def test_a_socket_path_too_long_for_the_kernel_is_refused_with_a_remedy() -> None:
    check_length(Path("/" + "a" * (SUN_PATH_BYTES_MAX - 1)))
    with pytest.raises(SocketDirError, match="MESH_SOCKET_PATH"):
        check_length(Path("/" + "a" * SUN_PATH_BYTES_MAX))


def test_hello_round_trips_and_strangers_are_told_apart() -> None:
    hello = Hello(__version__, 42, "/ws", "/cache/meshd.log", ("a.plugin",), {"sessions": 3})
    line = hello.encode()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert Hello.decode(line[:-1]) == hello
    for stranger in (b"SSH-2.0-OpenSSH", b'{"jsonrpc":"2.0"}', b"[1]", b'{"meshd":2,"version":"x"}'):
        with pytest.raises(ValueError, match="not a meshd hello"):
            Hello.decode(stranger)
    with pytest.raises(ValueError, match="without"):
        Hello.decode(b'{"meshd":1,"version":"1"}')


def test_read_hello_keeps_what_follows_and_reports_a_closed_or_endless_peer() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        hello = Hello("1", 1, "/ws", "/log")
        theirs.sendall(hello.encode()[:5])
        theirs.sendall(hello.encode()[5:] + b'{"id":1}\n')
        assert read_hello(ours) == (hello, b'{"id":1}\n')
        theirs.close()
        with pytest.raises(ConnectionError):
            read_hello(ours)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(b"x" * (70 * 1024))
        with pytest.raises(ValueError, match="64 KiB"):
            read_hello(ours)


def test_peer_uid_is_ours_on_a_socketpair() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert peer_uid(ours) in (os.getuid(), None)


def test_the_hello_says_whether_the_daemon_takes_descriptors_INV_PROXY_4() -> None:
    """Only a literal ``true`` counts: a daemon from before descriptors (no key), or anything else
    there, is served by copying bytes."""
    taking = Hello(__version__, 1, "/ws", "/log", (), {}, 1.0, fds=True)
    assert Hello.decode(taking.encode().strip()).fds is True
    assert Hello.decode(Hello(__version__, 1, "/ws", "/log").encode().strip()).fds is False
    odd = taking.encode().replace(b'"fds":true', b'"fds":"yes"')
    assert Hello.decode(odd.strip()).fds is False
