"""The best-supported answer first (issue 46): every grounded candidate scored once, beside the others, then
shown by score in two tiers: readings, and "also in the passages" with the sentence that states each."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from ambigdemo.building.train_verifier import shown_tiers
from ambigdemo.cli.ask import render_text
from ambigdemo.evaluation import funnel, readings
from ambigdemo.evaluation.readings import right
from ambigdemo.stages.question import Question
from ambigdemo.stages.answers import names_subject, same_answer
from ambigdemo.stages.reader.prompts import closed_book_turn
from ambigdemo.stages.reader.select import subject_named
from ambigdemo.stages.reader.verifier import FEATURES, Verifier, relate, tiers
from ambigdemo.stages.reader.verify import evidence, of_another, rank_as_asked, ranks, ranks_otherwise
from ambigdemo.text import normalize_answer
from ambigdemo.types import Also, Candidate, Edit, Interpretation, Passage, Result
from ambigdemo.ui import render


def passage(title: str, text: str, score: float = 0.7) -> Passage:
    return Passage(f"{title}#0", title, text, score)


@pytest.fixture(scope="module")
def scored(pipeline):
    """The app with the score fitted for its reader (the 0.5B's, in tests) choosing, without the paragraph."""
    return pipeline.with_options(verifier="on", use_generator=False)


def test_a_sentence_ranking_the_answer_another_way_is_evidence_against_it():
    longest = Question.of("What is the longest river in Africa?")
    assert ranks_otherwise(longest, "Zambezi", passage("Zambezi", "The Zambezi is the fourth-longest river in Africa."))
    assert not ranks_otherwise(longest, "Nile", passage("Nile", "The Nile is the longest river in Africa."))
    assert ranks_otherwise(Question.of("What is the largest ocean?"), "Arctic Ocean",
                           passage("Arctic Ocean", "The Arctic Ocean is the smallest of the five oceans."))
    first = Question.of("Who was the first president of the United States?")
    assert ranks_otherwise(first, "Abraham Lincoln", passage("Abraham Lincoln", "Abraham Lincoln was the 16th president of the United States."))
    assert not ranks_otherwise(first, "George Washington", passage("George Washington", "George Washington was the first president of the United States."))
    assert not ranks_otherwise(Question.of("Who wrote Hamlet?"), "Shakespeare", passage("Hamlet", "Hamlet is the longest play by Shakespeare."))
    second = Question.of("What is the second-largest city of Russia?")
    assert ranks("What is the second-largest city of Russia?") == {"second-largest"}
    assert ranks_otherwise(second, "Moscow", passage("Moscow", "Moscow is the capital and largest city of Russia."))
    assert not ranks_otherwise(second, "Saint Petersburg", passage("Saint Petersburg", "Saint Petersburg is the second-largest city in Russia."))


def test_the_place_a_sentence_ranks_the_answer_at_is_read_by_the_question_s_measure_and_words():
    """The corpus's own sentences: a synonym of the asked measure counts ("most populous" for "largest"), another
    measure does not ("oldest"), the ranking followed by the question's words is read, and a name after "after" is
    ranked above."""
    australia = Question.of("What is the largest city in Australia?")
    melbourne = passage("Melbourne", "Melbourne is the capital and most populous city of the Australian state of Victoria "
                                     "and the second-most populous city in Australia.")
    assert rank_as_asked(australia, "Melbourne", melbourne) == -1
    assert rank_as_asked(australia, "Sydney", passage("Sydney", "Sydney is the capital city of the state of New South "
                                                                "Wales and the most populous city in Australia.")) == 1
    africa = Question.of("What is the largest city in South Africa?")
    cape_town = passage("Cape Town", "Cape Town is the oldest city in South Africa. Cape Town is the country's "
                                     "second-largest city by population, after Johannesburg.")
    assert rank_as_asked(africa, "Cape Town", cape_town) == -1
    assert rank_as_asked(africa, "Johannesburg", cape_town) == 1
    assert rank_as_asked(Question.of("Who was the first Mughal emperor?"), "Humayun",
                         passage("Humayun", "Humayun was the second Mughal emperor.")) == -1
    assert rank_as_asked(Question.of("Who wrote Hamlet?"), "Shakespeare", passage("Hamlet", "Hamlet is the longest play by Shakespeare.")) == 0
    assert rank_as_asked(Question.of("What is the smallest country in the world?"), "Monaco",
                         passage("Monaco", "Monaco is the second smallest sovereign state in the world, after Vatican City.")) == -1
    astana = passage("Astana", "With a population of 1,622,245, it is the second-largest in the country after Almaty.")
    assert rank_as_asked(Question.of("What is the second-largest city in Kazakhstan?"), "Almaty", astana) == -1  # "the country"


def test_a_ranking_word_before_is_ranks_the_name_after_it_and_the_answer_s_other_names_do_not_hide_it():
    """"its largest city is X" ranks X and not a name before it; "X, Y or Z is the longest" ranks X."""
    nepal = passage("Nepal", "The country's capital is Lalitpur, while its largest city is Kathmandu.")
    largest, second = Question.of("What is the largest city in Nepal?"), Question.of("What is the second-largest city in Nepal?")
    assert rank_as_asked(largest, "Kathmandu", nepal) == 1 and rank_as_asked(second, "Kathmandu", nepal) == -1
    assert rank_as_asked(largest, "Lalitpur", nepal) == 0
    rhine = passage("Rhine", "The Rhine, Rhein or Rhin is the longest river in Germany.")
    assert rank_as_asked(Question.of("What is the second-longest river in Germany?"), "Rhine", rhine) == -1
    edinburgh = passage("Scotland", "Its capital is Edinburgh, whilst Glasgow is the largest city.")
    assert rank_as_asked(Question.of("What is the largest city in Scotland?"), "Edinburgh", edinburgh) == 0
    uk = passage("United Kingdom", "The capital and largest city of England and the UK is London; Edinburgh, Cardiff and "
                                   "Belfast are the national capitals of Scotland, Wales and Northern Ireland, respectively.")
    second_uk = Question.of("What is the second-largest city in the United Kingdom?")
    assert rank_as_asked(second_uk, "London", uk) == -1  # the name after "is", past the place's own names
    assert rank_as_asked(second_uk, "London", passage("England", "It has nine million inhabitants in its largest city, London.")) == -1
    kazakhstan = passage("Kazakhstan", "The capital is Astana, and the country's largest city and principal cultural and "
                                       "economic center is Almaty, which served as the capital until 1997.")
    second_kz = Question.of("What is the second-largest city in Kazakhstan?")
    assert rank_as_asked(second_kz, "Almaty", kazakhstan) == -1 and rank_as_asked(second_kz, "Astana", kazakhstan) == 0
    spain = passage("Spain", "Seville is the largest city in the region and its capital is Madrid.")
    assert rank_as_asked(Question.of("What is the largest city in the region?"), "Seville", spain) == 1  # "its" opens a clause


def test_an_answer_named_by_part_of_a_longer_name_or_without_its_generic_word_is_still_the_one_ranked():
    """"Aisha bint Abi Bakr was the third wife" ranks Aisha ("Abi Bakr" is not another subject), and "The Godavari is
    India's second longest river" ranks the Godavari River."""
    aisha = passage("Aisha", "Aisha bint Abi Bakr was the third and youngest wife of Islamic prophet Muhammad.")
    assert rank_as_asked(Question.of("Who was the first wife of Muhammad?"), "Aisha", aisha) == -1
    godavari = passage("Godavari River", "The Godavari is India's second longest river after the Ganges River.")
    assert rank_as_asked(Question.of("What is the third-longest river in India?"), "Godavari River", godavari) == -1
    assert rank_as_asked(Question.of("What is the second-longest river in India?"), "Godavari River", godavari) == 1


def test_the_question_s_word_related_to_another_name_is_evidence_against_it():
    capital = Question.of("What is the capital of Australia?")
    assert of_another(capital, "Melbourne", passage("Melbourne", "Melbourne is the capital of Victoria."))
    assert not of_another(capital, "Canberra", passage("Canberra", "Canberra is the capital of Australia."))
    assert not of_another(capital, "Canberra", passage("Canberra", "Canberra is the capital city of Australia, not of Victoria."))
    assert not of_another(Question.of("Who wrote Hamlet?"), "Shakespeare", passage("Hamlet", "Hamlet is a tragedy by Shakespeare."))


def test_relative_features_compare_each_candidate_with_the_question_s_best():
    row = {"rank_asked": 0.0, "rank_other": 0.0}
    rows = relate([{**row, "prior": -1.0, "support": 0.7, "coverage": 0.5},
                   {**row, "prior": -4.0, "support": 1.1, "coverage": 1.0}], ["Perth", "Darwin"])
    assert [r["prior_gap"] for r in rows] == [0.0, -3.0]
    assert [round(r["support_gap"], 6) for r in rows] == [-0.4, 0.0]
    assert [r["coverage_gap"] for r in rows] == [-0.5, 0.0], "the sentence holding less of the question falls short"


def test_an_answer_one_passage_ranks_at_another_place_is_ranked_otherwise_wherever_it_is_read():
    """Jakarta's own lead calls it the largest city: asked for the second-largest, its reading from a passage that
    does not rank it counts against it too; an answer some passage ranks as asked keeps each passage's verdict."""
    def row(asked: float, other: float) -> dict[str, float]:
        return {"rank_asked": asked, "rank_other": other, "prior": 0.0, "support": 0.0, "coverage": 0.0}

    rows = relate([row(0, 1), row(0, 0), row(0, 0)], ["Jakarta", "jakarta", "Surabaya"])
    assert [r["rank_other"] for r in rows] == [1.0, 1.0, 0.0]
    rows = relate([row(0, 1), row(1, 0)], ["Almaty", "Almaty"])
    assert [r["rank_other"] for r in rows] == [1.0, 0.0]


def test_the_evidence_is_the_first_sentence_naming_the_answer():
    text = "Pretoria is a city. It hosts the executive. Cape Town is the legislative capital."
    assert evidence("Cape Town", passage("South Africa", text)) == "Cape Town is the legislative capital."
    assert evidence("Pretoria", passage("Pretoria", text)) == "Pretoria is a city."


def test_a_continuation_s_log_probability_is_what_the_greedy_reply_scored(pipeline):
    """``Context.logp`` scores a given text as ``complete`` scores the tokens it chooses (floats: to 1e-3)."""
    generator = pipeline.reader.generator
    closed = pipeline.reader.closed_book("What is the capital of France?")
    logps: list[float] = []
    reply = closed.fork().complete(8, stop=("\n",), logps=logps)
    assert reply.strip()
    assert closed.logp(reply) == pytest.approx(sum(logps), abs=1e-3)
    assert closed.logp(reply) > closed.logp("Ouagadougou")
    assert len(closed) == len(generator.encode(closed_book_turn(generator.chat, "What is the capital of France?"))), "logp leaves the context as it was"
    whole = generator.context(closed_book_turn(generator.chat, "What is the capital of France?"))
    assert whole.logp(reply) == pytest.approx(closed.logp(reply), abs=1e-3), "the cached system turn changes nothing"
    followed = closed.fork()
    assert followed.follow(reply) == pytest.approx(sum(logps), abs=1e-3)
    assert len(followed) == len(closed) + len(generator.encode(reply)), "follow extends the context with the text"
    assert followed.logits.shape == closed.logits.shape


def test_the_replay_takes_the_best_scored_first_and_keeps_the_rest_as_also():
    """p = sigmoid(10 score - 5): 0.12, 0.98 and 0.5 for the three candidates, read in this order."""
    base = {n: 0.0 for n in FEATURES}
    record = {"question": "q", "gold": [["Alpha"], ["Beta"]], "candidates": [
        {"text": t, "likeliest": True, "right": ok, "features": {**base, "score": s}}
        for t, s, ok in [("Gamma", 0.3, False), ("Alpha", 0.9, True), ("Beta", 0.5, True)]]}
    score = Verifier(("score",), (0.0,), (1.0,), (10.0,), -5.0, threshold=0.9, more=1.0, also=0.3)
    assert shown_tiers(record, score) == {"needed": 1, "gold": 2, "wrong": 0, "either": 2, "also": 1}
    assert shown_tiers(record, replace(score, threshold=0.0, more=0.0)) == {"needed": 2, "gold": 2, "wrong": 1, "either": 2, "also": 0}
    assert shown_tiers(record, replace(score, also=1.0)) == {"needed": 1, "gold": 2, "wrong": 0, "either": 1, "also": 0}


def test_once_a_list_gives_a_reading_its_other_names_need_only_the_listed_threshold():
    """A passage's reply (Brazil) and the other names of its list (Paraguay, Peru): when one of them is a reading, the
    others need ``listed``, not what a further reading needs; a name of another passage's list (Chile), or with no
    list, still needs ``more``, and so does a list whose name only repeats another passage's reading. A name scored
    above the list's reading is taken too, and an answer under "also" that a list's name now reads is not shown twice."""
    score = Verifier(("score",), (0.0,), (1.0,), (1.0,), 0.0, threshold=0.3, more=0.8, also=0.1, listed=0.3)
    keys = ["Brazil", "Paraguay", "Peru", "Chile", "Peru", "Ecuador"]
    scores = [0.85, 0.6, 0.35, 0.6, 0.5, 0.5]
    lists = ["Bolivia#1", "Bolivia#1", "Bolivia#1", "Argentina#0", None, None]
    assert tiers(keys, scores, score, 5, lists) == ["reading", "reading", "reading", "also", "same", "also"]
    assert tiers(keys, scores, replace(score, listed=1.0), 5, lists) == ["reading", "also", "", "also", "also", "also"]
    assert tiers(keys, scores, score, 5) == tiers(keys, scores, replace(score, listed=1.0), 5, lists)
    late = tiers(["Brazil", "Paraguay", "Brazil"], [0.9, 0.7, 0.6], score, 5, [None, "Bolivia#1", "Bolivia#1"])
    assert late == ["reading", "also", "same"], "the list's Brazil only repeats another passage's reading: Paraguay needs more"
    first_below = tiers(["Tanzania", "Uganda"], [0.7, 0.5], replace(score, threshold=0.6, listed=0.2), 5, ["Rwanda#1"] * 2)
    assert first_below == ["reading", "reading"]
    assert tiers(["A", "B", "C"], [0.9, 0.5, 0.5], score, 2, ["x"] * 3) == ["reading", "reading", "also"]


def test_an_also_answer_that_only_rewords_a_shown_one_is_not_listed_again():
    """"Also" lists an answer once: not again in other words of a reading or of an answer already under "also"."""
    score = Verifier(("score",), (0.0,), (1.0,), (1.0,), 0.0, threshold=0.7, more=0.8, also=0.1, listed=0.3)
    keys = ["1946 to 1955", "from 1946 to his overthrow in 1955", "1973", "the year 1973", "Jacob and Wilhelm Grimm"]
    assert tiers(keys, [0.9, 0.6, 0.5, 0.4, 0.3], score, 5) == ["reading", "", "also", "", "also"]
    shorter = tiers(["the Brothers Grimm, Jacob and Wilhelm", "Jacob and Wilhelm Grimm", "Germany"], [0.9, 0.5, 0.4], score, 5)
    assert shorter == ["reading", "", "also"]


def test_beside_a_reading_an_also_answer_needs_also_beside():
    """Beside a reading every "also" answer needs ``also_beside`` whatever its own bar; with no reading its own bar
    holds; a score file without the bar (0) loads and shows as before."""
    score = Verifier(("score",), (0.0,), (1.0,), (1.0,), 0.0, threshold=0.7, more=0.9, also=0.1, also_beside=0.25)
    keys = ["Canberra", "Sydney", "Melbourne"]
    assert tiers(keys, [0.8, 0.3, 0.2], score, 5) == ["reading", "also", ""]
    assert tiers(keys, [0.6, 0.3, 0.2], score, 5) == ["also", "also", "also"]
    assert tiers(keys, [0.8, 0.3, 0.2], replace(score, also_beside=0.0), 5) == ["reading", "also", "also"]
    assert (score.also_bar(0.5, 1), score.also_bar(0.2, 0), score.also_bar(0.2, 2)) == (0.5, 0.2, 0.25)
    assert Verifier.from_json(score.to_json()) == score
    old = {k: v for k, v in score.to_json().items() if k != "also_beside"}
    assert Verifier.from_json(old) == replace(score, also_beside=0.0)


def test_an_also_answer_naming_the_subject_of_a_readings_passage_as_the_reading_does_is_not_listed():
    """Constantine's lead names him twice: the reading "Constantine I" (the words the lead opens with) and the title
    "Constantine the Great" are one answer, so the title is not listed under "also"; another passage's subject, or an
    answer of the same passage that is not its subject, still is."""
    from ambigdemo.stages.reader import LlmReader, ReaderRun

    lead = {"id": "Constantine the Great#0", "title": "Constantine the Great", "score": 0.8,
            "text": "Constantine I, also known as Constantine the Great, was Roman emperor from AD 306 to 337 and the first "
                    "Roman emperor to convert to Christianity. He was born in Naissus."}
    other = {"id": "Licinius#0", "title": "Licinius", "score": 0.7, "text": "Licinius was Roman emperor from 308 to 324."}
    rows = [("Constantine the Great#0", "Constantine I", 0.9), ("Constantine the Great#0", "Constantine the Great", 0.5),
            ("Constantine the Great#0", "Naissus", 0.4), ("Licinius#0", "Licinius", 0.3)]
    record = {"question": "Who was the first Roman emperor to become Christian?", "passages": [lead, other], "also_only": [],
              "candidates": [{"passage": pid, "text": t, "likeliest": True, "rejection": "", "p": None, "sibling": False,
                              "title": False, "features": own, "own": own, "shown": t}
                             for pid, t, own in ((pid, t, {**{n: 0.0 for n in FEATURES}, "score": s}) for pid, t, s in rows)]}
    score = Verifier(("score",), (0.0,), (1.0,), (1.0,), 0.0, threshold=0.7, more=0.9, also=0.1)
    run = ReaderRun.replay(LlmReader(None, verifier=score), record)
    assert [a.text for a in run.found] == ["Constantine I"]
    assert [a.answer for a in run.also] == ["Naissus", "Licinius"]
    passage = Passage(**lead)
    assert names_subject("Constantine I", passage) and names_subject("Constantine the Great", passage)
    assert not names_subject("Naissus", passage) and not names_subject("Constantine", passage)


def test_the_replay_reads_only_the_passages_within_the_gate():
    """Alpha's passage scores 80% of the best: a reader gated at 85% never reads it, as ``relevant`` would not."""
    base = {n: 0.0 for n in FEATURES}
    record = {"question": "q", "gold": [["Alpha"], ["Beta"]], "candidates": [
        {"text": t, "likeliest": True, "right": ok, "features": {**base, "score": s, "ratio": r, "rank": math.log1p(k)}}
        for k, (t, s, r, ok) in enumerate([("Gamma", 0.3, 1.0, False), ("Beta", 0.5, 0.95, True), ("Alpha", 0.9, 0.8, True)])]}
    score = Verifier(("score",), (0.0,), (1.0,), (10.0,), -5.0, threshold=0.0, more=0.0, also=1.0)
    assert shown_tiers(record, score, passages=4) == {"needed": 2, "gold": 2, "wrong": 1, "either": 2, "also": 0}
    assert shown_tiers(record, replace(score, relevance=0.85), passages=4) == {"needed": 1, "gold": 2, "wrong": 1, "either": 1, "also": 0}
    assert shown_tiers(record, score, passages=2) == shown_tiers(record, replace(score, relevance=0.85), passages=4)


def test_the_reading_shown_is_the_best_scored_candidate_and_the_rest_are_also_with_their_sentence(scored):
    """A score that allows one reading shows the best-scored candidate of all those read, whichever passage was
    read first, and every other grounded answer over the "also" threshold under it, each with the sentence
    of its passage that states it."""
    one = replace(scored, reader=replace(scored.reader, verifier=replace(scored.reader.verifier, threshold=0.0, more=1.01, also=0.0)))
    result = one.ask("What is the capital of South Africa?")
    grounded = [c for c in result.candidates if not c.rejection]
    assert len({normalize_answer(c.text) for c in grounded}) >= 2, result.candidates
    assert all(c.p is not None and set(c.features) == set(FEATURES) for c in grounded)
    best = max(grounded, key=lambda c: c.p)
    assert len(result.interpretations) == 1 and result.interpretations[0].p == best.p
    assert right(result.interpretations[0].answer, [best.text])
    assert result.also, "every other answer is shown under the reading"
    shown = normalize_answer(result.interpretations[0].answer)
    by_id = {p.id: p for p in result.passages}
    for also in result.also:
        assert normalize_answer(also.answer) != shown and also.p <= best.p
        assert also.sentence in by_id[also.passage].text and also.answer.lower() in also.sentence.lower()
    data = result.to_dict()
    assert data["interpretations"][0]["p"] == best.p
    assert {"answer", "passage", "sentence", "p"} == set(data["also"][0])


def test_readings_are_ordered_by_score_and_each_reaches_its_threshold(scored):
    result = scored.ask("What is the capital of South Africa?")
    verifier = scored.reader.verifier
    ps = [i.p for i in result.interpretations]
    assert ps and all(p is not None for p in ps)
    assert ps[0] >= verifier.threshold and all(p >= verifier.needs(1) for p in ps[1:])
    assert all(a.p >= verifier.also and a.p < verifier.needs(len(ps)) or len(ps) >= scored.reader.max_answers for a in result.also)


def test_a_question_the_corpus_cannot_answer_stays_unanswered(scored):
    result = scored.ask("Who won season 12 of American Idol?")
    assert result.interpretations == [], [(c.text, c.p) for c in result.candidates]


def test_also_is_rendered_escaped_with_the_answer_marked_and_its_passage_linked():
    hostile = passage("X", "<b>Yes</b> & <script>alert(1)</script> Durban is a port.")
    also = Also("Durban", hostile.id, "<script>alert(1)</script> Durban is a port.", 0.2)
    result = Result("q", [Interpretation("q", "Cape Town", ["Cape#0"], 0.8, Edit(), p=0.9)],
                    passages=[passage("Cape", "Cape Town."), hostile], also=[also])
    html = render.interpretations_html(result)
    assert "Also in the passages" in html and "<script>" not in html
    assert "<mark>Durban</mark>" in html and 'href="#passage-2"' in html
    assert render.also_html([], {}) == ""


def test_the_funnel_and_the_readings_report_count_the_also_tier():
    result = Result("What is the capital of South Africa?", passages=[passage("Pretoria", "Pretoria is a capital.")],
                    interpretations=[Interpretation("q", "Cape Town", [], 0.8, Edit())],
                    also=[Also("Pretoria", "Pretoria#0", "Pretoria is a capital.", 0.2)],
                    candidates=[Candidate("Pretoria#0", "Pretoria")], read=["Pretoria#0"])
    assert funnel.stage(["Pretoria"], result) == "also"
    assert funnel.stage(["Cape Town"], result) == "shown"
    item = {"question": "q", "answers": [["Cape Town"], ["Pretoria"], ["Bloemfontein"]]}
    row = readings.score_item(item, ["Cape Town"], ["Pretoria", "Durban"])
    assert (row["found"], row["found_with_also"]) == (1, 2)
    summary = readings.summarize([row], [{}])
    assert summary["needed_with_also"] == "2 / 3" and summary["also_per_question"] == 2.0


def test_passages_read_for_also_only_add_to_also_and_leave_the_readings_as_they_were(scored):
    """After the readings and the paragraph, ``also_passages`` more retrieved passages are read; their answers
    go under "also" when they reach ``also_further``, and never become readings, even with every threshold at 0."""
    question = "What is the largest desert in the world?"
    verifier = replace(scored.reader.verifier, threshold=0.0, more=0.0, also=1.01, also_further=0.0)
    without = replace(scored, reader=replace(scored.reader, verifier=replace(verifier, also_passages=0), also_passages=0))
    alongside = replace(scored, reader=replace(scored.reader, verifier=replace(verifier, also_passages=4), also_passages=4))
    before, after = without.ask(question), alongside.ask(question)
    assert [(i.answer, i.p) for i in after.interpretations] == [(i.answer, i.p) for i in before.interpretations]
    further = after.read[len(before.read):]
    assert further and len(further) <= 4 and not set(further) & set(before.read)
    assert before.also == [] and after.also, "every answer of a further passage reaches 0"
    assert {a.passage for a in after.also} <= set(further)
    shown = {normalize_answer(i.answer) for i in after.interpretations}
    assert all(normalize_answer(a.answer) not in shown for a in after.also)
    assert "also_done" not in before.timings_ms and after.timings_ms["also_done"] >= after.timings_ms["total"]


def test_while_more_is_read_for_also_the_stream_says_so_until_the_last_is_read(scored):
    """The "also" tier is read after the paragraph: every result the stream yields says it is pending (from the first
    reading on, so a page never looks finished before it is) until the last, which has read the further passages and
    says when (``also_done``)."""
    question = "What is the largest desert in the world?"
    verifier = replace(scored.reader.verifier, also_passages=2, also_further=0.0)
    app = replace(scored, reader=replace(scored.reader, verifier=verifier, also_passages=2))
    states = [(r.also_pending, len(r.read), "summarize" in r.timings_ms, "also_done" in r.timings_ms)
              for r in app.stream(question)]
    assert [waiting for waiting, *_ in states] == [True] * (len(states) - 1) + [False], states
    written = next(read for _, read, summarized, _ in states if summarized)
    assert states[-1][1] > written and states[-1][3], "the further passages are read after the paragraph"


def test_the_page_says_more_may_come_while_also_is_read():
    result = Result("q", [Interpretation("q", "Sahara", ["Sahara#0"], 0.9, Edit())],
                    passages=[passage("Sahara", "The Sahara is a desert.")], also_pending=True)
    assert 'data-testid="also-pending"' in render.interpretations_html(result)
    assert 'data-testid="also-pending"' in render.interpretations_html(replace(result, interpretations=[]))
    assert "also-pending" not in render.interpretations_html(replace(result, also_pending=False))


def test_a_question_without_a_reading_still_shows_what_also_holds():
    result = Result("q", [], passages=[passage("Sahara", "The Sahara is a desert.")], message="No answer found.",
                    also=[Also("Sahara", "Sahara#0", "The Sahara is a desert.", 0.31)])
    html = render.interpretations_html(result)
    assert 'data-testid="no-answer"' in html and "<mark>Sahara</mark>" in html and "too low to be shown as readings" in html
    text = render_text(result, "credit")
    assert text.startswith("No answer found.") and '- Sahara [1]: "The Sahara is a desert."' in text
    assert render_text(replace(result, also=[]), "credit") == "No answer found."


def test_the_other_names_of_a_reply_s_list_are_scored_as_less_likely_replies(scored):
    """Switzerland's lead lists its five neighbours; the model replies one of them. With ``siblings`` the others
    are candidates too, each scored (its log probability after the passage, the feature ``sibling``), and the
    recorded reply stays the model's own."""
    question = "Which countries border Switzerland?"
    plain = replace(scored, reader=replace(scored.reader, siblings=False)).ask(question)
    listed = replace(scored, reader=replace(scored.reader, siblings=True)).ask(question)
    neighbours = {"Italy", "France", "Germany", "Austria", "Liechtenstein"}
    assert not any(c.sibling for c in plain.candidates)
    others = [c for c in listed.candidates if c.sibling]
    assert {c.text for c in others if c.passage == "Switzerland#0"} | {
        c.text for c in listed.candidates if c.passage == "Switzerland#0" and c.likeliest} >= neighbours
    assert all(not c.likeliest and c.p is not None and c.features["sibling"] == 1.0 for c in others if not c.rejection)
    assert [(c.passage, c.text) for c in listed.candidates if c.likeliest] == [(c.passage, c.text) for c in plain.candidates if c.likeliest]

    def named(result) -> set[str]:
        on_screen = " ".join([i.answer for i in result.interpretations] + [a.answer for a in result.also])
        return {n for n in neighbours if n in on_screen}

    assert named(listed) >= named(plain)


def test_a_passage_s_subject_is_read_as_a_reply_when_no_reply_named_it():
    """A lead states its subject's relations ("It is bordered by Latvia to the north"), and asked of Latvia the model
    replies another name or none: the subject, as its title names it, is a candidate when the passage grounds it and
    nothing read from the passage named it yet; never the question's own subject."""
    latvia = Question.of("Which countries border Latvia?")
    lithuania = passage("Lithuania", "Lithuania is a country in Northern Europe. It is bordered by Latvia to the north, "
                                     "Belarus to the east and south, and Poland to the south.")
    assert subject_named(latvia, lithuania, []) == "Lithuania"
    assert subject_named(latvia, lithuania, ["Belarus"]) == "Lithuania"
    assert subject_named(latvia, lithuania, ["Lithuania"]) is None
    assert subject_named(latvia, passage("Latvia", "Latvia is a country in the Baltic region of Northern Europe."), []) is None
    river = Question.of("Which river flows through Guangzhou?")
    pearl = passage("Pearl River (China)", "The Pearl River is famed as the river that flows through Guangzhou.")
    assert subject_named(river, pearl, []) == "Pearl River"


def test_with_titles_every_read_passage_s_subject_is_scored_as_a_less_likely_reply(scored):
    """With ``titles`` each passage read gives its subject as a candidate unless a reply of it named it (scored as the
    model's reply would be, the feature ``title`` set); the model's own replies are what they were without it."""
    question = "Which countries border Latvia?"
    plain = scored.ask(question)
    titled = replace(scored, reader=replace(scored.reader, titles=True)).ask(question)
    assert not any(c.title for c in plain.candidates)
    assert [(c.passage, c.text) for c in titled.candidates if c.likeliest] == [(c.passage, c.text) for c in plain.candidates if c.likeliest]
    subjects = [c for c in titled.candidates if c.title]
    assert subjects and all(not c.likeliest and not c.sibling for c in subjects)
    assert all(c.p is not None and c.features["title"] == 1.0 for c in subjects if not c.rejection)
    by_id = {p.id: p for p in titled.passages}
    q = Question.of(question)
    for pid in titled.read:
        said = [c.text for c in titled.candidates if c.passage == pid and not c.title]
        named = subject_named(q, by_id[pid], said)
        assert (named is not None) == any(c.passage == pid for c in subjects), (pid, named, said)
        assert named is None or any(c.passage == pid and same_answer(normalize_answer(c.text), normalize_answer(named)) for c in subjects)


@pytest.mark.parametrize("later", ["also_titles", "also_branches"])
def test_subjects_and_less_likely_replies_read_after_the_readings_are_for_also_only(scored, later):
    """With ``also_titles`` or ``also_branches`` (a score file's bar) each read passage's subject, or the less likely
    replies (from ``branch_min``) of the passages read, are scored once the readings are chosen: the readings, their
    p's, the passages read, every other candidate's p and every "also" answer are what they were without them, even
    with every threshold at 0, and each one reaching the bar shows under "also" (or names a reading) with its passage's
    sentence."""
    question = "What is the largest desert in the world?"  # four deserts read, two more for "also"
    verifier = replace(scored.reader.verifier, threshold=0.0, more=0.0, also_passages=2, also_further=0.0, branch_passages=0)
    reader = replace(scored.reader, verifier=verifier, also_passages=2, relevance=0.0, max_passages=4, branch_passages=0,
                     branch_min=0.02)
    plain = replace(scored, reader=reader)
    after_readings = replace(scored, reader=replace(reader, verifier=replace(verifier, **{later: 0.0}), **{later: True}))
    before, after = plain.ask(question), after_readings.ask(question)
    apart = (lambda c: c.title) if later == "also_titles" else (lambda c: c.branch)
    assert [(i.answer, i.p) for i in after.interpretations] == [(i.answer, i.p) for i in before.interpretations]
    assert after.read == before.read and not any(apart(c) for c in before.candidates)
    kept = {(c.passage, c.text): c.p for c in after.candidates if not apart(c)}
    assert all(kept[(c.passage, c.text)] == c.p for c in before.candidates), "they move no other candidate's p"
    assert {normalize_answer(a.answer) for a in before.also} <= {normalize_answer(a.answer) for a in after.also}
    scored_later = [c for c in after.candidates if apart(c) and c.p is not None]
    assert scored_later and {c.passage for c in scored_later} <= set(after.read)
    assert later == "also_titles" or all(math.exp(c.features["logp"]) >= reader.branch_min - 1e-9 for c in scored_later)
    shown = {normalize_answer(i.answer) for i in after.interpretations} | {normalize_answer(a.answer) for a in after.also}
    for c in scored_later:
        assert any(same_answer(normalize_answer(c.text), k) for k in shown), c.text
    assert all(a.sentence for a in after.also) and "also_done" in after.timings_ms


def test_also_beside_holds_for_the_answers_read_for_also_only_and_moves_no_reading(scored):
    """The passages read for "also" only, beside a reading: with ``also_beside`` at the best "also" p, the readings and
    every p are what they were and only the answers reaching it stay under "also"; with no reading the same bar holds
    nothing back."""
    question = "What is the largest desert in the world?"
    verifier = replace(scored.reader.verifier, threshold=0.0, more=1.01, also=0.0, also_passages=2, also_further=0.0)
    reader = replace(scored.reader, verifier=verifier, also_passages=2)
    loose = replace(scored, reader=reader).ask(question)
    ps = sorted({a.p for a in loose.also})
    assert loose.interpretations and len(ps) >= 2
    assert any(a.passage in loose.read[-2:] for a in loose.also), "an answer of a passage read for \"also\" only"
    bar = ps[-1]
    beside = replace(scored, reader=replace(reader, verifier=replace(verifier, also_beside=bar))).ask(question)
    assert [(i.answer, i.p) for i in beside.interpretations] == [(i.answer, i.p) for i in loose.interpretations]
    assert [(c.passage, c.text, c.p) for c in beside.candidates] == [(c.passage, c.text, c.p) for c in loose.candidates]
    assert beside.also and all(a.p >= bar for a in beside.also)
    assert {a.answer for a in loose.also if a.p >= bar} <= {a.answer for a in beside.also}
    unread = replace(verifier, threshold=1.01, listed=1.01, also_beside=bar)
    none = replace(scored, reader=replace(reader, verifier=unread)).ask(question)
    assert not none.interpretations and any(a.p < bar for a in none.also)


def test_a_list_that_gives_a_reading_gives_its_other_names_as_readings_from_the_listed_threshold(scored):
    """Switzerland's neighbours, read with the names of the reply's list: with ``listed`` at 0 every grounded name of
    the list that gave a reading is a reading too (up to ``max_answers``), each from the passage that lists it; at 1
    (what any further reading needs, as before) the list's other names wait under "also" unless they reach ``more``."""
    question = "Which countries border Switzerland?"
    reader = replace(scored.reader, siblings=True)

    def ask(listed: float):
        return replace(scored, reader=replace(reader, verifier=replace(reader.verifier, listed=listed))).ask(question)

    strict, listed = ask(1.0), ask(0.0)
    assert [(c.passage, c.text, c.p) for c in strict.candidates] == [(c.passage, c.text, c.p) for c in listed.candidates]
    first = listed.interpretations[0]
    lister = next(c.passage for c in listed.candidates if c.sibling and not c.rejection)
    names = {normalize_answer(c.text) for c in listed.candidates if c.passage == lister and (c.sibling or c.likeliest) and not c.rejection}
    assert len(listed.interpretations) > len(strict.interpretations), [(i.answer, i.p) for i in strict.interpretations]
    on_screen = normalize_answer(" ".join(i.answer for i in listed.interpretations))
    assert normalize_answer(first.answer) not in names or all(n in on_screen for n in names), (names, on_screen)
    assert all(i.p >= reader.verifier.threshold or normalize_answer(i.answer) in names for i in listed.interpretations)
    assert not {normalize_answer(a.answer) for a in listed.also} & {normalize_answer(i.answer) for i in listed.interpretations}
