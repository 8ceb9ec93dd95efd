"""The layout rules of STYLE.md that, once broken, break imports in confusing ways."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_PACKAGE_NAMES = {
    "mcp",
    "code",
    "profile",
    "secrets",
    "token",
    "types",
    "test",
    "platform",
}


def test_platform_folder_is_not_a_package() -> None:
    assert (ROOT / "platform").is_dir()
    assert not (ROOT / "platform" / "__init__.py").exists()


@pytest.mark.parametrize("cwd", [ROOT, ROOT / "platform"])
def test_platform_module_is_the_standard_library_one_from_any_directory(cwd: Path) -> None:
    code = (
        "import platform, sysconfig, uuid, django, config.settings as s; "
        "assert platform.__file__.startswith(sysconfig.get_paths()['stdlib']), platform.__file__; "
        "print(platform.system())"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == __import__("platform").system()


def test_no_first_party_package_shadows_a_library_or_stdlib_module() -> None:
    roots = [ROOT, ROOT / "platform"]
    names = {
        child.name
        for root in roots
        for child in root.iterdir()
        if child.is_dir() and (child / "__init__.py").exists()
    }
    nested = {
        path.parent.name
        for root in (ROOT / "memory", ROOT / "roles", ROOT / "frontend", ROOT / "platform")
        for path in root.rglob("__init__.py")
        if "node_modules" not in path.parts
    }
    assert not (names | nested) & FORBIDDEN_PACKAGE_NAMES


@pytest.mark.parametrize("package", ["memory.core", "roles.dpml"])
def test_pure_packages_import_without_loading_django(package: str) -> None:
    code = (
        f"import sys, {package}, pkgutil, importlib; "
        f"[importlib.import_module(m.name) for m in pkgutil.walk_packages({package}.__path__, "
        f"'{package}.')]; "
        "assert 'django' not in sys.modules, sorted(m for m in sys.modules if 'django' in m)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd="/", capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_tests_folders_are_packages_so_they_cannot_shadow_apps() -> None:
    for folder in (ROOT / "tests").rglob("*"):
        if folder.is_dir() and any(folder.glob("test_*.py")):
            assert (folder / "__init__.py").exists(), folder


@pytest.mark.django_db
def test_models_and_migrations_agree() -> None:
    from django.core.management import call_command

    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_the_code_passes_ruff_including_the_no_django_rule_in_memory_core() -> None:
    ruff = Path(sys.executable).with_name("ruff")
    result = subprocess.run(
        [str(ruff), "check", "--no-cache", str(ROOT)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_templates_use_comment_tags_for_multi_line_comments() -> None:
    """Django's {# #} ends at the line; across lines it is printed on the page."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for path in root.glob("*/templates/**/*.html"):
        for match in re.finditer(r"\{#(.*?)#\}", path.read_text(), flags=re.S):
            assert "\n" not in match.group(1), f"{path}: multi-line {{# #}} comment"
