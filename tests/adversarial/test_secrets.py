"""Secret files are never indexed (issue 13 item 2): by name, suffix, folder, or what their first
bytes hold; a workspace opts back in with ``[index] include_secrets = true``.

The signatures are assembled at run time, so that this file is not itself a secret-looking one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import mesh.index.build._pool as pool
from mesh.index import Index, walk
from mesh.index.build._enumerate import check_paths, secret_name, secret_signature
from mesh.index.build._work import Task, process
from mesh.tools import parse_args
from mesh.tools._smart_search import Args, answer
from mesh.tools._view import View

MARK = "hunter2-canary"
BEGIN, END = "-----BEGIN ", "-----"
PEM = f"{BEGIN}RSA PRIVATE KEY{END}\nMIIEowIBAAKCAQEA{MARK}\n{BEGIN.replace('BEGIN', 'END')}RSA PRIVATE KEY{END}\n"
SERVICE_ACCOUNT = "service" + "_account"
AWS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"  # 40 characters, the documented example

#: The names that were indexed and searchable before the policy (issue 13 item 2), and a few more.
SECRET_FILES = [
    "secrets.yaml",
    "secrets.json",
    "service-account.json",
    ".git-credentials",
    ".pgpass",
    ".envrc",
    "prod.env",
    "id_rsa.bak",
    "kubeconfig",
    "terraform.tfstate",
    ".dockercfg",
    "AuthKey.p8",
    "private.asc",
    "client.key.txt",
    ".env",
    ".env.local",
    "deploy/db-password.txt",
    "k8s/secrets/db.yaml",
    "config/credentials.toml",
    "terraform.tfstate.backup",
    "certs/server.pem",
    "keys/deploy.ppk",
]
#: Folders of credentials, left out whole.
SECRET_FOLDERS = [".aws/credentials", ".ssh/config", ".docker/config.json", ".gnupg/pubring.kbx", ".kube/config"]
#: Code and docs about secrets are not secrets.
KEPT = [
    "app.py",
    "secret_store.go",
    "pkg/secrets/vault.go",
    "docs/SECRETS.md",
    "id_rsa.pub",
    "keys.go",
    "env.d.ts",
    "api_key.py",
]


def ask(view: View, **arguments: object) -> str:
    args, _ = parse_args(Args, arguments)
    return answer(args, view)


def make(root: Path, paths: list[str], text: str) -> None:
    for rel in paths:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_INV_SECRET_1_secret_names_suffixes_and_folders_are_never_indexed(tmp_path: Path) -> None:
    """INV-SECRET-1: every name issue 13 found indexed, and the folders of credentials, are left out by
    the walk and by a watcher's check alike; code and docs about secrets stay in."""
    make(tmp_path, SECRET_FILES + SECRET_FOLDERS, f"token = {MARK}\n")
    make(tmp_path, KEPT, "x = 1\n")
    result = walk(tmp_path)
    assert [entry.path for entry in result.files] == sorted(KEPT)
    reasons = {item.path: (item.reason, item.folder) for item in result.skipped}
    assert reasons == {
        **{path: ("may hold secrets", False) for path in SECRET_FILES},
        **{path.split("/")[0]: ("may hold secrets", True) for path in SECRET_FOLDERS},
    }
    (tmp_path / "notes.txt").symlink_to(".ssh/config")  # a link inside, to a secret: left out too
    (tmp_path / "config.yaml").symlink_to("k8s/secrets/db.yaml")
    assert {"notes.txt", "config.yaml"} <= {item.path for item in walk(tmp_path).skipped}
    checked = check_paths(tmp_path, SECRET_FILES + SECRET_FOLDERS + KEPT + ["notes.txt", "config.yaml"])
    assert [entry.path for entry in checked.files] == sorted(KEPT)
    assert all(secret_name(path) for path in SECRET_FILES + SECRET_FOLDERS)
    assert not any(secret_name(path) for path in KEPT)


def test_INV_SECRET_1_secret_content_is_recognised_in_the_first_bytes() -> None:
    """INV-SECRET-1: private keys and cloud credentials by their signatures, named without quoting them."""
    service_account = '{"type": "%s", "project_id": "p", "private_key_id": "1", "private_key": "x"}' % SERVICE_ACCOUNT
    found = {
        "pem": secret_signature(PEM.encode()),
        "openssh": secret_signature(f"{BEGIN}OPENSSH PRIVATE KEY{END}\nb3Bl\n".encode()),
        "pgp": secret_signature(f"{BEGIN}PGP PRIVATE KEY BLOCK{END}\n".encode()),
        "service account": secret_signature(service_account.encode()),
        "aws ini": secret_signature(f"[default]\naws_secret_access_key = {AWS_KEY}\n".encode()),
        "aws env": secret_signature(f"export AWS_SECRET_ACCESS_KEY={AWS_KEY}\n".encode()),
        "kubeconfig": secret_signature(b"users:\n- user:\n    client-key" + b"-data: LS0tLS1CRUdJTiBSU0Eg\n"),
        "docker": secret_signature(b'{"au' + b'ths": {"https://index.docker.io/v1/": {"auth": "dXNlcjpwYXNz"}}}'),
        "github": secret_signature(("gh" + "p_" + "A" * 36).encode()),
    }
    assert found == {
        "pem": "a private key",
        "openssh": "a private key",
        "pgp": "a private key",
        "service account": "a cloud service account key",
        "aws ini": "an AWS secret access key",
        "aws env": "an AWS secret access key",
        "kubeconfig": "a kubeconfig credential",
        "docker": "a registry credential",
        "github": "a GitHub token",
    }
    for harmless in (
        b"-----BEGIN CERTIFICATE-----\nMIIB\n",
        b"-----BEGIN PUBLIC KEY-----\nMIIB\n",
        b"See the docs: a key begins with -----BEGIN ... PRIVATE KEY-----\n",
        ('{"type": "%s"}' % SERVICE_ACCOUNT).encode(),  # no key in it
        b"aws_secret_access_key = <your key here>\n",
        b"const x = 1;\n" * 2000,
    ):
        assert secret_signature(harmless) is None, harmless


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("notes.md", f"# Deploy\n\n{PEM}"),
        ("config/app.json", f'{{"type": "{SERVICE_ACCOUNT}", "private_key": "' + PEM.replace("\n", "\\n") + '"}'),
        ("settings.ini", f"[prod]\naws_secret_access_key = {AWS_KEY}\nnote = {MARK}\n"),
    ],
)
def test_INV_SECRET_1_a_file_holding_a_key_is_left_out_whatever_its_name(
    tmp_path: Path, name: str, content: str
) -> None:
    """INV-SECRET-1, INV-SEARCH-1: the parse worker finds the key in the first bytes; the file is never
    searched or named, only counted; the index keeps nothing of it (no text, no row)."""
    root = tmp_path / "ws"
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(content + f"\n{MARK}\n")
    (root / "app.py").write_text("print('hello')\n")
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    with index.store.snapshot() as db:
        text = ask(View(db, index.root), query=MARK)
        assert db.execute("SELECT count(*) FROM files WHERE path = ?", (name,)).fetchone() == (0,)
        assert db.execute("SELECT reason FROM skipped WHERE path = ?", (name,)).fetchall() == [
            ("may hold secrets (content)",)
        ]
    assert "0 matches" in text and MARK not in text.replace(f"`{MARK}`", "") and name not in text
    assert "1 secret-looking file" in text
    index.close()


def test_INV_SECRET_1_an_unchanged_secret_file_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-SECRET-1, INV-INDEX-3: a file left out for its content is remembered by size and mtime."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "deploy.txt").write_text(PEM)
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    read: list[str] = []
    real = pool.process
    monkeypatch.setattr(pool, "process", lambda base, task: read.append(task.path) or real(base, task))
    summary = index.refresh()
    index.close()
    assert read == [] and summary.skipped == 1


def test_INV_SECRET_1_include_secrets_lets_them_in_and_taking_it_back_removes_them(tmp_path: Path) -> None:
    """INV-SECRET-1: `[index] include_secrets = true` opts back in (names and content); removing it
    removes every secret from the next index, even unchanged files."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "secrets.yaml").write_text(f"password: {MARK}\n")
    (root / "deploy.txt").write_text(PEM)
    (root / "mesh.toml").write_text("[index]\ninclude_secrets = true\n")
    index = Index(root, tmp_path / "cache", workers=1)
    index.refresh()
    with index.store.snapshot() as db:
        assert [p for (p,) in db.execute("SELECT path FROM files ORDER BY path")] == [
            "deploy.txt",
            "mesh.toml",
            "secrets.yaml",
        ]
        assert "secrets.yaml" in ask(View(db, index.root), query=MARK)
    (root / "mesh.toml").write_text("")
    index.refresh()
    with index.store.snapshot() as db:
        assert [p for (p,) in db.execute("SELECT path FROM files ORDER BY path")] == ["mesh.toml"]
        assert "0 matches" in ask(View(db, index.root), query=MARK)
    index.close()


def test_INV_SECRET_1_the_worker_leaves_a_key_out_unless_told_to_keep_it(tmp_path: Path) -> None:
    """INV-SECRET-1: the outcome names what kind of secret it is, never the secret itself."""
    (tmp_path / "a.txt").write_text(PEM)
    skipped = process(tmp_path, Task("a.txt"))
    assert (skipped.status, skipped.reason) == ("skipped", "may hold secrets (content)")
    assert skipped.marker == "a private key"
    assert skipped.compressed == b"" and skipped.searchable == ""
    kept = process(tmp_path, Task("a.txt", skip_secrets=False))
    assert kept.status == "parsed" and MARK in kept.searchable
