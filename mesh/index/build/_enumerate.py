"""Which files of a workspace are indexed: ignore rules, size cap, binaries, secrets, symlinks.

Theory of operation
-------------------
The walk is iterative and sorted (the same tree always gives the same order). Each folder may add
ignore rules (``.gitignore`` and ``.meshignore``, gitignore syntax, matched by ``pathspec``)
relative to itself; a path is decided by the deepest folder whose rules say anything about it, so a
deeper ``!pattern`` can take back what a shallower file ignored, as git does. Folders that are
never source (``.git``, ``node_modules``, vendored and build output) are skipped unless the
configuration lets vendored trees in. A symlink to a file is followed only when its target resolves
inside the workspace; a symlink to a folder is never entered (one outside is no part of the
workspace, one inside is walked under its own, real path: an alias must not shadow it, whichever
sorts first), and a folder is entered once (by device and inode), so loops and escapes end
quietly. What is left out is reported with its reason, never silently. Ignore files are read
through :func:`~mesh.index._files.read_inside`, like every other read of workspace text.

Secret-looking files are left out (reason "may hold secrets") unless the configuration lets them
in, by one policy that errs on the side of skipping: by name here (:func:`secret_name`: names,
suffixes, key-file stems, folders such as ``.ssh/`` and ``.aws/``), and by a signature of a private
key or a cloud credential in the first :data:`SECRET_HEAD_BYTES` (:func:`secret_signature`), which
the parse worker applies to the bytes it reads anyway (reason "may hold secrets (content)").

Generated code is left out (reason "generated") unless the configuration lets vendored trees in:
by name here (protobuf and gRPC stubs), and by a marker in its first lines
(:func:`generated_marker`), which the parse worker applies to the bytes it reads anyway, so the
walk itself reads no file.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from collections.abc import Iterator
from typing import Final

import attrs
import pathspec
import re2

from .._files import open_folder_inside, read_inside

__all__ = ["GENERATED_HEAD_BYTES", "GENERATED_RULE", "SECRET_CONTENT_REASON", "SECRET_HEAD_BYTES", "SECRET_REASON",
           "SECRET_RULE", "FileEntry", "Skipped", "Walk", "check_paths", "generated_marker", "secret_name",
           "secret_signature", "walk"]  # fmt: skip

#: Folders that are never source, at any depth.
ALWAYS_SKIPPED_DIRS: Final = frozenset({".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache",
                                         ".tox", ".venv", "venv", ".idea", ".vscode"})  # fmt: skip
#: Vendored or generated trees: skipped unless ``include_vendored``.
VENDORED_DIRS: Final = frozenset({"node_modules", "vendor", "third_party", "bower_components", "dist", "build",
                                  "target", "out", "bin", "obj", ".gradle", ".next", "generated", "gen",
                                  ".aws-sam", ".serverless", "cdk.out"})  # fmt: skip
#: Generated code recognised by name (protobuf and gRPC stubs): the ``.proto`` is the source.
GENERATED_SUFFIXES: Final = ("_pb2.py", "_pb2_grpc.py", "_pb2.pyi", ".pb.go", "_grpc.pb.go", ".pb.cc", ".pb.h",
                             ".grpc.pb.cc", ".grpc.pb.h", "_pb.js", "_grpc_pb.js", ".pb.swift", ".min.js")  # fmt: skip
BINARY_SUFFIXES: Final = frozenset({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".pdf", ".zip", ".gz", ".tgz", ".bz2",
                                    ".xz", ".7z", ".jar", ".war", ".class", ".so", ".dylib", ".dll", ".exe", ".o", ".a", ".pyc",
                                    ".pyo", ".whl", ".egg", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".mov", ".avi",
                                    ".wav", ".sqlite", ".db", ".bin"})  # fmt: skip
IGNORE_FILES: Final = (".gitignore", ".meshignore")

# -- the secret-file policy: never indexed unless the workspace opts in ([index] include_secrets) --
#: Why a file or folder is left out for its name, and for its content.
SECRET_REASON: Final = "may hold secrets"
SECRET_CONTENT_REASON: Final = "may hold secrets (content)"
#: Names the policy (names and signatures): an index made under another policy reads its files once
#: more to apply this one.
SECRET_RULE: Final = "1"
#: Folders of credentials, at any depth: left out whole.
SECRET_DIRS: Final = frozenset({".aws", ".azure", ".docker", ".gcloud", ".gnupg", ".kube", ".m2", ".minikube",
                                ".password-store", ".secrets", ".ssh", ".terraform", ".vagrant"})  # fmt: skip
#: Exact names (compared in lower case).
SECRET_NAMES: Final = frozenset({
    ".netrc", "_netrc", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".pgpass", ".git-credentials", ".dockercfg",
    ".htpasswd", ".my.cnf", ".mylogin.cnf", ".boto", ".s3cfg", ".vault-token", ".terraformrc", "terraform.rc", ".envrc",
    "auth.json", "google-services.json", "googleservice-info.plist", "keystore.properties", ".bash_history",
    ".zsh_history", ".sh_history", ".python_history", ".psql_history", ".mysql_history", ".node_repl_history",
})  # fmt: skip
#: SSH private keys and their copies (``id_rsa.bak``); the ``.pub`` halves are public.
SECRET_PREFIXES: Final = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")
#: Extensions of keys, keystores, environment files and infrastructure state, anywhere among a
#: name's dotted parts (``client.key.txt``, ``server.pem.bak``, ``.env.local``, ``prod.env``).
SECRET_EXTENSIONS: Final = frozenset({"pem", "key", "p8", "p12", "pfx", "jks", "jceks", "bks", "keystore", "kdbx",
                                      "asc", "gpg", "pgp", "ppk", "ovpn", "keytab", "env", "tfstate", "tfvars",
                                      "secret", "secrets"})  # fmt: skip
#: Words that make a data file (or one without an extension) secret-looking by its name
#: (``secrets.yaml``, ``service-account.json``, ``kubeconfig``, ``db-password.txt``); code is never
#: left out for its name (``secret_store.go`` is code about secrets).
SECRET_WORDS: Final = ("secret", "credential", "passw", "service-account", "service_account", "serviceaccount",
                       "kubeconfig", "private-key", "private_key", "privatekey", "api-key", "api_key",
                       "apikey")  # fmt: skip
#: Folders whose data files are all secret-looking (``k8s/secrets/db.yaml``; code stays in).
SECRET_DATA_DIRS: Final = frozenset({"secret", "secrets", "credentials", "creds"})
#: What counts as a data file for the two rules above.
DATA_EXTENSIONS: Final = frozenset({"json", "yaml", "yml", "toml", "ini", "cfg", "conf", "env", "txt", "properties",
                                    "xml", "plist", "csv", "bak", "old", "orig", "backup"})  # fmt: skip
#: How much of a file's start is looked at for a private key or a credential.
SECRET_HEAD_BYTES: Final = 16 << 10
#: (what it is, cheap tokens one of which must be in the lower-cased head, the signature that decides).
_SECRET_SIGNATURES: Final = (
    ("a private key", (b"private key",),
     re.compile(rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("a PuTTY private key", (b"putty-user-key-file-",),
     re.compile(rb"(?m)^PuTTY-User-Key-File-\d+:")),
    ("a cloud service account key", (b"service_account",),
     re.compile(rb'(?s)"type"\s*:\s*"service_account".{0,4096}?"private_key"'
                rb'|"private_key".{0,4096}?"type"\s*:\s*"service_account"')),
    ("an AWS secret access key", (b"secret_access_key", b"secretaccesskey"),
     re.compile(rb"(?i)aws_?secret_?access_?key\W{0,5}[=:]\s*[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])")),
    ("an Azure storage account key", (b"accountkey=",),
     re.compile(rb"AccountKey=[A-Za-z0-9+/]{80,}")),
    ("a kubeconfig credential", (b"client-key-data", b"client-certificate-data"),
     re.compile(rb"(?m)^\s*(?:client-key-data|client-certificate-data)\s*:\s*[A-Za-z0-9+/=]{20,}")),
    ("a registry credential", (b'"auths"',),
     re.compile(rb'"auths"\s*:\s*\{[^}]*"auth"\s*:\s*"[A-Za-z0-9+/=]{8,}"')),
    ("an OAuth client secret", (b"gocspx-",),
     re.compile(rb'"client_secret"\s*:\s*"GOCSPX-[A-Za-z0-9_-]{20,}"')),
    ("a GitHub token", (b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_", b"github_pat_"),
     re.compile(rb"\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{60,})\b")),
    ("a GitLab token", (b"glpat-",),
     re.compile(rb"\bglpat-[A-Za-z0-9_-]{20}\b")),
    ("a Slack token", (b"xoxa-", b"xoxb-", b"xoxp-", b"xoxo-", b"xoxs-", b"xoxr-"),
     re.compile(rb"\bxox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{10,}")),
    ("a Stripe live key", (b"k_live_",),
     re.compile(rb"\b[rs]k_live_[A-Za-z0-9]{24,}\b")),
    ("an npm token", (b"npm_",),
     re.compile(rb"\bnpm_[A-Za-z0-9]{36}\b")),
)  # fmt: skip


def _any_token() -> re2._Regexp:
    """Every signature's tokens in one RE2 pattern (a DFA: one pass over the head, ~20 us for 16 KiB,
    where a ``bytes.find`` per token costs ~150 us): most files have none, and stop there."""
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    tokens = sorted({token for _, found, _ in _SECRET_SIGNATURES for token in found})
    return re2.compile(b"|".join(re.escape(token) for token in tokens), options)


_ANY_SECRET_TOKEN: Final = _any_token()

#: How much of a file's start is looked at for a generated-code marker.
GENERATED_HEAD_BYTES: Final = 2048
#: A generic marker (a bare "DO NOT EDIT", a comment opening with "generated by") counts only
#: this near the top; the specific ones count anywhere in the head.
GENERATED_TOP_LINES: Final = 10
#: Names the rule (markers and which files it applies to): an index made under another rule
#: reads its files once more to apply this one.
GENERATED_RULE: Final = "1"
#: A line is a comment when it opens with one of these (after blanks and a byte-order mark).
_COMMENT_LEADERS: Final = ("//", "/*", "*", "#", "--", "<!--", ";", "%", '"""', "'''")
#: Specific markers, on a comment line anywhere in the head.
_SPECIFIC_MARKER: Final = re.compile(
    "|".join((
        r"\bCode generated\b.*\bDO NOT EDIT\b",  # Go's convention, followed in every language
        r"<auto-generated\b",  # .NET
        r"(?<![\w@])@generated\b",  # Meta's convention (Thrift, Relay, Buck...)
        r"\bGenerated by the protocol buffer compiler\b",
        r"(?i:\bthis (?:file|code|class|module|source) (?:is|was|has been) (?:automatically |auto[- ]?)?generated\b)",
    ))
)  # fmt: skip
#: Generic markers, on a comment line among the first GENERATED_TOP_LINES.
_TOP_MARKER: Final = re.compile(
    r"\bDO NOT EDIT\b|^\W*(?i:auto[- ]?generated|automatically generated|generated (?:by|from|with|using)\b)"
)
#: Java, Kotlin and C#: a generated-code annotation or attribute before the first type declaration.
_ANNOTATION: Final = re.compile(
    r"^(?:@(?:[\w.]+\.)?(?:Generated|GrpcGenerated)\b|\[(?:global::)?(?:[\w.]+\.)?GeneratedCode\b)"
)
_DECLARATION: Final = re.compile(r"\b(?:class|interface|enum|object|record|struct)\s+\w")
_ANNOTATED_SUFFIXES: Final = (".java", ".kt", ".kts", ".cs")
#: Files the marker rule leaves alone: docs, protos, manifests, lock files and other configuration
#: (a lock file says "do not edit" and is still worth searching).
_NOT_CODE_SUFFIXES: Final = (".md", ".markdown", ".rst", ".adoc", ".txt", ".proto", ".json", ".yaml", ".yml", ".toml",
                             ".ini", ".cfg", ".conf", ".xml", ".properties", ".gradle", ".lock", ".sum", ".mod",
                             ".csproj", ".sln", ".props", ".targets", ".editorconfig")  # fmt: skip


@attrs.frozen
class FileEntry:
    #: Path relative to the workspace root, with ``/`` separators.
    path: str
    size: int
    mtime_ns: int


@attrs.frozen
class Skipped:
    path: str
    reason: str
    #: A folder left out whole (its files were never listed).
    folder: bool = False
    #: A file's size and mtime when it was left out (0 when unknown, and for folders).
    size: int = 0
    mtime_ns: int = 0
    #: What gave it away, when its content did (the marker line of generated code).
    marker: str = ""


@attrs.define
class Walk:
    """The outcome of one walk: the files to index, in a stable order, and what was left out."""

    files: list[FileEntry] = attrs.field(factory=list)
    skipped: list[Skipped] = attrs.field(factory=list)


def walk(
    root: Path,
    *,
    max_file_bytes: int = 1 << 20,
    include_vendored: bool = False,
    include_secrets: bool = False,
    extra_ignores: tuple[str, ...] = (),
) -> Walk:
    """Every indexable file under ``root`` (resolved), and every file or folder left out, with why."""
    result = Walk()
    for item in iter_walk(
        root,
        max_file_bytes=max_file_bytes,
        include_vendored=include_vendored,
        include_secrets=include_secrets,
        extra_ignores=extra_ignores,
    ):
        (result.skipped if isinstance(item, Skipped) else result.files).append(item)
    result.files.sort(key=lambda entry: entry.path)
    return result


def iter_walk(
    root: Path,
    *,
    max_file_bytes: int = 1 << 20,
    include_vendored: bool = False,
    include_secrets: bool = False,
    extra_ignores: tuple[str, ...] = (),
) -> Iterator[FileEntry | Skipped]:
    """:func:`walk` as it goes, folder by folder (depth first, in name order): a reader that stops
    early (the first-call scan, INV-SCAN-1) pays only for the folders it reached."""
    root = root.resolve()
    base_rules = [("", pathspec.GitIgnoreSpec.from_lines(extra_ignores))] if extra_ignores else []
    yield from _walk_from(root, "", base_rules, max_file_bytes, include_vendored, include_secrets)


def _walk_from(
    root: Path,
    top: str,
    rules: list[tuple[str, pathspec.GitIgnoreSpec]],
    max_file_bytes: int,
    include_vendored: bool,
    include_secrets: bool,
) -> Iterator[FileEntry | Skipped]:
    """The walk of the folder ``top`` (relative to ``root``, entered with ``rules``, the rules in
    force in its parent) and of everything under it that the walk enters."""
    result = Walk()  # what the ignore files of a folder say that is wrong lands in its skipped
    visited: set[tuple[int, int]] = set()
    # A stack of (folder relative to root, the ignore rules in force there). Each folder is opened
    # through read-only descriptors from the root, never following a link (``open_folder_inside``):
    # a folder swapped for a link out since it was listed is not entered.
    stack: list[tuple[str, list[tuple[str, pathspec.GitIgnoreSpec]]]] = [(top, rules)]
    while stack:
        rel_dir, rules = stack.pop()
        try:
            handle = open_folder_inside(root, rel_dir)
        except OSError as exc:
            result.skipped.append(Skipped(rel_dir or ".", f"unreadable folder: {exc.strerror}", folder=True))
            continue
        try:
            status = os.fstat(handle)
            if (status.st_dev, status.st_ino) in visited:
                result.skipped.append(Skipped(rel_dir, "folder already walked under another path", folder=True))
                continue
            visited.add((status.st_dev, status.st_ino))
            rules = rules + _rules_in(root, rel_dir, result)
            try:
                entries = sorted(os.scandir(handle), key=lambda entry: entry.name)
            except OSError as exc:
                result.skipped.append(Skipped(rel_dir or ".", f"unreadable folder: {exc.strerror}", folder=True))
                continue
            folders = []
            for entry in entries:  # decided while the folder is open: an entry stats through it
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                decision = _decide(entry, rel, root, rules, max_file_bytes, include_vendored, include_secrets)
                if isinstance(decision, Skipped):
                    result.skipped.append(decision)
                elif decision is True:
                    folders.append((rel, rules))
                elif decision is not None:
                    result.files.append(decision)
        finally:
            os.close(handle)
        stack.extend(reversed(folders))  # depth first, in name order
        yield from result.skipped
        yield from result.files
        result.skipped.clear()
        result.files.clear()
    yield from result.skipped  # a last folder left out (unreadable, walked already) said so


def _rules_in(root: Path, rel_dir: str, result: Walk) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
    """The rules of the ignore files in the folder ``rel_dir``, read without following a link out."""
    rules = []
    for name in IGNORE_FILES:
        rel = f"{rel_dir}/{name}" if rel_dir else name
        try:
            data, _ = read_inside(root, rel)
        except FileNotFoundError:
            continue
        except OSError as exc:
            result.skipped.append(Skipped(rel, f"unreadable: {exc.strerror}"))
            continue
        rules.append((rel_dir, pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", "replace").splitlines())))
    return rules


def _ignored(rel: str, is_dir: bool, rules: list[tuple[str, pathspec.GitIgnoreSpec]]) -> bool:
    """The deepest rule file that says anything about ``rel`` decides (later lines win inside one)."""
    for base, spec in reversed(rules):
        local = rel[len(base) + 1 :] if base else rel
        check = spec.check_file(local + "/" if is_dir else local)
        if check.include is not None:
            return check.include
    return False


def _decide(
    entry: os.DirEntry[str],
    rel: str,
    root: Path,
    rules: list[tuple[str, pathspec.GitIgnoreSpec]],
    max_file_bytes: int,
    include_vendored: bool,
    include_secrets: bool,
) -> FileEntry | Skipped | bool | None:
    """What the walk does with one entry of a folder: index it (a :class:`FileEntry`), leave it out
    (:class:`Skipped`, or None when not worth a report line), or enter it (True: a folder)."""
    name = entry.name
    try:
        is_link = entry.is_symlink()
        status = entry.stat(follow_symlinks=True)
    except OSError as exc:
        return Skipped(rel, "broken symlink" if entry.is_symlink() else f"unreadable: {exc.strerror}")
    linked = ""  # where a symlink inside the workspace leads, workspace-relative
    if is_link:
        try:
            target = (root / rel).resolve(strict=True)
        except (OSError, RuntimeError):
            return Skipped(rel, "broken symlink")
        if not target.is_relative_to(root):
            return Skipped(rel, "symlink out of the workspace")
        linked = target.relative_to(root).as_posix()
        if stat.S_ISDIR(status.st_mode):
            # Its files are walked under their real paths (or left out there, for the real path's
            # reasons): an alias walked first would shadow them, and could name a service.
            return Skipped(rel, "symlink to a folder inside the workspace", folder=True)
    if stat.S_ISDIR(status.st_mode):
        if name in ALWAYS_SKIPPED_DIRS:
            return None  # never source, not worth a report line
        if name.lower() in SECRET_DIRS and not include_secrets:
            return Skipped(rel, SECRET_REASON, folder=True)
        if name in VENDORED_DIRS and not include_vendored:
            return Skipped(rel, "vendored or generated folder", folder=True)
        if _ignored(rel, True, rules):
            return Skipped(rel, "ignored", folder=True)
        return True
    if not stat.S_ISREG(status.st_mode):
        return Skipped(rel, "not a regular file")
    if name in IGNORE_FILES:
        return None
    if _ignored(rel, False, rules):
        return Skipped(rel, "ignored")
    if not include_secrets and (secret_name(rel) or (linked and secret_name(linked))):
        return Skipped(rel, SECRET_REASON)  # by its name, or by the name of what it links to
    lower = name.lower()
    stats = {"size": status.st_size, "mtime_ns": status.st_mtime_ns}
    if lower.endswith(GENERATED_SUFFIXES) and not include_vendored:
        return Skipped(rel, "generated", **stats)
    if os.path.splitext(lower)[1] in BINARY_SUFFIXES:
        return Skipped(rel, "binary", **stats)
    if status.st_size > max_file_bytes:
        return Skipped(rel, f"larger than {max_file_bytes} bytes", **stats)
    return FileEntry(rel, status.st_size, status.st_mtime_ns)


def secret_name(rel: str) -> bool:
    """Whether the file at ``rel`` (workspace-relative) looks secret by its name or its folders (the
    folders of :data:`SECRET_DIRS` are left out whole by the walk; here they count too, for a
    caller that has only the path)."""
    *folders, name = rel.lower().split("/")
    if any(folder in SECRET_DIRS for folder in folders):
        return True
    if name in SECRET_NAMES:
        return True
    if name.startswith(SECRET_PREFIXES) and not name.endswith(".pub"):
        return True
    parts = name.lstrip(".").split(".")
    if name.startswith(".") and parts[0] in SECRET_EXTENSIONS:
        return True  # .env, .env.local, .secrets
    if any(part in SECRET_EXTENSIONS for part in parts[1:]):
        return True
    data = len(parts) == 1 or parts[-1] in DATA_EXTENSIONS
    if data and any(word in name for word in SECRET_WORDS):
        return True
    return data and any(folder in SECRET_DATA_DIRS for folder in folders)


def secret_signature(head: bytes) -> str | None:
    """What the first :data:`SECRET_HEAD_BYTES` of a file hold that makes it secret (a private key,
    a service account key, an AWS secret access key...), named without quoting it; or None."""
    if _ANY_SECRET_TOKEN.search(head) is None:
        return None
    folded = head.lower()
    for what, tokens, signature in _SECRET_SIGNATURES:
        if any(token in folded for token in tokens) and signature.search(head):
            return what
    return None


def generated_marker(path: str, head: bytes) -> str | None:
    """The line of ``head`` (the first :data:`GENERATED_HEAD_BYTES` of the file at ``path``) that
    marks the file as generated code, or None.

    A marker counts on a comment line only (a string that spells one is not a marker): Go's
    "Code generated ... DO NOT EDIT." in any language, .NET's ``<auto-generated>``, ``@generated``,
    protoc's banner and "this file is generated" anywhere in the head; a bare "DO NOT EDIT" or a
    comment opening with "generated by" or "auto-generated" in the first lines; a ``@Generated``
    annotation (Java, Kotlin) or ``[GeneratedCode]`` attribute (C#) before the first type. Docs,
    protos and configuration (lock files say "do not edit" too) are never generated code here.
    """
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith(_NOT_CODE_SUFFIXES) or name in IGNORE_FILES:
        return None
    folded = head.lower()
    if b"generated" not in folded and b"do not edit" not in folded:
        return None  # the common case, found at C speed
    annotated = name.endswith(_ANNOTATED_SUFFIXES)
    lines = head.decode("utf-8", "replace").removeprefix("\ufeff").split("\n")
    if len(head) >= GENERATED_HEAD_BYTES and len(lines) > 1:
        lines.pop()  # cut short: a marker split in two is not a marker
    for number, raw in enumerate(lines):
        line = raw.strip()
        if line.startswith(_COMMENT_LEADERS):
            if _SPECIFIC_MARKER.search(line) or (number < GENERATED_TOP_LINES and _TOP_MARKER.search(line)):
                return line[:160]
        elif annotated and line:
            if _ANNOTATION.match(line):
                return line[:160]
            if _DECLARATION.search(line):
                annotated = False  # past the first type: an annotation on a member says nothing of the file
    return None


def check_paths(
    root: Path,
    paths: list[str],
    *,
    max_file_bytes: int = 1 << 20,
    include_vendored: bool = False,
    include_secrets: bool = False,
    extra_ignores: tuple[str, ...] = (),
) -> Walk:
    """What :func:`walk` would say of just these paths (a watcher's few), without walking the tree.

    Each path's folders are checked from the root down with the same rules (ignore files read once
    per folder); a path that is gone, or whose folder a walk would not enter, is simply absent
    from the result, so the caller treats it as deleted. A folder among ``paths`` that a walk would
    enter is walked as the whole walk would walk it (a folder made, moved or checked out: its files
    are what changed).
    """
    root = root.resolve()
    result = Walk()
    base_rules = [("", pathspec.GitIgnoreSpec.from_lines(extra_ignores))] if extra_ignores else []
    rules_of: dict[str, list[tuple[str, pathspec.GitIgnoreSpec]] | None] = {}

    def folder_rules(rel_dir: str) -> list[tuple[str, pathspec.GitIgnoreSpec]] | None:
        """The rules in force inside ``rel_dir``, or None when a walk would not enter it."""
        if rel_dir in rules_of:
            return rules_of[rel_dir]
        if not rel_dir:
            found: list | None = base_rules + _rules_in(root, "", result)
        else:
            parent_rel = rel_dir.rsplit("/", 1)[0] if "/" in rel_dir else ""
            parent = folder_rules(parent_rel)
            found = None
            if parent is not None:
                decision = decide(rel_dir, parent)
                if decision is True:
                    found = parent + _rules_in(root, rel_dir, result)
        rules_of[rel_dir] = found
        return found

    def decide(rel: str, rules: list[tuple[str, pathspec.GitIgnoreSpec]]) -> FileEntry | Skipped | bool | None:
        """What :func:`_decide` says of ``rel``, its folder opened as the walk opens it (None when gone)."""
        rel_dir, _, name = rel.rpartition("/")
        try:
            handle = open_folder_inside(root, rel_dir)
        except OSError:
            return None
        try:
            with os.scandir(handle) as entries:
                entry = next((entry for entry in entries if entry.name == name), None)
                if entry is None:
                    return None
                return _decide(entry, rel, root, rules, max_file_bytes, include_vendored, include_secrets)
        except OSError:
            return None
        finally:
            os.close(handle)

    for rel in sorted(set(paths)):
        rules = folder_rules(rel.rpartition("/")[0])
        if rules is None:
            continue
        decision = decide(rel, rules)
        if isinstance(decision, FileEntry):
            result.files.append(decision)
        elif isinstance(decision, Skipped):
            result.skipped.append(decision)
        elif decision is True:
            for item in _walk_from(root, rel, rules, max_file_bytes, include_vendored, include_secrets):
                (result.skipped if isinstance(item, Skipped) else result.files).append(item)
    # a folder and a file or folder in it both named: each once
    result.files = sorted({entry.path: entry for entry in result.files}.values(), key=lambda entry: entry.path)
    result.skipped = list({item.path: item for item in result.skipped}.values())
    return result
