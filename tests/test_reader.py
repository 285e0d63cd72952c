"""The LLM reader on the real embedded generator (Qwen2.5-Coder-0.5B-Instruct, int4 ONNX) and index.

The everyday questions (assets/everyday.json) are the ones a new user asks; the answers must come
from the embedded Wikipedia passages, each answer checked against the passage that states it.
"""

from __future__ import annotations

import json

import pytest

from ambigdemo.config import ROOT
from ambigdemo.stages.reader import LlmReader, MalformedOutput, occurs_in, parse_reply, relevant
from ambigdemo.text import mentions, normalize_answer
from ambigdemo.types import Passage

EVERYDAY = json.loads((ROOT / "assets" / "everyday.json").read_text(encoding="utf-8"))
# Measured with the embedded 0.5B reader (docs/reader.md): 21 of the 25 right; the 1.5B preset: 23.
EVERYDAY_FLOOR = 19


def _matches(predicted: str, aliases: list[str]) -> bool:
    p = normalize_answer(predicted)
    return any(normalize_answer(a) == p or mentions(predicted, a) or mentions(a, predicted) for a in aliases)


@pytest.fixture(scope="module")
def everyday(pipeline):
    return {item["question"]: pipeline.ask(item["question"]) for item in EVERYDAY}


@pytest.mark.parametrize(
    "reply, answer",
    [
        ("J. K. Rowling", "J. K. Rowling"),
        ("The answer is Paris.", "Paris"),
        ("\"15 April 1912\"\nThe Titanic sank...", "15 April 1912"),
        ("none", ""),
        ("None of the passage says so.", ""),
        ("Nuestra Señora de La Paz", "Nuestra Señora de La Paz"),
        ("Vatican City, an independent microstate enclaved within the city of Rome", "Vatican City"),
        ("15 April 1912, in the North Atlantic", "15 April 1912"),
        ("", None),
        ("Regarded as the greatest singer of all time", None),
        ("Penicillin has been discovered by several actors and many other people in the world", None),
    ],
)
def test_replies_are_read_as_an_answer_none_or_nothing(reply, answer):
    assert parse_reply(reply) == answer


def test_a_what_question_may_have_a_descriptive_answer_a_who_question_a_name():
    assert parse_reply("to change a lead atom into a gold atom", names=False) == "to change a lead atom into a gold atom"
    assert parse_reply("to change a lead atom into a gold atom", names=True) is None


def test_an_answer_must_occur_in_its_passage():
    trump = Passage("Donald Trump#0", "Donald Trump", "Donald John Trump is the 47th president of the United States.")
    basketball = Passage("Basketball#0", "Basketball", "Two teams of five players each oppose one another.")
    assert occurs_in("Donald Trump", trump) and occurs_in("the 47th president", trump)
    assert occurs_in("5", basketball) and occurs_in("five", basketball)
    assert not occurs_in("George Washington", trump)
    assert not occurs_in("Trump Tower", trump)


def test_only_passages_near_the_best_are_read():
    scores = [0.70, 0.66, 0.62, 0.40]
    passages = [Passage(f"p{n}", "t", "x", s) for n, s in enumerate(scores)]
    assert [p.id for p in relevant(passages, 0.9, 0.45, 4)] == ["p0", "p1"]
    assert relevant([Passage("q", "t", "x", 0.38)], 0.9, 0.45, 4) == []


def test_an_answer_not_in_its_passage_is_dropped(pipeline):
    """The real model, asked about a passage that names no inventor, may name one: it is not shown."""
    reader = LlmReader(pipeline.reader.generator)
    passage = Passage("Telephone#0", "Telephone", "A telephone is a device that lets two people talk when they are far apart.", 0.9)
    reading = reader.read("Who invented the telephone?", [passage])
    answers = list(reading.answers())
    assert all(occurs_in(a.text, passage) for a in answers)
    assert answers == [] and (reading.dropped or parse_reply(reading.replies[passage.id]) in ("", None))


def test_unreadable_replies_fall_back_to_the_heuristic_reader_and_say_so(pipeline):
    """With no room to answer, every reply is empty: the pipeline answers with the heuristic and says so."""
    broken = pipeline.with_options()
    broken.reader.max_answer_tokens = 0
    with pytest.raises(MalformedOutput):
        list(broken.reader.read("Who wrote Harry Potter?", pipeline.retriever.search("Who wrote Harry Potter?", 8)).answers())
    result = broken.ask("Who wrote Harry Potter?")
    assert result.source.startswith("heuristic (the LLM's reply was unreadable")
    assert result.interpretations and result.to_dict()["source"] == result.source


@pytest.mark.parametrize("item", [i for i in EVERYDAY if i["question"] in {
    "Who wrote Harry Potter?", "Who was the first man on the moon?", "Who is the president of the United States?",
    "When did the Titanic sink?", "Who painted the Mona Lisa?", "Who wrote Romeo and Juliet?", "What is the capital of Canada?",
    "Who founded Facebook?", "How many players are on a basketball team?", "In which city is the Eiffel Tower?",
    "Who discovered penicillin?",
}], ids=lambda i: i["question"])
def test_everyday_questions_get_their_answer_first(everyday, item):
    result = everyday[item["question"]]
    assert result.source == "llm"
    assert result.interpretations, result.message
    assert _matches(result.interpretations[0].answer, [a for reading in item["answers"] for a in reading])


@pytest.mark.parametrize("question, readings", [
    ("What is the capital of South Africa?", {"Pretoria", "Cape Town"}),
    ("What is the capital of Bolivia?", {"Sucre", "La Paz"}),  # La Paz "is the seat of government of Bolivia"
])
def test_ambiguous_capitals_list_every_reading_with_their_rewrites(everyday, question, readings):
    result = everyday[question]
    answers = {i.answer for i in result.interpretations}
    assert readings <= answers
    assert len({i.question for i in result.interpretations}) == len(result.interpretations)
    assert all(i.edit.added for i in result.interpretations)


def test_a_question_the_corpus_cannot_answer_gets_no_answer(everyday):
    result = everyday["Who sings What a Beautiful Name?"]
    assert not result.interpretations and result.message.startswith("No answer found")


def test_everyday_quality_floor(everyday):
    right = sum(
        bool(everyday[i["question"]].interpretations) == bool(i["answers"])
        and (not i["answers"] or _matches(everyday[i["question"]].interpretations[0].answer, [a for r in i["answers"] for a in r]))
        for i in EVERYDAY
    )
    assert len(EVERYDAY) >= 20
    assert right >= EVERYDAY_FLOOR, f"{right} of {len(EVERYDAY)} everyday questions answered right"


def test_every_llm_answer_is_stated_by_a_passage_it_cites(everyday):
    for result in everyday.values():
        by_id = {p.id: p for p in result.passages}
        for i in result.interpretations:
            assert any(occurs_in(i.answer, by_id[pid]) for pid in i.passages), (result.question, i.answer)


def test_generated_paragraphs_cite_and_name_every_answer(everyday):
    from ambigdemo.stages.summarize import check_paragraph

    answered = [r for r in everyday.values() if r.interpretations]
    generated = [r for r in answered if r.paragraph_source == "generated"]
    for r in generated:
        assert check_paragraph(r.paragraph, r.interpretations, r.passages) is None
    assert len(generated) >= 0.8 * len(answered), f"{len(generated)} of {len(answered)} paragraphs generated"


def test_gold_answers_are_rewritten_by_the_llm_from_their_passage(pipeline):
    """AmbigQA's gold-answers setting (qd-gold) asks the same model the app asks, after the same turns."""
    batman = pipeline.disambiguate("Who played Batman?", ["Michael Keaton", "Zorblax Quuxley"])
    assert [i.answer for i in batman] == ["Michael Keaton", "Zorblax Quuxley"]
    keaton, unknown = batman
    assert keaton.source == "llm" and "1989" in keaton.question, keaton
    assert unknown.source == "prompt" and unknown.question == "Who played Batman?"  # no passage, no checked edit
    assert pipeline.with_options(reader="heuristic").disambiguate("Who played Batman?", ["Michael Keaton"])[0].source != "llm"


def test_an_ordinal_superlative_does_not_answer_a_superlative_question(pipeline):
    from ambigdemo.stages.reader import outranked, superlative_subject

    by_title = {p.title: p for p in pipeline.retriever.index.passages if p.id.endswith("#0")}
    atlantic, pacific = by_title["Atlantic Ocean"], by_title["Pacific Ocean"]
    callisto, ganymede = by_title["Callisto (moon)"], by_title["Ganymede (moon)"]
    assert outranked("What is the largest ocean?", atlantic) and not outranked("What is the largest ocean?", pacific)
    assert outranked("What is the largest moon of Jupiter?", callisto)
    assert superlative_subject("What is the largest moon of Jupiter?", ganymede) == "Ganymede"
    assert superlative_subject("What is the largest moon of Jupiter?", callisto) == ""
    assert superlative_subject("Who discovered penicillin?", ganymede) == ""
    reading = pipeline.reader.read("What is the largest moon of Jupiter?", [ganymede])
    assert reading.take(ganymede, "Titan").text == "Ganymede", "Titan is named there as Saturn's moon"


def test_superlative_questions_get_the_passage_that_says_so(pipeline):
    fast = pipeline.with_options(use_generator=False)
    assert fast.ask("What is the largest ocean?").interpretations[0].answer.endswith("Pacific Ocean")
    assert fast.ask("What is the largest moon of Jupiter?").interpretations[0].answer == "Ganymede"


def test_an_amount_does_not_answer_a_question_about_a_thing(pipeline):
    """A river's length is not an answer to "which river": the reply is dropped, not shown."""
    from ambigdemo.stages.reader import wrong_type

    limpopo = next(p for p in pipeline.retriever.index.passages if p.id == "Limpopo River#0")
    reading = pipeline.reader.read("What is the longest river in Africa?", [limpopo])
    assert "1,750\xa0km" in limpopo.text
    assert reading.take(limpopo, "1,750 km") is None and reading.dropped == ["1,750 km"]
    assert reading.take(limpopo, "Limpopo River").text == "Limpopo River"  # a thing still answers it
    assert not wrong_type("What is the population of Paris?", "what", "2.1 million")  # asks for an amount
    assert not wrong_type("When did World War II end?", "when", "1945")
    assert wrong_type("Who was the first president of the United States?", "who", "1789")


def test_an_answer_must_come_from_a_sentence_about_what_is_asked(pipeline):
    """The Battle of the Atlantic "peaked ... to the end of 1943" does not say when World War II ended;
    Bolivia's largest city is not its capital. Answers from sentences that do say so are kept."""
    by_id = {p.id: p for p in pipeline.retriever.index.passages}
    war = pipeline.reader.read("When did World War II end?", [])
    assert war.take(by_id["Battle of the Atlantic#0"], "1943") is None and war.dropped == ["1943"]
    assert war.take(by_id["Nazi Germany#1"], "May 1945").text == "May 1945"
    bolivia = pipeline.reader.read("What is the capital of Bolivia?", [])
    assert bolivia.take(by_id["Bolivia#1"], "Santa Cruz de la Sierra") is None
    assert bolivia.take(by_id["La Paz#0"], "Santa Cruz de la Sierra") is None  # named there for its population
    assert [bolivia.take(by_id["Bolivia#1"], a).text for a in ("Sucre", "La Paz")] == ["Sucre", "La Paz"]
    nile = pipeline.reader.read("What is the longest river in Africa?", [])
    assert nile.take(by_id["Nile#0"], "Nile").text == "Nile"  # the passage's own subject is exempt


def test_a_misread_passage_is_read_again_in_the_sentences_that_name_what_is_asked(pipeline):
    """Bolivia's passage read whole gives its largest city (dropped); its sentences about the capital,
    read again, give Sucre."""
    from ambigdemo.stages.reader import focused

    question = "What is the capital of Bolivia?"
    bolivia = next(p for p in pipeline.retriever.index.passages if p.id == "Bolivia#1")
    assert focused(question, bolivia).text.startswith("The seat of government is La Paz")
    assert focused("Who discovered penicillin?", bolivia) is None
    reading = pipeline.reader.read(question, pipeline.retriever.search(question))
    found = [a.text for a in reading.answers()]
    assert found and found[0] in ("Sucre", "La Paz") and "Santa Cruz de la Sierra" not in found
    assert "Santa Cruz de la Sierra" in reading.dropped


def test_his_and_her_name_the_passage_subject_for_the_model(pipeline):
    """Fleming's lead says "He shared the 1945 Nobel Prize ... with Howard Florey and Ernst Chain" and then
    "His discovery in 1928 ...": read as written, the model gave the discovery to Ernst Chain."""
    from ambigdemo.stages.reader import name_subject, passage_turn

    fleming = next(p for p in pipeline.retriever.index.passages if p.id == "Alexander Fleming#0")
    named = name_subject(fleming)
    assert "Alexander Fleming's discovery in 1928" in named and named.startswith("Sir Alexander Fleming was")
    assert "He shared" in named, "a sentence opening with He is left as written"
    question = "Who discovered penicillin?"
    reading = pipeline.reader.read(question, pipeline.retriever.search(question))
    assert [a.text for a in reading.answers()][:1] == ["Alexander Fleming"]
    # The ASQA reader's context (titled "Answer") is a paragraph, not a lead: it is given as written.
    assert "London. His discovery" in passage_turn("Answer", "Fleming worked in London. His discovery came in 1928.", question)


def test_a_capital_of_a_part_of_somewhere_else_does_not_answer(pipeline):
    """Melbourne "is the capital ... of the Australian state of Victoria": not the capital of Australia,
    which the corpus never names, so the app says it found no answer. A state's own capital still answers."""
    from ambigdemo.stages.reader import elsewhere

    by_id = {p.id: p for p in pipeline.retriever.index.passages}
    australia = "What is the capital of Australia?"
    for city in ("Melbourne", "Adelaide", "Sydney", "Perth", "Brisbane"):  # "... of South Australia" is a state too
        assert elsewhere(australia, city, by_id[f"{city}#0"]), city
    assert elsewhere("What is the capital of Canada?", "Toronto", by_id["Toronto#0"])
    assert not elsewhere("What is the capital of Canada?", "Ottawa", by_id["Ottawa#0"])
    assert not elsewhere("What is the capital of Texas?", "Austin", by_id["Austin, Texas#0"])
    assert not elsewhere("What is the capital of the United Kingdom?", "London", by_id["London#0"])
    reading = pipeline.reader.read(australia, [])
    assert reading.take(by_id["Melbourne#0"], "Melbourne") is None and reading.dropped == ["Melbourne"]
    assert not pipeline.with_options(use_generator=False).ask(australia).interpretations


def test_a_capital_called_the_seat_of_government_is_asked_for_by_that_name(pipeline):
    """La Paz's passage never calls it the capital of Bolivia, only "the seat of government": that is what
    it is read from, and what its rewrite asks for; Sucre's rewrite keeps its "constitutional" modifier."""
    from ambigdemo.stages.rewrite import _alias_rewrites

    by_id = {p.id: p for p in pipeline.retriever.index.passages}
    question = "What is the capital of Bolivia?"
    la_paz = pipeline.reader.read(question, []).take(by_id["La Paz#0"], "La Paz")
    assert la_paz is not None and la_paz.text == "La Paz"
    assert _alias_rewrites(question, la_paz) == ["What is the seat of government of Bolivia?"]
    sucre = pipeline.reader.read(question, []).take(by_id["Bolivia#1"], "Sucre")
    assert _alias_rewrites(question, sucre) == []  # "The seat of government is La Paz, ... the constitutional capital is Sucre"
    readings = pipeline.rewriter.rewrite(question, [sucre, la_paz], propose=lambda a: question)
    assert [(i.question, i.answer, i.source) for i in readings] == [
        ("What is the constitutional capital of Bolivia?", "Sucre", "modifier"),
        ("What is the seat of government of Bolivia?", "La Paz", "alias"),
    ]


def test_a_superlative_question_is_not_answered_from_a_sentence_that_ranks_nothing(pipeline):
    """The minor planet's definition names comets but calls nothing the smallest; Mercury's lead does."""
    from ambigdemo.stages.reader import unranked

    by_id = {p.id: p for p in pipeline.retriever.index.passages}
    question = "What is the smallest planet in the Solar System?"
    reading = pipeline.reader.read(question, [])
    assert reading.take(by_id["Minor planet#0"], "comets") is None and reading.dropped == ["comets"]
    assert reading.take(by_id["Mercury (planet)#0"], "Mercury").text == "Mercury"
    # Any ranking will do: which superlative is asked is left to outranked and superlative_subject.
    assert not unranked("Which religion has the highest population in africa?", "Islam", by_id["Islam#0"])
    assert not unranked("When is the latest season of Lucifer?", "2021", by_id["Minor planet#0"])
    assert not unranked("Who invented the telephone?", "comets", by_id["Minor planet#0"])


def test_a_year_the_question_names_must_be_in_the_answers_sentence_or_title(pipeline):
    """The World Cup's lead names Spain as the 2026 champion: that does not answer the 2018 one."""
    from ambigdemo.stages.reader import other_year

    by_id = {p.id: p for p in pipeline.retriever.index.passages}
    cup = by_id["FIFA World Cup#0"]
    reading = pipeline.reader.read("Who won the 2018 FIFA World Cup?", [])
    assert reading.take(cup, "Spain") is None and reading.dropped == ["Spain"]
    assert pipeline.reader.read("Who won the 2026 FIFA World Cup?", []).take(cup, "Spain").text == "Spain"
    assert not other_year("Who won the FIFA World Cup?", "Spain", cup)
    assert not other_year("When did the Titanic sink in 1912?", "15 April 1912", by_id["Sinking of the Titanic#0"])


def test_a_superlative_said_later_of_it_has_been_names_the_subject(pipeline):
    """Burj Khalifa's lead: "It has been the tallest building in the world"; the model read the height."""
    from ambigdemo.stages.reader import superlative_subject

    burj = next(p for p in pipeline.retriever.index.passages if p.id == "Burj Khalifa#0")
    question = "What is the tallest building in the world?"
    assert superlative_subject(question, burj) == "Burj Khalifa"
    assert pipeline.reader.read(question, []).take(burj, "829.8 m").text == "Burj Khalifa"


def test_a_measure_asked_for_wants_a_number(pipeline):
    """The speed of light's lead says it is "denoted c": that symbol is not its speed."""
    from ambigdemo.stages.reader import wrong_type

    light = next(p for p in pipeline.retriever.index.passages if p.id == "Speed of light#0")
    reading = pipeline.reader.read("What is the speed of light?", [])
    assert reading.take(light, "c") is None and reading.dropped == ["c"]
    assert reading.take(light, "299792458\xa0m⋅s−1").text == "299792458\xa0m⋅s−1"
    assert not wrong_type("What is the population of Paris?", "what", "2.04 million")
    assert not wrong_type("What is the population of Paris?", "what", "two million")
    assert wrong_type("What is the height of Mount Everest?", "what", "Nepal")


def test_a_length_may_be_given_without_the_word(pipeline):
    """The Nile's lead gives its length as "7,088 kilometers (4,404 mi) long", never saying "length"."""
    nile = next(p for p in pipeline.retriever.index.passages if p.id == "Nile#0")
    reading = pipeline.reader.read("What is the length of the Nile?", [])
    assert reading.take(nile, "7,088 kilometers").text == "7,088 kilometers"
    assert reading.take(nile, "Mediterranean Sea") is None and reading.dropped == ["Mediterranean Sea"]  # not a number


@pytest.mark.parametrize(
    "answer, text, shown",
    [
        ("Graham Chapman", "Monty Python were a British comedy troupe consisting of Graham Chapman, John Cleese, "
         "Terry Gilliam, Eric Idle, Terry Jones and Michael Palin.",
         "Graham Chapman, John Cleese, Terry Gilliam, Eric Idle, Terry Jones and Michael Palin"),
        ("Comorian", "The official languages of Comoros are Comorian, Arabic and French.", "Comorian, Arabic and French"),
        ("Pisa", "Galileo was born in Pisa, Italy, on 15 February 1564.", "Pisa"),  # a place and its country: no list
        ("Nairobi", "Nairobi is the capital and largest city of Kenya.", "Nairobi"),
    ],
)
def test_an_answer_listed_with_others_of_its_kind_is_shown_with_them(pipeline, answer, text, shown):
    from ambigdemo.stages.reader import listed_with

    assert listed_with(answer, Passage("x", "x", text), pipeline.finder.nlp) == shown


def test_the_model_reply_naming_one_of_a_list_answers_with_the_list(pipeline):
    """The Monty Python lead names the six in one list: a reply naming one is shown as all six; for a
    superlative question ("the most famous member") the reply stays the one the model named."""
    python = next(p for p in pipeline.retriever.index.passages if p.id == "Monty Python#0")
    reading = pipeline.reader.read("Who were the members of Monty Python?", [])
    assert reading.take(python, "John Cleese").text.startswith("Graham Chapman, John Cleese,")
    reading = pipeline.reader.read("Who was the most famous member of Monty Python?", [])
    assert reading.take(python, "John Cleese").text == "John Cleese"
