"""Build manifests: every kind's dependencies, whole and in source order, and what broken files still give."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesh.index._facts import Dependency
from mesh.index.parse import _manifests, extract, manifest_kind


def deps(kind: str, source: str) -> tuple[Dependency, ...]:
    found, problem = _manifests.extract(kind, textwrap.dedent(source).lstrip("\n").encode())
    assert problem == ""
    return found


def test_go_mod() -> None:
    assert deps(
        "go.mod",
        """
        module github.com/acme/orders

        go 1.22

        require github.com/google/uuid v1.6.0

        require (
        \tgoogle.golang.org/grpc v1.62.1
        \tgithub.com/stretchr/testify v1.9.0 // indirect
        \t"example.com/quoted" v0.1.0 // indirect; needed by tests
        )

        replace github.com/acme/common => ../common
        replace (
        \tgithub.com/x/y v1.0.0 => github.com/x/y v1.0.1
        )
        exclude golang.org/x/net v0.1.0
        """,
    ) == (
        Dependency("github.com/google/uuid", "v1.6.0", "go", 5),
        Dependency("google.golang.org/grpc", "v1.62.1", "go", 8),
        Dependency("github.com/stretchr/testify", "v1.9.0", "go", 9, "indirect"),
        Dependency("example.com/quoted", "v0.1.0", "go", 10, "indirect"),
    )


def test_package_json() -> None:
    assert deps(
        "package.json",
        """
        {
          "name": "web",
          "scripts": {"dependencies": "echo not a dependency"},
          "dependencies": {
            "react": "^18.2.0",
            "@acme/ui": "workspace:*",
            "esc\\u0061ped": "1.0.0"
          },
          "devDependencies": { "typescript": "~5.4.0", "odd": {"not": "a string"} },
          "peerDependencies": {"react-dom": ">=18"},
          "optionalDependencies": {"fsevents": "2.3.3"},
          "bundleDependencies": ["react"],
          "nested": {"dependencies": {"deep": "1"}}
        }
        """,
    ) == (
        Dependency("react", "^18.2.0", "npm", 5),
        Dependency("@acme/ui", "workspace:*", "npm", 6),
        Dependency("escaped", "1.0.0", "npm", 7),
        Dependency("typescript", "~5.4.0", "npm", 9, "dev"),
        Dependency("odd", "", "npm", 9, "dev"),
        Dependency("react-dom", ">=18", "npm", 10, "peer"),
        Dependency("fsevents", "2.3.3", "npm", 11, "optional"),
    )


def test_composer_json_skips_platform_packages() -> None:
    assert deps(
        "composer.json",
        """
        {
          "require": {
            "php": ">=8.1",
            "ext-json": "*",
            "laravel/framework": "^11.0"
          },
          "require-dev": {"phpunit/phpunit": "^10.5", "lib-icu": "*"}
        }
        """,
    ) == (
        Dependency("laravel/framework", "^11.0", "composer", 5),
        Dependency("phpunit/phpunit", "^10.5", "composer", 7, "dev"),
    )


def test_pyproject_pep621_groups_and_poetry() -> None:
    assert deps(
        "pyproject.toml",
        """
        [project]
        name = "svc"
        description = \"\"\"
        [tool.poetry.dependencies]
        fake = "1"
        \"\"\"
        dependencies = [
            "requests>=2.31,<3",
            "grpcio[protobuf]==1.62.0; python_version >= '3.9'",
            'attrs',
            "requests-toolbelt @ https://example.com/rt.whl ; os_name == 'nt'",
        ]

        [project.optional-dependencies]
        test = ["pytest>=8", "pytest"]

        [dependency-groups]
        lint = ["ruff>=0.4", {include-group = "test"}]

        [tool.poetry.dependencies]
        python = "^3.11"
        fastapi = "^0.110"
        uvicorn = { version = "^0.29", extras = ["standard"] }
        shared = { path = "../shared", develop = true }
        numpy = [{ version = "<2", python = "<3.9" }, { version = "^2", python = ">=3.9" }]

        [tool.poetry.dev-dependencies]
        mypy = "*"

        [tool.poetry.group.docs.dependencies]
        mkdocs = "^1.5"
        """,
    ) == (
        Dependency("requests", ">=2.31,<3", "pypi", 8),
        Dependency("grpcio", "==1.62.0", "pypi", 9),
        Dependency("attrs", "", "pypi", 10),
        Dependency("requests-toolbelt", "https://example.com/rt.whl", "pypi", 11),
        Dependency("pytest", ">=8", "pypi", 15, "test"),
        Dependency("pytest", "", "pypi", 15, "test"),
        Dependency("ruff", ">=0.4", "pypi", 18, "lint"),
        Dependency("fastapi", "^0.110", "pypi", 22),
        Dependency("uvicorn", "^0.29", "pypi", 23),
        Dependency("shared", "", "pypi", 24),
        Dependency("numpy", "<2 || ^2", "pypi", 25),
        Dependency("mypy", "*", "pypi", 28, "dev"),
        Dependency("mkdocs", "^1.5", "pypi", 31, "docs"),
    )


def test_setup_py_is_read_never_run() -> None:
    assert deps(
        "setup.py",
        """
        import os
        from setuptools import setup

        os.system("echo never run")
        REQUIRES = [
            "click>=8",
            "rich",
        ]
        EXTRAS = {"docs": ["sphinx>=7"]}

        setup(
            name="tool",
            install_requires=REQUIRES + ["pyyaml>=6; python_version>'3.8'"],
            extras_require={**EXTRAS, "test": \"\"\"
                pytest
                coverage  # measured
            \"\"\", "fast": "orjson\\nujson"},
            tests_require=("tox",),
            setup_requires=["wheel"],
        )
        """,
    ) == (
        Dependency("click", ">=8", "pypi", 6),
        Dependency("rich", "", "pypi", 7),
        Dependency("sphinx", ">=7", "pypi", 9, "docs"),
        Dependency("pyyaml", ">=6", "pypi", 13),
        Dependency("pytest", "", "pypi", 15, "test"),
        Dependency("coverage", "", "pypi", 16, "test"),
        Dependency("orjson", "", "pypi", 17, "fast"),
        Dependency("ujson", "", "pypi", 17, "fast"),
        Dependency("tox", "", "pypi", 18, "test"),
        Dependency("wheel", "", "pypi", 19, "build"),
    )


def test_setup_cfg() -> None:
    assert deps(
        "setup.cfg",
        """
        [metadata]
        name = tool
        install_requires = not-options

        [options]
        install_requires =
            click>=8
            # a comment
            rich  # trailing comment
        tests_require = pytest
        python_requires = >=3.9

        [options.extras_require]
        docs =
            sphinx>=7
        yaml = pyyaml
        """,
    ) == (
        Dependency("click", ">=8", "pypi", 7),
        Dependency("rich", "", "pypi", 9),
        Dependency("pytest", "", "pypi", 10, "test"),
        Dependency("sphinx", ">=7", "pypi", 15, "docs"),
        Dependency("pyyaml", "", "pypi", 16, "yaml"),
    )


def test_requirements_txt() -> None:
    assert deps(
        "requirements.txt",
        """
        # comment
        -r base.txt
        -e git+https://github.com/acme/x.git#egg=x
        --index-url https://pypi.example/simple
        requests>=2.31,<3  # pinned
        grpcio==1.62.0; python_version >= "3.9"
        django[argon2] ~= 4.2 \\
            --hash=sha256:abc
        git+https://github.com/acme/lib.git@v1#egg=acme-lib
        pkg @ https://example.com/pkg.whl
        ./local/path
        https://example.com/no-egg.tar.gz
        Flask
        """,
    ) == (
        Dependency("requests", ">=2.31,<3", "pypi", 5),
        Dependency("grpcio", "==1.62.0", "pypi", 6),
        Dependency("django", "~= 4.2", "pypi", 7),
        Dependency("acme-lib", "git+https://github.com/acme/lib.git@v1#egg=acme-lib", "pypi", 9),
        Dependency("pkg", "https://example.com/pkg.whl", "pypi", 10),
        Dependency("Flask", "", "pypi", 13),
    )


POM = """
    <?xml version="1.0" encoding="UTF-8"?>
    <project xmlns="http://maven.apache.org/POM/4.0.0">
      <parent><groupId>p</groupId><artifactId>parent</artifactId><version>1</version></parent>
      <dependencyManagement>
        <dependencies>
          <dependency>
            <groupId>io.grpc</groupId>
            <artifactId>grpc-bom</artifactId>
            <version>${grpc.version}</version>
            <type>pom</type>
            <scope>import</scope>
          </dependency>
        </dependencies>
      </dependencyManagement>
      <dependencies>
        <dependency>
          <groupId>io.grpc</groupId>
          <artifactId>grpc-stub</artifactId>
          <exclusions>
            <exclusion><groupId>x</groupId><artifactId>y</artifactId><version>9</version></exclusion>
          </exclusions>
        </dependency>
        <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version> 4.13.2 </version>
          <scope>test</scope></dependency>
      </dependencies>
      <build><plugins><plugin><groupId>org.apache</groupId><artifactId>plugin</artifactId>
        <dependencies><dependency><groupId>pd</groupId><artifactId>pa</artifactId></dependency></dependencies>
      </plugin></plugins></build>
      <profiles><profile><dependencies>
        <dependency><groupId>prof</groupId><artifactId>only</artifactId><version>2</version></dependency>
      </dependencies></profile></profiles>
    </project>
"""


def test_pom_xml() -> None:
    assert deps("pom.xml", POM) == (
        Dependency("io.grpc:grpc-bom", "${grpc.version}", "maven", 6, "managed"),
        Dependency("io.grpc:grpc-stub", "", "maven", 16),
        Dependency("junit:junit", "4.13.2", "maven", 23, "test"),
        Dependency("prof:only", "2", "maven", 30),
    )


def test_build_gradle_groovy() -> None:
    assert deps(
        "build.gradle",
        """
        plugins { id 'java' }
        dependencies {
            implementation 'com.google.guava:guava:33.0.0-jre'
            implementation("io.grpc:grpc-stub:${grpcVersion}") { exclude group: 'x', module: 'y' }
            api group: 'org.slf4j', name: 'slf4j-api', version: '2.0.12'
            compileOnly "org.projectlombok:lombok:1.18.30" // see https://projectlombok.org
            annotationProcessor 'org.projectlombok:lombok:1.18.30'
            testImplementation platform('org.junit:junit-bom:5.10.2')
            testImplementation 'org.junit.jupiter:junit-jupiter'
            implementation project(':common')
            runtimeOnly files('libs/x.jar')
            /* implementation 'commented:out:1'
               api 'also:commented:2' */
            kapt libs.dagger.compiler
            implementation 'a:b:1', 'c:d:2'
        }
        configurations { implementation.extendsFrom(custom) }
        """,
    ) == (
        Dependency("com.google.guava:guava", "33.0.0-jre", "gradle", 3),
        Dependency("io.grpc:grpc-stub", "${grpcVersion}", "gradle", 4),
        Dependency("org.slf4j:slf4j-api", "2.0.12", "gradle", 5),
        Dependency("org.projectlombok:lombok", "1.18.30", "gradle", 6, "compileOnly"),
        Dependency("org.projectlombok:lombok", "1.18.30", "gradle", 7, "annotationProcessor"),
        Dependency("org.junit:junit-bom", "5.10.2", "gradle", 8, "test"),
        Dependency("org.junit.jupiter:junit-jupiter", "", "gradle", 9, "test"),
        Dependency(":common", "", "gradle", 10, "project"),
        Dependency("libs.dagger.compiler", "", "gradle", 14, "kapt"),
        Dependency("a:b", "1", "gradle", 15),
        Dependency("c:d", "2", "gradle", 15),
    )


def test_build_gradle_kotlin_dsl() -> None:
    assert deps(
        "build.gradle.kts",
        """
        dependencies {
            implementation("org.jetbrains.kotlinx:kotlinx-coroutines-core:1.8.0")
            implementation(platform("io.grpc:grpc-bom:1.62.2"))
            implementation(project(":proto"))
            implementation(project(path = ":shared", configuration = "default"))
            testImplementation(kotlin("test"))
            implementation(
                group = "com.squareup.okhttp3",
                name = "okhttp",
                version = "4.12.0",
            )
            runtimeOnly("org.postgresql:postgresql:42.7.3")
        }
        """,
    ) == (
        Dependency("org.jetbrains.kotlinx:kotlinx-coroutines-core", "1.8.0", "gradle", 2),
        Dependency("io.grpc:grpc-bom", "1.62.2", "gradle", 3),
        Dependency(":proto", "", "gradle", 4, "project"),
        Dependency(":shared", "", "gradle", 5, "project"),
        Dependency("com.squareup.okhttp3:okhttp", "4.12.0", "gradle", 7),
        Dependency("org.postgresql:postgresql", "42.7.3", "gradle", 12, "runtimeOnly"),
    )


def test_csproj_in_utf16() -> None:
    source = '<Project><ItemGroup><PackageReference Include="A" Version="1"/></ItemGroup></Project>'
    assert _manifests.extract(".csproj", source.encode("utf-16")) == ((Dependency("A", "1", "nuget", 1),), "")


def test_csproj() -> None:
    assert deps(
        ".csproj",
        """
        <Project Sdk="Microsoft.NET.Sdk">
          <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>
          <ItemGroup>
            <PackageReference Include="Grpc.AspNetCore" Version="2.61.0" />
            <PackageReference Include="Serilog">
              <Version>3.1.1</Version>
            </PackageReference>
            <PackageReference Include="Floating" />
            <ProjectReference Include="..\\Common\\Common.csproj" />
          </ItemGroup>
        </Project>
        """,
    ) == (
        Dependency("Grpc.AspNetCore", "2.61.0", "nuget", 4),
        Dependency("Serilog", "3.1.1", "nuget", 5),
        Dependency("Floating", "", "nuget", 8),
        Dependency("..\\Common\\Common.csproj", "", "nuget", 9, "project"),
    )


def test_cargo_toml() -> None:
    assert deps(
        "Cargo.toml",
        """
        [package]
        name = "svc"

        [dependencies]
        tokio = { version = "1.36", features = ["full"] }
        serde = "1.0"
        core = { path = "../core" }
        tonic.workspace = true
        "quoted-name" = "0.1"

        [dev-dependencies]
        proptest = "1"

        [build-dependencies]
        tonic-build = "0.11"

        [target.'cfg(unix)'.dependencies]
        nix = "0.28"

        [dependencies.regex]
        version = "1.10"

        [workspace.dependencies]
        anyhow = "1"
        """,
    ) == (
        Dependency("tokio", "1.36", "cargo", 5),
        Dependency("serde", "1.0", "cargo", 6),
        Dependency("core", "", "cargo", 7),
        Dependency("tonic", "", "cargo", 8),
        Dependency("quoted-name", "0.1", "cargo", 9),
        Dependency("proptest", "1", "cargo", 12, "dev"),
        Dependency("tonic-build", "0.11", "cargo", 15, "build"),
        Dependency("nix", "0.28", "cargo", 18),
        Dependency("regex", "1.10", "cargo", 20),
        Dependency("anyhow", "1", "cargo", 24, "workspace"),
    )


def test_gemfile() -> None:
    assert deps(
        "Gemfile",
        """
        source "https://rubygems.org"
        ruby "3.3.0"

        gem "rails", "~> 7.1", ">= 7.1.3"
        gem 'pg' # the database
        # gem "commented"

        group :development, :test do
          gem "rspec-rails"
          if ENV["DEBUGGER"]
            gem "debug", platforms: %i[mri]
          end
        end

        platforms :jruby do
          gem "jdbc"
        end

        gem "rubocop", require: false, group: :lint
        gem("pry", "0.14")
        gemspec
        """,
    ) == (
        Dependency("rails", "~> 7.1, >= 7.1.3", "rubygems", 4),
        Dependency("pg", "", "rubygems", 5),
        Dependency("rspec-rails", "", "rubygems", 9, "development,test"),
        Dependency("debug", "", "rubygems", 11, "development,test"),
        Dependency("jdbc", "", "rubygems", 16),
        Dependency("rubocop", "", "rubygems", 19, "lint"),
        Dependency("pry", "0.14", "rubygems", 20),
    )


def test_dispatch_through_the_file_name() -> None:
    source = b'{"devDependencies": {"vitest": "^1"}}'
    facts = extract("web/package.json", source)
    assert facts.dependencies == (Dependency("vitest", "^1", "npm", 1, "dev"),)
    assert facts.error == ""
    assert manifest_kind("requirements-dev.txt") == "requirements.txt"
    assert extract("requirements-dev.txt", b"pytest\n").dependencies == (Dependency("pytest", "", "pypi", 1),)


@pytest.mark.parametrize(
    ("kind", "source", "expected", "problem"),
    [
        (
            "package.json",
            b'{\n "dependencies": {\n  "a": "1",\n  "b": "2"\n  "c": "3"\n }\n}',
            (Dependency("a", "1", "npm", 3), Dependency("b", "2", "npm", 4)),
            "package.json: invalid JSON at line 5: Expecting ',' delimiter",
        ),
        ("package.json", b"[1, 2]", (), "package.json: expected a JSON object"),
        ("package.json", b"[" * 100_000, (), "package.json: invalid JSON: nested too deeply"),
        ("composer.json", b"\xff\xfe{", (), "composer.json: invalid JSON at line 1: Expecting value"),
        (
            "Cargo.toml",
            b'[dependencies]\nserde = "1"\nbad =\n[dev-dependencies]\nx = "1"\n',
            (Dependency("serde", "1", "cargo", 2),),
            "Cargo.toml: invalid TOML at line 3: Invalid value",
        ),
        ("pyproject.toml", b"a = " + b"[" * 100_000, (), "pyproject.toml: invalid TOML: nested too deeply"),
        (
            "pom.xml",
            (
                b"<project><dependencies>\n<dependency><groupId>g</groupId><artifactId>a</artifactId></dependency>\n"
                b"<dependency></project>"
            ),
            (Dependency("g:a", "", "maven", 2),),
            "pom.xml: invalid XML at line 3: mismatched tag",
        ),
        (
            "pom.xml",
            b'<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY lol "lol">]>\n<project/>',
            (),
            "pom.xml: DOCTYPE and entity declarations are not read (line 2)",
        ),
        (".csproj", b"not xml", (), ".csproj: invalid XML at line 1: syntax error"),
        ("setup.py", b'setup(install_requires=["a"', (), "setup.py: invalid Python at line 1: '[' was never closed"),
        ("setup.py", b"(" * 10_000, (), "setup.py: invalid Python at line 1: too many nested parentheses"),
        ("go.mod", b"\x00\x01binary", (), "go.mod: binary content"),
        ("Gemfile", b"end\nend\ngem\n", (), ""),
        ("nonsense", b"", (), "nonsense: not a known manifest kind"),
    ],
)
def test_invalid_inputs_give_what_was_read_and_a_problem(
    kind: str, source: bytes, expected: tuple[Dependency, ...], problem: str
) -> None:
    assert _manifests.extract(kind, source) == (expected, problem)


KINDS = (
    "go.mod", "package.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pom.xml",
    "build.gradle", "build.gradle.kts", ".csproj", "Cargo.toml", "Gemfile", "composer.json",
)  # fmt: skip
_PIECES = st.sampled_from(
    [
        "\n", " ", "\t", '"', "'", "{", "}", "[", "]", "(", ")", "=", ":", ",", ";", "#", "//", "/*", "*/", "<",
        ">", "</", "/>", "dependencies", "require", "implementation", "gem", "group", "do", "end", "project",
        "dependency", "groupId", "version", "a:b:1", "requests>=1", "-r", "@", "\\", "\"\"\"", "x", "1",
    ]
)  # fmt: skip


@given(st.sampled_from(KINDS), st.one_of(st.binary(max_size=300), st.lists(_PIECES, max_size=60).map("".join)))
def test_never_raises(kind: str, source: bytes | str) -> None:
    data = source.encode() if isinstance(source, str) else source
    found, problem = _manifests.extract(kind, data)
    assert "internal error" not in problem, problem
    last = data.count(b"\n") + 1
    assert all(1 <= dep.line <= last for dep in found)
    assert [dep.line for dep in found] == sorted(dep.line for dep in found)
    assert problem == "" or problem.startswith(f"{kind}: ")
    assert _manifests.extract(kind, data) == (found, problem)
