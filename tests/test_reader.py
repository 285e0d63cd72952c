"""The LLM reader on the real embedded generator (Qwen2.5-Coder-0.5B-Instruct, int4 ONNX) and index.

The everyday questions (assets/everyday.json) are the ones a new user asks; the answers must come
from the embedded Wikipedia passages, each answer checked against the passage that states it.
"""

from __future__ import annotations

import json

import pytest

from ambigdemo.evaluation.gold import disambiguate

from ambigdemo.config import ROOT
from ambigdemo.stages.reader import LlmReader, MalformedOutput, relevant
from ambigdemo.stages.reader.recall import parse_reply
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.verify import occurs_in, states
from ambigdemo.text import mentions, normalize_answer
from ambigdemo.types import Passage

EVERYDAY = json.loads((ROOT / "assets" / "everyday.json").read_text(encoding="utf-8"))
# Measured with the embedded 0.5B reader (bench --everyday at e50d8c3, docs/results/bench/everyday-0.5b.json): 24 of the 30 answered right first.
EVERYDAY_FLOOR = 19


def _matches(predicted: str, aliases: list[str]) -> bool:
    p = normalize_answer(predicted)
    return any(normalize_answer(a) == p or mentions(predicted, a) or mentions(a, predicted) for a in aliases)


@pytest.fixture(scope="module")
def everyday(pipeline):
    return {item["question"]: pipeline.ask(item["question"]) for item in EVERYDAY}


@pytest.fixture(scope="module")
def rules(pipeline):
    """The reader with verify's rules choosing (``verifier="off"``): each reply taken, checked and shown in turn,
    which these tests follow one step at a time (the score's choice is tests/test_best_first.py)."""
    return pipeline.with_options(verifier="off")


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
}], ids=lambda i: i["question"])
def test_everyday_questions_get_their_answer_first(everyday, item):
    result = everyday[item["question"]]
    assert result.source == "llm"
    assert result.interpretations, result.message
    assert _matches(result.interpretations[0].answer, [a for reading in item["answers"] for a in reading])


@pytest.mark.parametrize("question, readings", [
    ("What is the capital of South Africa?", {"Pretoria", "Cape Town"}),
])
def test_ambiguous_capitals_show_every_reading_as_a_reading_or_also_in_the_passages(everyday, question, readings):
    """Each capital is shown: as a reading with its own rewrite, or (scored under the readings' threshold) under
    "also in the passages" with the sentence that states it."""
    result = everyday[question]
    answers = {i.answer for i in result.interpretations} | {a.answer for a in result.also}
    assert readings <= answers, (result.interpretations, result.also)
    assert len({i.question for i in result.interpretations}) == len(result.interpretations)
    assert len(result.interpretations) == 1 or all(i.edit.added for i in result.interpretations)


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
            assert any(states(i.answer, by_id[pid]) for pid in i.passages), (result.question, i.answer)


def test_generated_paragraphs_cite_and_name_every_answer(everyday):
    from ambigdemo.stages.summarize import check_paragraph

    answered = [r for r in everyday.values() if r.interpretations]
    generated = [r for r in answered if r.paragraph_source == "generated"]
    for r in generated:
        assert check_paragraph(r.paragraph, r.interpretations, r.passages) is None
    assert len(generated) >= 0.8 * len(answered), f"{len(generated)} of {len(answered)} paragraphs generated"


def test_gold_answers_are_rewritten_by_the_llm_from_their_passage(pipeline):
    """AmbigQA's gold-answers setting (qd-gold) asks the same model the app asks, after the same turns."""
    batman = disambiguate(pipeline, "Who played Batman?", ["Michael Keaton", "Zorblax Quuxley"])
    assert [i.answer for i in batman] == ["Michael Keaton", "Zorblax Quuxley"]
    keaton, unknown = batman
    assert keaton.source == "llm" and "1989" in keaton.question, keaton
    assert unknown.source == "prompt" and unknown.question == "Who played Batman?"  # no passage, no checked edit
    assert disambiguate(pipeline.with_options(reader="heuristic"), "Who played Batman?", ["Michael Keaton"])[0].source != "llm"


def test_an_ordinal_superlative_does_not_answer_a_superlative_question(pipeline, rules):
    from ambigdemo.stages.reader.verify import outranked

    by_title = {p.title: p for p in pipeline.retriever.index.passages if p.id.endswith("#0")}
    atlantic, pacific = by_title["Atlantic Ocean"], by_title["Pacific Ocean"]
    assert outranked(Question.of("What is the largest ocean?"), atlantic) and not outranked(Question.of("What is the largest ocean?"), pacific)
    assert outranked(Question.of("What is the largest moon of Jupiter?"), by_title["Callisto (moon)"])
    assert not outranked(Question.of("Who discovered penicillin?"), atlantic)
    second = Passage("Lyon#0", "Lyon", "Lyon is the second-largest city in the region and the third-largest city in France.")
    assert not outranked(Question.of("What is the second-largest city in the region?"), second)  # the place it asks
    assert outranked(Question.of("What is the largest city in France?"), second)
    reading = rules.reader.read("What is the largest ocean?", [])
    assert reading.take(atlantic, "Atlantic Ocean") is None and reading.dropped == ["Atlantic Ocean"]


def test_a_reply_in_other_words_is_shown_in_its_passages_own_words(pipeline, rules):
    """The model's paraphrase of what its passage states (a hedge added, "to" for "and", a plural) is grounded
    to the passage's words; a reply with a word its passage does not hold beside the others stays rejected."""
    from ambigdemo.stages.reader.verify import in_own_words

    by_id = {p.id: p for p in pipeline.retriever.index.passages}
    wall, canal, polo = by_id["Great Wall of China#0"], by_id["Panama Canal#0"], by_id["Marco Polo#0"]
    assert in_own_words("around the 7th century BC", wall) == "7th century BC"
    assert in_own_words("82 kilometers", canal) == "82-kilometer"
    assert in_own_words("1271 to 1295", polo) == "1271 and 1295"
    assert in_own_words("Qin dynasty", wall) == "Qin dynasty"  # stated as replied: kept as replied
    assert in_own_words("82 miles", canal) == "82 miles"  # "82-kilometer (51-mile)": another word between
    reading = rules.reader.read("When was the Great Wall of China built?", [])
    shown = reading.take(wall, "around the 7th century BC")
    assert shown is not None and shown.text == "7th century BC"
    assert reading.take(canal, "82 miles") is None and reading.candidates[-1].rejection == "not in its passage"


def test_superlative_questions_get_the_passage_that_says_so(pipeline):
    fast = pipeline.with_options(use_generator=False)
    assert fast.ask("What is the largest ocean?").interpretations[0].answer.endswith("Pacific Ocean")


def test_a_capital_called_the_seat_of_government_is_asked_for_by_that_name(pipeline, rules):
    """La Paz's passage never calls it the capital of Bolivia, only "the seat of government": that is what
    it is read from, and what its rewrite asks for; Sucre's rewrite keeps its "constitutional" modifier."""
    from ambigdemo.stages.rewrite import _alias_rewrites

    by_id = {p.id: p for p in pipeline.retriever.index.passages}
    question = "What is the capital of Bolivia?"
    la_paz = rules.reader.read(question, []).take(by_id["La Paz#0"], "La Paz")
    assert la_paz is not None and la_paz.text == "La Paz"
    assert _alias_rewrites(Question.of(question), la_paz) == ["What is the seat of government of Bolivia?"]
    sucre = rules.reader.read(question, []).take(by_id["Bolivia#1"], "Sucre")
    assert _alias_rewrites(Question.of(question), sucre) == []  # "The seat of government is La Paz, ... the constitutional capital is Sucre"
    readings = pipeline.rewriter.rewrite(question, [sucre, la_paz], propose=lambda a: question)
    assert [(i.question, i.answer, i.source) for i in readings] == [
        ("What is the constitutional capital of Bolivia?", "Sucre", "modifier"),
        ("What is the seat of government of Bolivia?", "La Paz", "alias"),
    ]


def test_a_year_the_question_names_must_be_in_the_answers_sentence_or_title(pipeline, rules):
    """The World Cup's lead names Spain as the 2026 champion: that does not answer the 2018 one."""
    from ambigdemo.stages.reader.verify import other_year

    by_id = {p.id: p for p in pipeline.retriever.index.passages}
    cup = by_id["FIFA World Cup#0"]
    reading = rules.reader.read("Who won the 2018 FIFA World Cup?", [])
    assert reading.take(cup, "Spain") is None and reading.dropped == ["Spain"]
    assert rules.reader.read("Who won the 2026 FIFA World Cup?", []).take(cup, "Spain").text == "Spain"
    assert not other_year(Question.of("Who won the FIFA World Cup?"), "Spain", cup)
    assert not other_year(Question.of("When did the Titanic sink in 1912?"), "15 April 1912", by_id["Sinking of the Titanic#0"])


@pytest.mark.parametrize(
    "answer, text, shown",
    [
        ("Graham Chapman", "Monty Python were a British comedy troupe consisting of Graham Chapman, John Cleese, "
         "Terry Gilliam, Eric Idle, Terry Jones and Michael Palin.",
         "Graham Chapman, John Cleese, Terry Gilliam, Eric Idle, Terry Jones and Michael Palin"),
        ("Comorian", "The official languages of Comoros are Comorian, Arabic and French.", "Comorian, Arabic and French"),
        ("Pisa", "Galileo was born in Pisa, Italy, on 15 February 1564.", "Pisa"),  # a place and its country: no list
        ("Nairobi", "Nairobi is the capital and largest city of Kenya.", "Nairobi"),
        ("writer Jerry Siegel", "Superman is a superhero created by writer Jerry Siegel and artist Joe Shuster, first "
         "appearing in 1938.", "Jerry Siegel and artist Joe Shuster"),  # a role noun before each name
        ("Pisa", "Galileo was born in Pisa and moved to Florence in 1581.", "Pisa"),  # a verb between: no list
        ("1837", "Victoria was Queen of the United Kingdom from 20 June 1837 until her death in 1901.",
         "20 June 1837 until her death in 1901"),  # the start of a range: the range as the passage states it
        ("1804", "Napoleon was Emperor of the French from 18 May 1804 until his first abdication in 1814, with a brief "
         "restoration during the Hundred Days in 1815.", "18 May 1804 until his first abdication in 1814"),
        ("1939", "The war lasted from 1939 to 1945.", "1939 to 1945"),  # one DATE entity holds the range
        ("1901", "Victoria was Queen of the United Kingdom from 20 June 1837 until her death in 1901.", "1901"),  # its end
        ("1887", "The tower was built in 1887, and opened to the public in 1889.", "1887"),  # two dates, no range
        ("French", "The Walloon Region and the French Community of Belgium, which is the political entity responsible "
         "for matters related mainly to culture and education, are independent concepts.", "French"),  # a word of a name
    ],
)
def test_an_answer_listed_with_others_of_its_kind_is_shown_with_them(pipeline, answer, text, shown):
    """A list of the answer's kind is shown whole; so is a range of measures the answer opens (the card then
    says what the paragraph says, from the same sentence)."""
    from ambigdemo.stages.reader.select import listed_with

    assert listed_with(answer, Passage("x", "x", text), pipeline.heuristic.nlp) == shown


@pytest.mark.parametrize(
    "question, answer, text, shown",
    [
        ("When did the Philippine–American War begin?", "February 4", "The war broke out on February 4, 1899, in Manila.",
         "February 4, 1899"),
        ("When was the first Olympic marathon run?", "10 April", "It was first run on 10 April 1896 in Athens.",
         "10 April 1896"),  # a superlative question too: its one answer, whole
        ("When did the war begin?", "1899", "The war broke out on February 4, 1899, in Manila.", "1899"),  # has its year
        ("When did the war begin?", "February", "The war broke out in February 1899 and ended in 1902.",
         "February 1899"),
        ("When is the holiday?", "4 July", "The holiday falls on 4 July each year.", "4 July"),  # no year stated
        ("When did the war begin?", "February 4", "On February 4, 1899 and 1900 it rained.", "February 4"),  # not one date
    ],
)
def test_a_date_cut_before_its_year_is_shown_with_it(pipeline, question, answer, text, shown):
    """A when-answer without its year is wrong where its passage states the year: it is shown whole."""
    from ambigdemo.stages.reader.select import shown_as

    assert shown_as(Question.of(question), answer, Passage("x", "x", text), pipeline.heuristic.nlp) == shown


@pytest.mark.parametrize(
    "answer, text, others",
    [
        ("Italy", "Switzerland is bordered by Italy to the south, France to the west, Germany to the north, and "
         "Austria and Liechtenstein to the east.", ["France", "Germany", "Austria", "Liechtenstein"]),
        ("Peru", "It borders Peru to the north, Bolivia to the northeast, Argentina to the east, and the Drake "
         "Passage in the far south.", ["Bolivia", "Argentina"]),  # three items: a list without "and"
        ("Robert Plant", "The band comprised vocalist Robert Plant, guitarist Jimmy Page, bass-guitarist and "
         "keyboardist John Paul Jones and drummer John Bonham.", ["Jimmy Page", "John Paul Jones", "John Bonham"]),
        ("Canberra", "Canberra, the capital of Australia, is a planned city.", []),  # an apposition, not a list
        ("Paris", "The Louvre is a national art museum in Paris, France.", []),  # a place and its country
        ("New Haven", "Yale is in New Haven, Connecticut, United States.", []),  # a place, its state and country
        ("Madrid", "Spain's capital and largest city is Madrid; other major urban areas include Barcelona, Valencia "
         "and Seville.", []),  # a verb between the answer and the list
        ("John Lasseter", "Toy Story is a 1995 film directed by John Lasseter, and written by Joss Whedon and Andrew "
         "Stanton.", []),  # another role, told by a verb
        ("1950", "The two countries fought the Korean War from 1950 to 1953.", []),  # measures are not listed
        ("Germany", "Austria is bordered by Germany to the northwest, the Czech Republic to the north, Slovakia to the "
         "northeast, Hungary to the east, Slovenia and Italy to the south, and Switzerland and Liechtenstein to the west.",
         ["the Czech Republic", "Slovakia", "Hungary", "Slovenia", "Italy", "Switzerland", "Liechtenstein"]),  # Slovakia tagged ORG
        ("Ecuador", "It is bordered to the north by Ecuador and Colombia, to the east by Brazil, to the southeast by "
         "Bolivia, to the south by Chile.", ["Colombia", "Brazil", "Bolivia", "Chile"]),  # each joint repeats the frame
        ("Lubumbashi", "Lubumbashi is the second-largest city in the country, located in the south, near the border "
         "with Zambia.", []),  # a preposition after the joint that no item opened with
        ("Zambia", "It borders the Atlantic Ocean to the west, Zambia and Angola to the north, Botswana to the east, and "
         "South Africa to the south.", ["Angola", "Botswana", "South Africa"]),  # a feature before the list, not its item
    ],
)
def test_the_other_names_of_a_list_are_found_beside_the_answer(pipeline, answer, text, others):
    """A list's items may each carry a short phrase that opens with a preposition ("to the south") or nouns naming a
    role ("drummer"); a verb or a preposition after the joint ends it (:func:`select.siblings`)."""
    from ambigdemo.stages.reader.select import siblings

    assert siblings(answer, Passage("x", "x", text), pipeline.heuristic.nlp) == others


@pytest.mark.parametrize(
    "answer, text, others",
    [
        ("kidneys", "In humans and placental mammals, it consists of the kidneys, ureters, bladder, and the urethra.",
         ["ureters", "bladder", "urethra"]),  # common nouns: no entity tags them
        ("German turnip", "Kohlrabi, also called German turnip or turnip cabbage, is a biennial vegetable.",
         ["turnip cabbage"]),
        ("Arrow War", "The Second Opium War, also known as the Second Anglo-Chinese War or Arrow War, was fought between "
         "the United Kingdom and France against the Qing dynasty.", ["Second Anglo-Chinese War"]),  # a capitalised adjective
        ("squat", "Powerlifting consists of three attempts at maximal weight on three lifts: squat, bench press, and "
         "deadlift.", ["bench press", "deadlift"]),
        ("Portugal", "Portuguese is an official language of Portugal, Brazil, Angola, Mozambique, Cape Verde, "
         "Guinea-Bissau and São Tomé and Príncipe.",
         ["Brazil", "Angola", "Mozambique", "Cape Verde", "Guinea-Bissau", "São Tomé", "Príncipe"]),  # a hyphen's words
        ("Hahn", "In 1938, Hahn, Meitner and Fritz Strassmann discovered nuclear fission.", ["Meitner", "Fritz Strassmann"]),
        ("Paris", "He was born in Paris and died in London.", []),  # a verb's coordination, not a list of places
        ("charcoal", "It consists of a mixture of sulfur, charcoal, and potassium nitrate (saltpeter).",
         ["sulfur", "potassium nitrate"]),  # a bracket the item opens but does not close is cut
        ("1494", "The Italian Wars were fought from 1494 to 1559 and in 1600.", []),  # measures are not listed
    ],
)
def test_the_items_a_sentence_coordinates_with_the_answer_are_its_list_s_other_names(pipeline, answer, text, others):
    """Where spaCy's entity tags miss a list (common nouns, a country tagged PERSON), its dependency parse still
    coordinates the items (:func:`select.coordinated`); a proper name's items are proper names."""
    from ambigdemo.stages.reader.select import coordinated

    assert coordinated(answer, Passage("x", "x", text), pipeline.heuristic.nlp) == others


@pytest.mark.parametrize(
    "answer, text, others",
    [
        ("predicate logic", "First-order logic, also called predicate logic, predicate calculus, or quantificational "
         "logic, is a type of formal system.", ["predicate calculus", "quantificational logic"]),
        ("sexual equality", "Gender equality, also known as sexual equality, gender egalitarianism, or equality of the "
         "sexes, is the state of equal ease of access to resources.", ["gender egalitarianism", "equality of the sexes"]),
        ("Sons and Lovers", "Four of his most famous novels \u2013 Sons and Lovers (1913), The Rainbow (1915), Women in "
         "Love (1920), and Lady Chatterley's Lover (1928) \u2013 were the subject of censorship trials.",
         ["The Rainbow", "Women in Love", "Lady Chatterley's Lover"]),  # a year in brackets after each title
        ("Sons and Lovers", "Four of his most famous novels\xa0\u2013 Sons and Lovers\n(1913), The Rainbow (1915), and Women in "
         "Love (1920).", ["The Rainbow", "Women in Love"]),  # a line break and a no-break space inside the list
        ("rook", "The species commonly seen in Europe are the carrion crow, hooded crow, common raven, and rook.",
         ["common raven", "hooded crow", "carrion crow"]),  # the answer closes the list
        ("carrion crow", "The species commonly seen in Europe are the carrion crow, hooded crow, common raven, and rook; "
         "those found later were named for their size.", ["hooded crow", "common raven", "rook"]),  # "rook" tagged a verb
        ("aubergine", "It is known by a number of names, including eggplant, aubergine, and brinjal.",
         ["eggplant", "brinjal"]),  # "brinjal" tagged an adverb
        ("First World War", "He served in the First World War, the Irish War of Independence, and the Second World War.",
         ["Irish War of Independence", "Second World War"]),  # an ordinal opens a name: no number
        ("rice", "He ate rice, beans and slept.", []),  # a past verb closes a clause, not the list
        ("Lamb", "Lamb, hogget, and mutton are the meat of domestic sheep.", ["hogget", "mutton"]),  # opens the sentence
        ("Russian", "Marc Chagall was a Russian and French artist.", ["French"]),
        ("Vienna", "He was born in Vienna and Hitler moved there later.", []),  # "and" joins clauses
        ("trade", "Its policy covers trade, economic and social affairs.", []),  # an adjective is no noun's item
        ("Kanabhaksha", "Kanada, also known as Kanabhaksha, Kanabhuj was an ancient Indian philosopher.", []),  # no "and"
    ],
)
def test_the_items_a_list_is_written_with_are_its_other_names(pipeline, answer, text, others):
    """Where neither the entity tags nor the parse read a list, its written joints do (:func:`select.written_list`):
    commas, one closing "and" or "or", brackets skipped, items of the answer's kind."""
    from ambigdemo.stages.reader.select import written_list

    assert written_list(answer, Passage("x", "x", text), pipeline.heuristic.nlp) == others


@pytest.mark.parametrize(
    "title, answer, text, others",
    [
        ("Medina", "al-Madinah al-Munawwarah", "Medina, officially al-Madinah al-Munawwarah, also known as al-Madinah "
         "an-Nabawiyyah and Taybah, is the capital of Medina Province.", ["al-Madinah an-Nabawiyyah", "Taybah"]),
        ("Gear", "toothed wheel", "A gear or gearwheel, also called a toothed wheel, is a rotating machine part.",
         ["gearwheel"]),
        ("Herat", "Harat", "Herat, also written as Harat or Hirat, and historically known as Haraiva, is a city in "
         "western Afghanistan.", ["Hirat", "Haraiva"]),
        ("Tao Yuanming", "Tao Qian", "Tao Yuanming, also known as Tao Qian (\u9676\u6f5c), courtesy name Yuanliang "
         "(\u5143\u4eae), was a Chinese poet.", ["Yuanliang"]),  # brackets skipped, a kind of name
        ("Jackie Chan", "Fang Shilong", "Chan Kong-sang, also known as Fang Shilong and known professionally as Jackie "
         "Chan and Sing Lung, is a Hong Kong martial artist.", ["Chan Kong-sang", "Sing Lung"]),  # the title is no other name
        ("Lumber", "timber", "Lumber, also called timber or fine wood in the United Kingdom, Australia, and New "
         "Zealand, is wood that has been processed.", ["fine wood"]),  # a place qualifies the last name
        ("First-order logic", "predicate logic", "In mathematics, philosophy, linguistics, and computer science, "
         "first-order logic, also called predicate logic or predicate calculus, is a type of formal system.",
         ["predicate calculus"]),  # an adverbial before the subject
        ("Herat", "Herat", "Herat, also written as Harat or Hirat, is a city.", []),  # the subject itself
        ("Ural", "Danube", "The Ural, also known as the Yaik, is the third-longest river in Europe after the Volga and "
         "the Danube.", []),  # not one of the subject's names
        ("Lamb", "hogget", "Lamb, hogget, and mutton are the meat of domestic sheep.", []),  # a list, no naming word
        ("Jupiter", "Jove", "In ancient Roman religion and mythology, Jupiter, also known as Jove, is the god of the sky.",
         []),
    ],
)
def test_the_other_names_a_lead_gives_its_subject_are_read_beside_one_of_them(title, answer, text, others):
    """A lead opens with its subject's names, joined by commas, "and" or "or" after words that name them
    (:func:`select.names_given`); a reply that is one of them, not the subject's title, gives the others."""
    from ambigdemo.stages.reader.select import names_given

    assert names_given(answer, Passage(f"{title}#0", title, text)) == others


def test_a_lead_s_other_names_for_its_subject_are_read_only_when_the_question_names_that_subject(pipeline):
    """``other_names`` adds the lead's other names (:func:`select.names_given`) to a reply asked of the passage's
    subject: not to a reply about something else the lead names."""
    from ambigdemo.stages.reader.select import other_names

    passage = Passage("Medina#0", "Medina", "Medina, officially al-Madinah al-Munawwarah, also known as Taybah, is the "
                      "capital of Medina Province in the Hejaz region of Saudi Arabia.")
    nlp = pipeline.heuristic.nlp
    assert other_names(Question.of("What is Medina also known as?"), "al-Madinah al-Munawwarah", passage, nlp) == ["Taybah"]
    assert other_names(Question.of("Which city is the capital of the province in the Hejaz?"), "al-Madinah al-Munawwarah",
                       passage, nlp) == []


def test_a_list_s_other_names_are_read_from_the_parse_where_the_entity_tags_miss_them(pipeline):
    """``other_names`` reads the entity runs first, then the parse's items, each name once."""
    from ambigdemo.stages.reader.select import other_names

    passage = Passage("Urinary system#0", "Urinary system", "The urinary system consists of the kidneys, ureters, "
                      "bladder, and the urethra.")
    question = Question.of("Which organs make up the urinary system?")
    assert other_names(question, "kidneys", passage, pipeline.heuristic.nlp) == ["ureters", "bladder", "urethra"]
    assert other_names(Question.of("What is the largest organ of the urinary system?"), "kidneys", passage,
                       pipeline.heuristic.nlp) == []


def test_a_question_that_asks_for_one_thing_reads_no_other_names_of_its_reply_s_list(pipeline):
    """A singular "which" or "what" phrase asks for one thing (:func:`select.asks_one`): the other cities of the list
    Bukhara is named in are read for a plural question, not for the one city that became the capital. "Who" does
    not say how many are asked for, a plural verb makes a phrase plural, and a "do" before its subject does not."""
    from ambigdemo.stages.reader.select import asks_one, other_names

    passage = Passage("Khanate of Bukhara#0", "Khanate of Bukhara", "Muhammad Shaybani, grandson of the steppe ruler "
                      "Abu'l Khayr Khan, conquered the major cities of Mawarannahr (Transoxiana) – Balkh, Bukhara, Samarkand, "
                      "and Tashkent – and established his rule in the region. In its earliest years, the Khanate was "
                      "alternately governed from each of these cities before Abdullah Khan II established Bukhara as its "
                      "permanent capital by 1562.")
    nlp = pipeline.heuristic.nlp
    plural = Question.of("Which cities did Muhammad Shaybani conquer in Mawarannahr?")
    assert {"Balkh", "Samarkand", "Tashkent"} <= set(other_names(plural, "Bukhara", passage, nlp))
    one = Question.of("Which city became the permanent capital of the Khanate of Bukhara?")
    assert other_names(one, "Bukhara", passage, nlp) == []
    asked = {q: asks_one(Question.of(q), nlp) for q in (
        "What language do the Maasai speak?", "Which fish make up the family Coryphaenidae?", "Which city-states formed "
        "the Aztec Empire?", "Who founded Nirvana?", "What is the capital of Chad?", "Which of the Great Lakes is deepest?")}
    assert asked == {"What language do the Maasai speak?": True, "Which fish make up the family Coryphaenidae?": False,
                     "Which city-states formed the Aztec Empire?": False, "Who founded Nirvana?": False,
                     "What is the capital of Chad?": False, "Which of the Great Lakes is deepest?": True}
    assert asks_one(Question.of("What is the largest city in Chad?"), None) and not asks_one(one, None)


def test_a_reply_its_passage_states_only_apart_is_read_as_its_names(pipeline):
    """"Bill Gates and Paul Allen" is not in a passage that names the two in two sentences: each name it grounds is read as a
    name of the reply's list (:func:`select.stated_apart`); a name it does not ground, a measure or a ranking
    question's reply gives none."""
    from ambigdemo.stages.reader.select import other_names

    passage = Passage("Microsoft#0", "Microsoft", "Microsoft was founded by Bill Gates on April 4, 1975. His "
                      "childhood friend Paul Allen was its other founder.")
    nlp, question = pipeline.heuristic.nlp, Question.of("Who founded Microsoft?")
    assert other_names(question, "Bill Gates and Paul Allen", passage, nlp) == ["Bill Gates", "Paul Allen"]
    assert other_names(question, "Bill Gates, Steve Jobs", passage, nlp) == ["Bill Gates"]
    assert other_names(question, "April 4 and 1975", passage, nlp) == []
    assert other_names(Question.of("Who was the first to found Microsoft?"), "Bill Gates and Paul Allen", passage, nlp) == []


def test_no_other_names_are_read_for_a_superlative_or_an_ungrounded_answer(pipeline):
    from ambigdemo.stages.reader.select import other_names

    passage = Passage("Mongolia#0", "Mongolia", "Mongolia is bordered by Russia to the north and China to the south.")
    nlp = pipeline.heuristic.nlp
    assert other_names(Question.of("Which countries border Mongolia?"), "Russia", passage, nlp) == ["China"]
    assert other_names(Question.of("What is the largest country bordering Mongolia?"), "Russia", passage, nlp) == []
    assert other_names(Question.of("Which country was the second to border Mongolia?"), "Russia", passage, nlp) == []
    assert other_names(Question.of("Which countries border Mongolia?"), "Kazakhstan", passage, nlp) == []
    assert other_names(Question.of("Which are the largest countries bordering Mongolia?"), "Russia", passage, nlp) == ["China"]


@pytest.mark.parametrize(
    "question, several",
    [
        ("What are D. H. Lawrence's most famous novels?", True),  # a plural copula
        ("Who were the first to state the ideal gas law?", True),
        ("Which countries grow the most sesame?", True),  # a plural noun after the question word
        ("In which cities did Leonhard Euler spend most of his adult life?", True),
        ("Which two rivers are the longest?", True),
        ("What is the most widely grown crop?", False),
        ("What's the largest city in Texas?", False),
        ("Which pharaoh had the longest reign?", False),
        ("Who won the most Grammys?", False),  # the question word is the verb's subject
        ("Name the largest city in China.", False),  # no question word
    ],
)
def test_a_question_asks_for_several_things_when_its_number_is_plural(pipeline, question, several):
    """A ranking question still asks for a list when it is plural ("the most famous novels"): the list's other names
    are read for it (:func:`select.asks_several`)."""
    from ambigdemo.stages.reader.select import asks_several

    assert asks_several(Question.of(question), pipeline.heuristic.nlp) is several


@pytest.mark.parametrize(
    "question, answer, title, text, shown",
    [
        ("Who discovered penicillin?", "Ernst Chain", "Alexander Fleming", "Sir Alexander Fleming was a Scottish physician. He shared the 1945 Nobel "
         "Prize in Physiology or Medicine with Howard Florey and Ernst Chain.", "Alexander Fleming, Howard Florey and Ernst Chain"),
        ("Who founded the Estée Lauder company?", "Joseph Lauter", "Estée Lauder (businesswoman)", "Estée Lauder was an American businesswoman. She co-founded her "
         "eponymous cosmetics company with her husband, Joseph Lauter.", "Estée Lauder and Joseph Lauter"),
        ("Who won the 1973 Nobel Prize in Physiology or Medicine?", "Karl von Frisch", "Konrad Lorenz", "He shared the 1973 Nobel Prize in Physiology or Medicine with Nikolaas "
         "Tinbergen and Karl von Frisch.", "Konrad Lorenz, Nikolaas Tinbergen and Karl von Frisch"),
        ("Who toured America in 1974?", "Ringo Starr", "George Harrison", "Harrison married Pattie Boyd. He toured with Ringo Starr.",
         "George Harrison and Ringo Starr"),
        ("Who did George Harrison tour with?", "Ringo Starr", "George Harrison", "He toured with Ringo Starr.", "Ringo Starr"),
        ("Who married in 1966?", "Pattie Boyd", "George Harrison", "Harrison married Pattie Boyd in 1966.", "Pattie Boyd"),  # no partner
        ("Who formed a band?", "John Lennon", "Paul McCartney", "The Beatles, with John Lennon, formed in Liverpool.", "John Lennon"),
        ("Who wrote the screenplay of The Godfather?", "Mario Puzo", "The Godfather", "The Godfather is a 1972 American film directed "
         "by Francis Ford Coppola, who co-wrote the screenplay with Mario Puzo.", "Francis Ford Coppola and Mario Puzo"),
    ],
)
def test_a_person_named_as_the_passage_subjects_partner_is_shown_with_the_subject(question, answer, title, text, shown):
    """A "who" answer read from a sentence that opens with the passage's subject and names the answer as its
    partner ("He shared ... with", "She co-founded ... with her husband,") is shown with the subject, unless
    the question asks who the subject did it with; a list of names the entity tagger misses is told by capitals."""
    from ambigdemo.stages.reader.select import named_with, with_subject

    passage = Passage("x", title, text)
    assert with_subject(named_with(answer, passage), passage, Question.of(question)) == shown


def test_an_answer_is_shown_as_its_article_names_it_unless_it_lists_more(pipeline):
    """A reply naming the article's subject in a fuller form is shown by the article's name; a reply listing the subject with
    another name stays the list (:func:`select.shown_as`)."""
    from ambigdemo.stages.reader.select import shown_as

    nlp = pipeline.heuristic.nlp
    rawalpindi = Passage("Rawalpindi#0", "Rawalpindi", "Rawalpindi lies adjacent to Pakistan's capital, Islamabad, and the "
                         "two are jointly known as the \"twin cities\".")
    question = Question.of("Which cities are Pakistan's twin cities?")
    assert shown_as(question, "Rawalpindi and Islamabad", rawalpindi, nlp) == "Rawalpindi and Islamabad"
    armstrong = Passage("Neil Armstrong#0", "Neil Armstrong", "Neil Alden Armstrong was an American astronaut.")
    assert shown_as(Question.of("Who walked on the Moon?"), "Neil Alden Armstrong", armstrong, nlp) == "Neil Armstrong"


def test_an_answer_is_not_shown_by_a_name_that_only_repeats_the_question(pipeline):
    """The article's name is not the answer where the question names it: "Georg Ohm", replied from the ohm's lead asked
    whom it is named after, "Banda Aceh", from Aceh's asked its capital, and "Panama City", from the lead of Panama asked
    its capital city, stay as replied, not "Ohm", "Aceh" and "Panama"."""
    from ambigdemo.stages.reader.select import shown_as

    nlp, passages = pipeline.heuristic.nlp, {p.id: p for p in pipeline.retriever.index.passages}
    assert shown_as(Question.of("Who is the ohm named after?"), "Georg Ohm", passages["Ohm#0"], nlp) == "Georg Ohm"
    assert shown_as(Question.of("What is the capital of Aceh?"), "Banda Aceh", passages["Aceh#0"], nlp) == "Banda Aceh"
    panama = Question.of("What is the capital city of Panama?")  # "Its capital and largest city is Panama City"
    assert shown_as(panama, "Panama City", passages["Panama#0"], nlp) == "Panama City"


def test_a_part_of_a_name_the_question_writes_is_no_repeat(pipeline):
    """An answer made of the question's words repeats it only where it names what the question names: "Kano" for the
    capital of Kano State, "Guatemala City" for Guatemala's largest city and "the Enlightenment" for the Age of
    Enlightenment's other names pass, each beside the name the question writes; "Bolivia" for the capital of Bolivia,
    "Benin City" (in Nigeria) for Benin's largest city and "Turing" (the name's head) for Alan Turing's doctoral advisor
    do not."""
    from ambigdemo.stages.reader.verify import rejection

    passages = {p.id: p for p in pipeline.retriever.index.passages}
    kept = [("What is the capital of Kano State?", "Kano", "Kano (city)#0"),
            ("What is the largest city of Guatemala?", "Guatemala City", "Guatemala City#0"),
            ("What was the Age of Enlightenment also called?", "the Enlightenment", "Age of Enlightenment#0")]
    for question, answer, passage in kept:
        assert rejection(Question.of(question), answer, passages[passage]) is None, answer
    assert rejection(Question.of("What is the capital of Bolivia?"), "Bolivia", passages["Bolivia#0"]) == "repeats the question"
    benin = Question.of("What is the largest city of Benin?")  # its lead writes "Benin" only in "Benin City"
    assert rejection(benin, "Benin City", passages["Benin City#0"]) == "repeats the question"
    turing = Question.of("Who was Alan Turing's doctoral advisor?")
    assert rejection(turing, "Turing", passages["Alan Turing#0"]) == "repeats the question"


def test_the_model_reply_naming_one_of_a_list_answers_with_the_list(pipeline, rules):
    """The Monty Python lead names the six in one list: a reply naming one is shown as all six; for a
    superlative question ("the most famous member") the reply stays the one the model named."""
    python = next(p for p in pipeline.retriever.index.passages if p.id == "Monty Python#0")
    reading = rules.reader.read("Who were the members of Monty Python?", [])
    assert reading.take(python, "John Cleese").text.startswith("Graham Chapman, John Cleese,")
    reading = rules.reader.read("Who was the most famous member of Monty Python?", [])
    assert reading.take(python, "John Cleese").text == "John Cleese"


def test_less_likely_replies_add_answers_but_not_replies(pipeline, rules):
    """With ``branch_passages`` the first passage's less likely replies are verified like the reply itself:
    they can only add answers (Almaty beside Astana, both stated by Kazakhstan's lead), and the recorded
    reply stays the model's likeliest one."""
    question = "What is the capital of Kazakhstan?"
    passages = pipeline.retriever.search(question, pipeline.config.top_k)
    base = rules.reader
    plain = LlmReader(base.generator, base.relevance, base.min_score, base.max_passages, nlp=base.nlp, _prefix=base.prefix())
    branched = LlmReader(base.generator, base.relevance, base.min_score, base.max_passages, nlp=base.nlp,
                         branch_passages=1, branch_min=0.0, _prefix=base.prefix())
    one, more = plain.read(question, passages), branched.read(question, passages)
    list(one.answers()), list(more.answers())
    assert one.replies == more.replies
    texts = [a.text for a in more.found]
    assert {a.text for a in one.found} < set(texts) and "Almaty" in texts, texts
    assert all(a.passages for a in more.found)


def test_less_likely_replies_are_read_for_the_preset_they_were_tuned_for(pipeline, rules):
    """The 0.5B reads them (tuned on the dev questions); the 1.5B gained nothing there."""
    from ambigdemo.config import READER_BRANCHES, Config

    assert (pipeline.loaded, pipeline.reader_model) == ("embedded", "0.5b")
    assert (rules.reader.branch_passages, rules.reader.branch_min) == READER_BRANCHES["0.5b"] == (1, 0.1)
    score = pipeline.reader.verifier
    assert (pipeline.reader.branch_passages, pipeline.reader.branch_min) == (score.branch_passages, score.branch_min) == (1, 0.1)
    assert Config().reader_branches("1.5b") == (0, 1.0)
    assert Config(reader_branch_passages=0).reader_branches("0.5b") == (0, 0.1)
    assert rules.with_options(reader_branch_passages=2).reader.branch_passages == 2


def test_coverage_is_the_share_of_the_question_stated_beside_the_answer():
    """A further passage's answer counts only where one of its sentences (with the title) holds the question's words."""
    from ambigdemo.stages.reader.verify import coverage, rejection

    question = Question.of("What is the capital of Uttar Pradesh?")
    city = Passage("Prayagraj#0", "Prayagraj", "Prayagraj is a city in India. It is the judicial capital of Uttar Pradesh.")
    other = Passage("Chandigarh#0", "Chandigarh", "Chandigarh is the capital of Punjab and Haryana.")
    assert coverage(question, "Prayagraj", city) == 1.0
    assert coverage(question, "Haryana", other) == pytest.approx(1 / 3)
    assert rejection(question, "Haryana", other) is None
    assert rejection(question, "Haryana", other, least_coverage=0.5) == "stated apart from the question's words"
    assert rejection(question, "Prayagraj", city, least_coverage=1.0) is None


def test_further_passages_are_read_after_the_gate_and_only_where_the_gate_reads(pipeline, rules):
    """Passages beyond the relevance gate are read last, with the coverage they must meet; a question whose
    best passage is under the minimum score reads none."""
    from dataclasses import replace

    reader = replace(rules.reader, further_passages=3, further_coverage=0.9)
    scores = [0.8, 0.75, 0.6, 0.5, 0.44]
    passages = [Passage(f"P{i}#0", f"P{i}", "text", s) for i, s in enumerate(scores)]
    read = reader.read("Who wrote it?", passages).to_read()
    assert [(p.id, least) for p, least in read] == [("P0#0", 0.0), ("P1#0", 0.0), ("P2#0", 0.9), ("P3#0", 0.9)]
    low = [Passage(p.id, p.title, p.text, p.score - 0.4) for p in passages]
    assert reader.read("Who wrote it?", low).to_read() == []


def test_the_passage_bm25_ranks_first_is_read_last_wherever_the_dense_scores_put_it(rules):
    """With ``lexical``, the passage retrieval marked as BM25's best is read after the gated ones, even under the
    gate or the minimum score; without it, or when the gate reads it already, nothing more is read."""
    from dataclasses import replace

    scores = [0.8, 0.75, 0.6, 0.5, 0.3]
    passages = [Passage(f"P{i}#0", f"P{i}", "text", s, lexical=i == 4) for i, s in enumerate(scores)]
    reader = replace(rules.reader, lexical=True)
    read = reader.read("Who wrote it?", passages).to_read()
    assert [(p.id, least) for p, least in read] == [("P0#0", 0.0), ("P1#0", 0.0), ("P4#0", 0.0)]
    assert [p.id for p, _ in replace(reader, lexical=False).read("Who wrote it?", passages).to_read()] == ["P0#0", "P1#0"]
    gated = [replace(p, lexical=p.id == "P0#0") for p in passages]
    assert [p.id for p, _ in reader.read("Who wrote it?", gated).to_read()] == ["P0#0", "P1#0"]


def test_an_answer_given_again_by_its_own_passage_cites_it_once():
    """A less likely reply of the same passage that names an answer already found adds its alias, not a
    second citation of the passage ("Canada's capital is Ottawa [1][1]" in the paragraph)."""
    from ambigdemo.stages.reader.select import add

    canada, ottawa = Passage("Canada#0", "Canada", "Ottawa is its capital."), Passage("Ottawa#0", "Ottawa", "Ottawa is the capital of Canada.")
    found = []
    add(found, "Ottawa", canada)
    add(found, "ottawa", canada)
    assert found[0].passages == ["Canada#0"] and found[0].aliases == ["ottawa"]
    add(found, "Ottawa", ottawa)
    assert [a.passages for a in found] == [["Canada#0", "Ottawa#0"]]
