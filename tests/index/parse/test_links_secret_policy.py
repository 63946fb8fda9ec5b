"""One secret-name policy for every extractor of links (INV-LINKS-3): a constant whose name the
configuration reader would refuse (``_config.secret_name``) is never kept by any language, while the
same constant under a plain name is."""

from __future__ import annotations

import pytest

from mesh.index.parse import extract
from mesh.index.parse._config import secret_name

#: (path, source with NAME standing for the constant's name)
SNIPPETS = [
    ("a.py", 'NAME = "orders.created"\n'),
    ("a.go", 'package a\n\nconst NAME = "orders.created"\n'),
    ("a.ts", 'export const NAME = "orders.created";\n'),
    ("A.java", 'class Topics {\n  public static final String NAME = "orders.created";\n}\n'),
    ("A.cs", 'public static class Topics\n{\n    public const string NAME = "orders.created";\n}\n'),
    ("a.rb", 'module Topics\n  NAME = "orders.created"\nend\n'),
    ("a.php", '<?php\nclass Topics {\n    const NAME = "orders.created";\n}\n'),
    ("a.rs", 'pub const NAME: &str = "orders.created";\n'),
]


@pytest.mark.parametrize(("path", "source"), SNIPPETS, ids=[path for path, _ in SNIPPETS])
def test_a_secret_looking_name_is_refused_by_every_language_INV_LINKS_3(path: str, source: str) -> None:
    plain, secret = "ORDERS_TOPIC", "ORDERS_TOPIC_CREDS"
    assert secret_name(secret) and not secret_name(plain)
    kept = extract(path, source.replace("NAME", plain).encode()).constants
    assert [c.value for c in kept] == ["orders.created"], kept
    assert extract(path, source.replace("NAME", secret).encode()).constants == ()
