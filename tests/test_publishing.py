"""Publishing: the GitHub Pages workflow builds with the README's command, and the
configuration points the launch, edit and repository buttons at the published repository.

The launch buttons in the built pages are checked in ``tests/test_exercise_bank.py``.
"""

from __future__ import annotations

import re

import pytest
import yaml

from tools.chapters import ROOT  # noqa: E402

pytestmark = pytest.mark.book  # read by the stage 'html' of dodo.py, after its product is made

REPOSITORY = "https://github.com/ensembles-verified/ensembles-verified"
PAGES = "https://ensembles-verified.github.io/ensembles-verified/"
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def readme_command(heading: str) -> str:
    """The command in the first ``bash`` block after the README paragraph starting ``heading``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(heading)
    block = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert block, f"no command after {heading!r} in README.md"
    return block.group(1).strip()


def workflow() -> dict:
    wf = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    wf["on"] = wf.pop(True, wf.get("on"))  # YAML 1.1 reads the key `on` as True
    return wf


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def test_workflow_builds_with_the_readme_command():
    command = readme_command("**Build the book**")
    assert command.startswith("python -m pip install -r requirements.txt")
    build = workflow()["jobs"]["build"]
    runs = [step.get("run", "").strip() for step in steps(build)]
    assert command in runs, f"the workflow does not run the README's command {command!r}"
    python = next(s["with"]["python-version"] for s in steps(build)
                  if s.get("uses", "").startswith("actions/setup-python"))
    runtime = (ROOT / "runtime.txt").read_text().strip()
    assert runtime == f"python-{python}", (runtime, python)


def test_workflow_publishes_the_html_on_pushes_to_main_only():
    wf = workflow()
    assert wf["on"]["push"]["branches"] == ["main"]
    upload = [s for s in steps(wf["jobs"]["build"])
              if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert len(upload) == 1 and upload[0]["with"]["path"] == "_build/html"
    deploy = wf["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert "github.event_name == 'push'" in deploy["if"] and "refs/heads/main" in deploy["if"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert any(s.get("uses", "").startswith("actions/deploy-pages") for s in steps(deploy))
    assert wf["permissions"] == {"contents": "read"}  # nothing else may write


def test_config_matches_the_published_repository():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repo = config["repository"]
    assert repo["url"] == REPOSITORY
    assert repo["branch"] == "main"
    assert repo.get("path_to_book", "") == ""  # the book is at the repository's root
    assert (ROOT / "_toc.yml").exists() and (ROOT / "_config.yml").exists()
    assert config["html"]["baseurl"] == PAGES
    launch = config["launch_buttons"]
    assert launch["colab_url"] == "https://colab.research.google.com"
    assert launch["binderhub_url"] == "https://mybinder.org"
    assert config["html"]["use_download_button"] is True


def test_binder_finds_the_environment_at_the_root():
    # repo2docker reads these two files from the repository's root.
    assert re.fullmatch(r"python-3\.\d+", (ROOT / "runtime.txt").read_text().strip())
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    assert "-e ." in lines, "Binder must install ensemble_ref from the repository"
    names = {re.split(r"[=<>!~\[ ]", line, maxsplit=1)[0].lower()
             for line in lines if line and not line.startswith(("#", "-"))}
    assert {"jupytext", "jupyter-book", "numpy", "scipy", "matplotlib"} <= names


def test_reader_notebooks_branch_is_published_by_its_own_job():
    """The launch buttons open the ``reader-notebooks`` branch: a job of the workflow writes
    it with ``tools/reader_notebooks.py --branch`` and pushes it, on pushes to main only, and
    it is the only job that may write to the repository."""
    from _ext.reader_edition import READER_BRANCH

    wf = workflow()
    jobs = wf["jobs"]
    job = jobs["reader-notebooks"]
    assert READER_BRANCH == "reader-notebooks"
    assert job["needs"] == "build"
    assert "github.event_name == 'push'" in job["if"] and "refs/heads/main" in job["if"]
    assert job["permissions"] == {"contents": "write"}
    writers = [name for name, j in jobs.items()
               if (j.get("permissions") or {}).get("contents") == "write"]
    assert writers == ["reader-notebooks", "student-notebooks"], writers
    runs = [s.get("run", "") for s in steps(job)]
    write = [r for r in runs if "tools.reader_notebooks" in r]
    assert len(write) == 1, runs
    assert re.search(r'python -m tools\.reader_notebooks "?\$OUT"? --branch --commit "?\$SHA"?',
                     write[0]), write[0]
    assert job["env"]["SHA"] == "${{ github.sha }}"
    assert any("pip install -r requirements.txt" in r for r in runs)
    # the references written by the build job's strict build reach this job
    upload = [s for s in steps(jobs["build"]) if s.get("uses", "").startswith(
        "actions/upload-artifact")]
    download = [s for s in steps(job) if s.get("uses", "").startswith("actions/download-artifact")]
    assert upload and download and upload[0]["with"]["name"] == download[0]["with"]["name"]
    assert upload[0]["with"]["path"] == "_build/reader/refs.json"
    assert download[0]["with"]["path"] == "_build/reader"
    order = [s.get("run", s.get("uses", "")) for s in steps(job)]
    assert order.index(download[0]["uses"]) < order.index(write[0])
    push = [s for s in steps(job) if "git push" in s.get("run", "")]
    assert len(push) == 1 and f"HEAD:{READER_BRANCH}" in push[0]["run"]
    assert push[0]["working-directory"].endswith("/reader-notebooks")
    out = next(s for s in steps(job) if s.get("run") == write[0])["env"]["OUT"]
    assert out.endswith("/reader-notebooks") and push[0]["working-directory"] == out


def test_requirements_are_fully_pinned_and_include_jupyterlab():
    lines = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    pins = [line for line in lines if line and not line.startswith(("#", "-"))]
    exact = re.compile(r"[A-Za-z0-9_.-]+(\[[A-Za-z0-9_,.-]+\])?==[A-Za-z0-9_.+!-]+")  # extras allowed
    loose = [line for line in pins if not exact.fullmatch(line)]
    assert not loose, f"not pinned exactly: {loose}"
    names = {re.sub(r"[-_.]+", "-", line.split("==")[0]).lower() for line in pins}
    # JupyterLab opens the notebooks (README); catboost's own dependencies are pinned too
    assert {"jupyterlab", "jupyter-server", "notebook-shim", "pandas", "plotly", "graphviz",
            "six"} <= names
    assert "jupyter lab" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_student_notebooks_branch_is_published_like_the_readers():
    """The student edition's launch buttons open the ``student-notebooks`` branch: a job
    writes it with ``tools/reader_notebooks.py --student --branch`` (no solutions) and pushes
    it, as the reader notebooks' job does, on pushes to main only."""
    from _ext.reader_edition import STUDENT_BRANCH

    jobs = workflow()["jobs"]
    job, reader = jobs["student-notebooks"], jobs["reader-notebooks"]
    assert STUDENT_BRANCH == "student-notebooks"
    assert job["needs"] == "build" and job["if"] == reader["if"]
    assert job["permissions"] == {"contents": "write"} and job["env"]["SHA"] == "${{ github.sha }}"
    runs = [s.get("run", "") for s in steps(job)]
    write = [r for r in runs if "tools.reader_notebooks" in r]
    assert len(write) == 1 and re.search(
        r'python -m tools\.reader_notebooks "?\$OUT"? --student --branch --commit "?\$SHA"?',
        write[0]), write
    push = [s for s in steps(job) if "git push" in s.get("run", "")]
    assert len(push) == 1 and f"HEAD:{STUDENT_BRANCH}" in push[0]["run"]
    out = next(s for s in steps(job) if s.get("run") == write[0])["env"]["OUT"]
    assert out.endswith("/student-notebooks") and push[0]["working-directory"] == out
    download = [s for s in steps(job) if s.get("uses", "").startswith("actions/download-artifact")]
    assert download and download[0]["with"]["path"] == "_build/reader"
