"""The ONNX embedder and generator and the FAISS passage index, on the real embedded preset."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from ambigdemo.presets.artifacts import BUILD_COMMAND, PresetPaths, verify
from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.manifest import MANIFEST, ArtifactError
from ambigdemo.runtimes import lexical
from ambigdemo.runtimes.index import PASSAGES, VECTORS, PassageIndex
from ambigdemo.runtimes.onnx import Message, OnnxEmbedder
from ambigdemo.runtimes.specs import EmbedderSpec, GeneratorSpec
from ambigdemo.types import Passage


@pytest.fixture(scope="module")
def embedder(pipeline):
    return pipeline.retriever.embedder


@pytest.fixture(scope="module")
def generator(pipeline):
    assert pipeline.summarizer.generator is not None, "the default config loads the generator"
    return pipeline.summarizer.generator


@pytest.fixture(scope="module")
def index(pipeline):
    return pipeline.retriever.index


# --- embedder -------------------------------------------------------------------------------------


def test_embedder_vectors_are_unit_norm(embedder):
    texts = ["When was the Eiffel Tower built?", "x", "Ünïcödé 🗼 text", "A " * 400]
    vectors = embedder.encode(texts)
    assert vectors.shape == (len(texts), embedder.dim)
    assert vectors.dtype == np.float32
    assert np.all(np.isfinite(vectors))
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_embedder_paraphrase_is_closer_than_unrelated(embedder):
    query, paraphrase, unrelated = embedder.encode(
        [
            "When was the Eiffel Tower built?",
            "In what year was the Eiffel Tower constructed?",
            "Bananas are a good source of potassium.",
        ]
    )
    close, far = float(query @ paraphrase), float(query @ unrelated)
    assert close > 0.7, close
    assert close > far + 0.3, (close, far)


def test_embedder_batches_do_not_change_vectors(embedder):
    texts = [f"Question number {i} about {'long ' * i}topics?" for i in range(7)]
    together = embedder.encode(texts, batch_size=32)
    one_by_one = np.vstack([embedder.encode([t]) for t in texts])
    np.testing.assert_allclose(together, one_by_one, atol=1e-4)


def test_embedder_matches_index(embedder, index):
    assert index.vectors.d == embedder.dim
    assert index.embedder_id, "the index manifest names the embedder it was built with"


# --- embedder.json --------------------------------------------------------------------------------

QUESTIONS = ["When was the Eiffel Tower built?", "Who wrote Nineteen Eighty-Four?", "x"]


def configured(preset, tmp_path: Path, spec: dict | str | None) -> Path:
    """The embedded embedder's model and tokenizer (linked) with ``spec`` as its embedder.json."""
    folder = tmp_path / "embedder"
    folder.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (folder / name).symlink_to(preset.embedder / name)
    if spec is not None:
        (folder / EmbedderSpec.FILE).write_text(spec if isinstance(spec, str) else json.dumps(spec))
    return folder


def test_without_embedder_json_the_embedder_mean_pools_without_prefixes(embedder):
    assert embedder.spec == EmbedderSpec(pooling="mean", query_prefix="", passage_prefix="", max_length=256)
    np.testing.assert_array_equal(embedder.encode_query(QUESTIONS), embedder.encode(QUESTIONS))
    np.testing.assert_array_equal(embedder.encode_passages(QUESTIONS), embedder.encode(QUESTIONS))


def test_cls_pooling_is_the_normalized_first_token_state(preset, tmp_path, embedder):
    cls = OnnxEmbedder(configured(preset, tmp_path, {"pooling": "cls"}))
    vectors = cls.encode(QUESTIONS)
    for text, vector in zip(QUESTIONS, vectors):
        ids = np.array([cls.tokenizer.encode(text).ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        first = cls.session.run(None, feed)[0][0, 0]  # last_hidden_state of [CLS], by hand
        np.testing.assert_allclose(vector, first / np.linalg.norm(first), atol=1e-5)
    cosines = (vectors * embedder.encode(QUESTIONS)).sum(axis=1)
    assert cosines.max() < 0.95, cosines  # not the mean-pooled vectors


def test_prefixes_apply_to_queries_and_passages_only(preset, tmp_path, embedder):
    spec = {"query_prefix": "query: ", "passage_prefix": "passage: ", "max_length": 128, "normalize": True}
    e5 = OnnxEmbedder(configured(preset, tmp_path, spec))
    assert e5.spec == EmbedderSpec(query_prefix="query: ", passage_prefix="passage: ", max_length=128)
    queries = e5.encode_query(QUESTIONS)
    np.testing.assert_allclose(queries, embedder.encode([f"query: {q}" for q in QUESTIONS]), atol=1e-5)
    np.testing.assert_allclose(e5.encode_passages(QUESTIONS), embedder.encode([f"passage: {q}" for q in QUESTIONS]), atol=1e-5)
    np.testing.assert_allclose(e5.encode(QUESTIONS), embedder.encode(QUESTIONS), atol=1e-5)
    assert (queries * embedder.encode(QUESTIONS)).sum(axis=1).max() < 0.99  # the prefix moves the query vector


def test_retrieval_encodes_queries_and_indexing_encodes_passages(embedder, index, tmp_path):
    from ambigdemo.presets.indexing import build_index
    from ambigdemo.stages.retrieve import Retriever

    class Spy:
        def __init__(self, inner):
            self.inner, self.dim, self.calls = inner, inner.dim, []

        def __getattr__(self, name):
            def call(texts, *args, **kwargs):
                self.calls.append(name)
                return getattr(self.inner, name)(texts, *args, **kwargs)

            return call

    spy = Spy(embedder)
    Retriever(spy, index).batch_search(QUESTIONS, 2)
    build_index(index.passages[:3], spy, tmp_path / "index", "spy", "test", progress=False)
    assert spy.calls == ["encode_query", "encode_passages"]


def test_index_build_shows_one_bar_named_for_its_work(embedder, index, tmp_path, capsys):
    """The first start's index step: one bar, "embed passages", counting passages (not "index index")."""
    from ambigdemo.presets.indexing import build_index

    build_index(index.passages[:3], embedder, tmp_path / "index", "embedded", "test", progress=True)
    bars = {line.split(":")[0] for line in capsys.readouterr().err.replace("\r", "\n").splitlines() if line.strip()}
    assert bars == {"embed passages"}, bars


@pytest.mark.parametrize(
    "content, problem",
    [
        ("{not json", "is malformed: Expecting property name"),
        ('["cls"]', "expected a JSON object, got list"),
        ('{"pooling": "max"}', "pooling must be one of ('mean', 'cls'), got 'max'"),
        ('{"poolling": "cls"}', "unknown key 'poolling'"),
        ('{"max_length": 0}', "max_length must be a positive integer, got 0"),
        ('{"query_prefix": 1}', "query_prefix must be a string, got 1"),
        ('{"normalize": "yes"}', "normalize must be true or false, got 'yes'"),
    ],
)
def test_malformed_embedder_json_names_the_file(preset, tmp_path, content, problem):
    folder = configured(preset, tmp_path, content)
    with pytest.raises(ArtifactError) as exc:
        OnnxEmbedder(folder)
    assert str(folder / "embedder.json") in str(exc.value) and problem in str(exc.value)


def test_malformed_generator_json_names_the_file(tmp_path):
    (tmp_path / GeneratorSpec.FILE).write_text('{"chat_format": "chatml"}')
    with pytest.raises(ArtifactError, match=r"generator.json is malformed: missing key 'eos_token_ids'"):
        GeneratorSpec.load(tmp_path)
    (tmp_path / GeneratorSpec.FILE).unlink()
    with pytest.raises(ArtifactError, match=r"generator.json cannot be read"):
        GeneratorSpec.load(tmp_path)


# --- generator ------------------------------------------------------------------------------------


def test_generator_streams_growing_text_and_stops_at_the_token_limit(generator):
    limit = 12
    chunks = list(generator.stream([Message("user", "Write a long story about a cat.")], max_new_tokens=limit))
    assert 1 <= len(chunks) <= limit
    assert all(isinstance(c, str) for c in chunks)
    assert chunks[-1].strip(), "the model wrote something"
    for before, after in zip(chunks, chunks[1:]):
        assert len(after) >= len(before) - 1  # grows token by token (a byte-level merge may rewrite the tail)


def test_generator_stops_at_end_of_turn(generator):
    limit = 60
    chunks = list(generator.stream([Message("user", "Reply with one word: yes or no. Is the sky blue?")], max_new_tokens=limit))
    assert chunks and len(chunks) < limit, "an end-of-turn token ends the stream before the limit"
    assert "<|im_end|>" not in chunks[-1]


def test_generator_stop_strings_cut_the_text(generator):
    messages = [Message("user", "Describe Paris in two sentences.")]
    full = generator.generate(messages, max_new_tokens=30)
    words = full.split()
    assert len(words) >= 4, full
    stop = " " + words[2]
    cut = full.index(stop)
    stopped = list(generator.stream(messages, max_new_tokens=30, stop=(stop,)))
    assert stopped[-1] == full[:cut]
    assert stop not in stopped[-1]


def test_generator_is_deterministic_and_scores_likely_text_higher(generator):
    messages = [Message("user", "Say hello.")]
    assert generator.generate(messages, 8) == generator.generate(messages, 8)
    likely, unlikely = generator.score(messages, "Hello!"), generator.score(messages, "zebra quantum fjord")
    assert 0 < likely < unlikely


def test_a_forked_context_continues_exactly_as_a_fresh_prompt(generator):
    """The reader reads its worked example once and forks the cache per passage: that must change nothing."""
    prefix = "<|im_start|>system\nYou answer in one word.<|im_end|>\n"
    turn = "<|im_start|>user\nWhat colour is the sky?<|im_end|>\n<|im_start|>assistant\n"
    base = generator.context(prefix)
    before = len(base)
    forked = list(generator.decode(base.fork().extend(turn), 8))[-1]
    fresh = list(generator.decode(generator.context(prefix + turn), 8))[-1]
    assert forked == fresh and forked.strip()
    assert len(base) == before, "forks leave the shared prefix as it was"
    again = list(generator.decode(base.fork().extend(turn), 8))[-1]
    assert again == forked


def test_alternatives_are_the_less_likely_replies_with_their_probabilities(generator):
    """Each alternative starts with the next likeliest first token, continues greedily and is scored by
    the product of its tokens' probabilities, as scoring the same text after the prompt gives."""
    messages = [Message("user", "Name one primary colour. Reply with the word only.")]
    start = generator.context(generator.render(messages))
    before = len(start)
    greedy = list(generator.decode(start.fork(), 8, stop=("\n",)))[-1]
    alternatives = start.alternatives(4, 8, stop=("\n",))
    assert len(start) == before, "the context the alternatives start from is left as it was"
    assert len(alternatives) == 3 and all(0 < p < 1 for _, p, _ in alternatives)
    texts = [text for text, _, _ in alternatives]
    assert greedy not in texts and len(set(texts)) == 3
    for text, p, branch in alternatives:
        assert generator.encode(text) == branch.ids[before:], "the branch's context ends with its reply"
        assert p == pytest.approx(math.exp(-generator.score(messages, text) * len(generator.encode(text))), rel=1e-3)


def test_alternatives_whose_first_token_is_under_least_are_not_continued(generator):
    """No continuation can be likelier than its first token, so one under ``least`` is not decoded: with ``least``
    between the 2nd and 3rd likeliest first tokens' probabilities only the 2nd is continued, and none above the 2nd's."""
    start = generator.context(generator.render([Message("user", "Name one primary colour. Reply with the word only.")]))
    first = np.sort(np.exp(start.logits - start.logits.max()) / np.exp(start.logits - start.logits.max()).sum())[::-1]
    every = start.alternatives(4, 8, stop=("\n",))
    assert [text for text, _, _ in start.alternatives(4, 8, ("\n",), least=(first[1] + first[2]) / 2)] == [every[0][0]]
    assert start.alternatives(4, 8, ("\n",), least=(first[0] + first[1]) / 2) == []


def test_the_exported_head_runs_on_the_last_positions_only(generator):
    """Generation reads one row of logits; scoring asks for every position it needs."""
    assert generator.slices_logits
    ids = generator.encode("The Eiffel Tower is in Paris.")
    last, _ = generator._forward(ids, generator._empty_cache(), 0)
    every, _ = generator._forward(ids, generator._empty_cache(), 0, keep=len(ids))
    assert last.shape[0] == 1 and every.shape[0] == len(ids)
    assert abs(last[-1] - every[-1]).max() < 1e-3


# --- index ----------------------------------------------------------------------------------------


def test_index_search_finds_the_passage_with_the_fact(pipeline):
    passages = pipeline.retriever.search("When was the Eiffel Tower built?", 8)
    assert len(passages) in (8, 9) and sum(p.lexical for p in passages) == 1
    assert "Eiffel Tower" in passages[0].title
    assert any("Eiffel Tower" in p.text and "1889" in p.text for p in passages)
    scores = [p.score for p in passages]
    assert scores == sorted(scores, reverse=True)
    assert all(-1.0001 <= s <= 1.0001 for s in scores)
    assert len({p.id for p in passages}) == len(passages)


def test_index_batch_search_matches_single_search(pipeline):
    questions = ["When was the Eiffel Tower built?", "What is the capital of the Netherlands?"]
    batch = pipeline.retriever.batch_search(questions, 5)
    for q, hits in zip(questions, batch):
        single = pipeline.retriever.search(q, 5)
        assert [p.id for p in hits] == [p.id for p in single]


def test_index_manifest_counts_match(index, preset):
    manifest = json.loads((preset.index / MANIFEST).read_text())
    assert manifest["count"] == len(index.passages) == index.vectors.ntotal == index.lexical.count
    assert {PASSAGES, VECTORS} < set(manifest["files"])
    assert {f.split("/")[0] for f in set(manifest["files"]) - {PASSAGES, VECTORS}} == {lexical.FOLDER}


# --- lexical retrieval (BM25) ---------------------------------------------------------------------


def test_bm25_ranks_by_the_question_s_rare_words_and_saves_the_same_bytes(tmp_path):
    passages = [
        Passage("Island#0", "Island", "An island is land surrounded by water, and many islands form archipelagos."),
        Passage("Fiji#0", "Fiji", "Fiji is a country of more than 330 islands in the South Pacific."),
        Passage("Cape Verde#0", "Cape Verde", "Cape Verde is an archipelago of ten islands in Macaronesia."),
        Passage("Paris#0", "Paris", "Paris is the capital and largest city of France."),
    ]
    built = lexical.LexicalIndex.build(passages)
    ranked = built.ranked(["Which islands are in Macaronesia?", "What is the?", "Quelle est la capitale de la France ?"], 3)
    assert ranked[0][0][0] == 2 and ranked[0][0][1] > ranked[0][1][1] > 0, "the rare word outweighs the common one"
    assert all(score == 0 for _, score in ranked[1]), "stopwords match nothing"
    assert ranked[2][0][0] == 3
    files = built.save(tmp_path / "a")
    lexical.LexicalIndex.build(passages).save(tmp_path / "b")
    assert files and all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    assert lexical.LexicalIndex.load(tmp_path / "a", len(passages)).ranked(["Macaronesia"], 3) == built.ranked(["Macaronesia"], 3)


def test_retrieval_marks_bm25_s_best_passage_and_adds_it_when_the_dense_top_lacks_it(pipeline, embedder, index):
    from ambigdemo.presets.indexing import passage_text

    questions = ["Which islands make up Macaronesia?", "When was the Eiffel Tower built?", "Who founded Walmart?", "What is the?"]
    added = marked = 0
    for question, found in zip(questions, pipeline.retriever.batch_search(questions, 8)):
        query = embedder.encode_query([question])[0]
        dense = index.search(query[None, :], 8)[0]
        assert [p.id for p in found[:8]] == [p.id for p in dense]
        best = [index.passages[row].id for row, score in index.lexical.ranked([question], 1)[0] if score > 0]
        assert [p.id for p in found if p.lexical] == best
        if len(found) == 9:
            extra = found[8]
            assert extra.lexical and extra.id not in {p.id for p in dense}
            assert extra.score == pytest.approx(float(embedder.encode_passages([passage_text(extra)])[0] @ query), abs=1e-3)
            assert extra.score <= dense[-1].score + 1e-6
            added += 1
        else:
            marked += bool(best)
    assert added and marked, "one question's best BM25 passage is among the dense top, another's is added"


def test_preset_verifies(preset):
    verify(preset)  # every file of the built preset matches its manifest


# --- broken artifacts -----------------------------------------------------------------------------


@pytest.fixture
def index_copy(preset, tmp_path) -> Path:
    folder = tmp_path / "index"
    shutil.copytree(preset.index, folder)
    return folder


def _assert_names(exc: pytest.ExceptionInfo, path: Path) -> None:
    message = str(exc.value)
    assert os.fspath(path) in message, message
    assert BUILD_COMMAND in message, message
    assert BUILD_COMMAND == "python -m ambigdemo build"


def test_truncated_index_file_raises_artifact_error(index_copy):
    target = index_copy / VECTORS
    with open(target, "r+b") as fh:
        fh.truncate(target.stat().st_size // 2)
    with pytest.raises(ArtifactError) as exc:
        PassageIndex.load(index_copy)
    _assert_names(exc, target)
    assert "truncated" in str(exc.value)


def test_corrupted_byte_in_index_file_raises_artifact_error(index_copy):
    target = index_copy / VECTORS
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(ArtifactError) as exc:
        PassageIndex.load(index_copy)
    _assert_names(exc, target)
    assert "sha256" in str(exc.value)


def test_corrupted_passages_file_raises_artifact_error(index_copy):
    target = index_copy / PASSAGES
    data = bytearray(target.read_bytes())
    data[100] ^= 0x01
    target.write_bytes(bytes(data))
    with pytest.raises(ArtifactError) as exc:
        PassageIndex.load(index_copy)
    _assert_names(exc, target)


def test_missing_manifest_raises_artifact_error(index_copy):
    (index_copy / MANIFEST).unlink()
    with pytest.raises(ArtifactError) as exc:
        PassageIndex.load(index_copy)
    _assert_names(exc, index_copy / MANIFEST)


def test_a_corrupt_or_unreadable_bm25_file_raises_artifact_error(index_copy):
    """A changed byte fails its sha256; rewritten to match the manifest, an unreadable file is reported, not crashed on."""
    from ambigdemo.runtimes.manifest import write_manifest

    target = index_copy / lexical.FOLDER / "params.index.json"
    target.write_text("{not json", encoding="utf-8")
    with pytest.raises(ArtifactError) as exc:
        PassageIndex.load(index_copy)
    _assert_names(exc, target)
    manifest = json.loads((index_copy / MANIFEST).read_text())
    write_manifest(index_copy, list(manifest["files"]), **{k: v for k, v in manifest.items() if k != "files"})
    with pytest.raises(ArtifactError) as exc:
        PassageIndex.load(index_copy)
    _assert_names(exc, index_copy / lexical.FOLDER)


def test_unreadable_index_with_matching_manifest_raises_artifact_error(index_copy):
    """Even when the manifest was rewritten to match, a truncated FAISS file is reported, not crashed on."""
    from ambigdemo.runtimes.manifest import write_manifest

    manifest = json.loads((index_copy / MANIFEST).read_text())
    target = index_copy / VECTORS
    with open(target, "r+b") as fh:
        fh.truncate(target.stat().st_size // 2)
    meta = {k: v for k, v in manifest.items() if k != "files"}
    write_manifest(index_copy, [PASSAGES, VECTORS], **meta)
    with pytest.raises(ArtifactError) as exc:
        PassageIndex.load(index_copy)
    _assert_names(exc, target)


def test_pipeline_load_reports_a_truncated_index(index_copy):
    target = index_copy / VECTORS
    with open(target, "r+b") as fh:
        fh.truncate(100)
    with pytest.raises(ArtifactError) as exc:
        Pipeline.load(Config.from_env(index_dir=index_copy, use_generator=False))
    _assert_names(exc, target)


def test_verify_names_a_corrupt_model_file(preset, tmp_path):
    root = tmp_path / "embedded"
    for name in ("embedder", "generator", "index"):
        (root / name).mkdir(parents=True)
        for f in getattr(preset, name).iterdir():
            # the big generator is linked, not copied; only the embedder's copy is damaged
            (root / name / f.name).symlink_to(f) if name != "embedder" else shutil.copy(f, root / name / f.name)
    target = root / "embedder" / "tokenizer.json"
    data = bytearray(target.read_bytes())
    data[10] ^= 0x20
    target.write_bytes(bytes(data))
    with pytest.raises(ArtifactError) as exc:
        verify(PresetPaths(root))
    _assert_names(exc, target)


def test_banned_tokens_are_those_completing_a_seen_ngram():
    from ambigdemo.runtimes.onnx import banned_tokens

    assert banned_tokens([1, 2, 3, 1, 2], 3) == [3]
    assert banned_tokens([1, 2, 3, 1, 2], 0) == []
    assert banned_tokens([7, 8], 3) == []
    assert sorted(banned_tokens([4, 5, 4, 6, 4], 2)) == [5, 6]


def test_no_repeat_ngram_stops_a_greedy_loop(preset):
    from ambigdemo.runtimes.onnx import OnnxChatGenerator

    messages = [Message("user", "Write the words 'the story of' again and again, thirty times, nothing else.")]
    looping = OnnxChatGenerator(preset.generator)
    guarded = OnnxChatGenerator(preset.generator, no_repeat_ngram=3)
    ids = lambda g: g.tokenizer.encode(g.generate(messages, 40), add_special_tokens=False).ids  # noqa: E731
    trigrams = lambda t: [tuple(t[i : i + 3]) for i in range(len(t) - 2)]  # noqa: E731
    loop = trigrams(ids(looping))
    assert len(set(loop)) < len(loop)  # unguarded greedy decoding repeats itself here
    guarded_trigrams = trigrams(ids(guarded))
    assert guarded_trigrams and len(set(guarded_trigrams)) == len(guarded_trigrams)
