"""A hit's relevance: the estimated probability, in [0, 1], that it is about what the
query asks rather than an answer from a store that does not hold the topic.

A logistic model over what the two rankings know of the hit, and of the query as the
store sees it; never the hit's rank or the hits shown beside it, so a hit's relevance is
the same for any `-k` (only the memory beside it that lent it a score counts, see
`scorer`). Of the hit:

- coverage: the hit's BM25 score over the query's idf mass (Snapshot.bm25_mass), i.e.
  how much of what the query's words could score this hit holds; 0 when it is not in
  BM25's top `candidates`;
- cosine: the similarity of the hit's vector to the query's, counted above the model's
  vector floor (what unrelated text reaches) as a share of the way to 1, so that the
  same weights roughly carry over to a model with another floor.

Of the query and the store (QueryView, read from each ranking's top `candidates`, so
the same for every hit of the query and for any -k):

- top_cov, top_cos: the best coverage and the best cosine any memory of the searched
  scopes reaches. A weak hit for a question the store holds and a weak hit for one it
  does not hold look alike; whether anything in the store answers the question well is
  what tells them apart (on the tuning sets the best cosine alone separates English
  on-topic questions from other people's conversations with ROC area 0.91, from other
  domains 0.99). This is why a hit's relevance depends on the store, never on -k;
- known (Chinese only): the share of the idf mass of the query's content terms (none
  with a CJK_STOP_CHARS character: 什么, 是谁, 我的... are left out) that falls on terms the
  searched scopes hold at all. A question from another domain is mostly made of terms a
  dialogue store never saw (青霉素, 垃圾回收, 卫星); a paraphrased question about the store
  shares as few words with its evidence, but is asked in the store's own everyday words;
- run (Chinese only): content_run, the longest stretch of the query (two characters or
  more) that one of BM25's candidates holds as it stands, counted in content characters
  and capped at RUN_CAP. In a small store single characters carry idf mass: a question
  from another domain meets a dialogue store on characters scattered over its turns (水
  in 多喝水) or on function words (有什么), a question about the store on a word (出差,
  小提琴). Contiguous, not scattered: what bigram coverage alone cannot tell, since the
  index also holds every character alone;
- own, general: the form of the question. `own`: it speaks of the asker or points back
  at something said (Chinese: 我, 咱, 俺; 那个, 这次, a demonstrative with a measure word;
  English: my, our, we; did I, I said: the possessive or the past, since "I" alone is as
  common in a general question); `general`: it asks in general, for advice or an
  explanation (Chinese: 怎么办, 要注意什么, 合适, 一般, 为什么, 可以…吗, 有什么区别, 解释一下,
  是什么意思, 怎么 before a verb but not 是怎么…的 or 后来怎么, what happened; English, at
  its start: how do..., what is a..., why does..., should I...). Over the tuning sets
  (abstain.json to v24) a Chinese question about a dialogue store is mostly the first
  (362 of 507) and rarely the second (31); a question from another domain that shares
  everyday words with the store (红烧肉怎么做才不腻? on a farmer's store) is rarely the
  first (27 of 2172) and often the second (1239); in English, 309 / 75 of 423 against
  315 / 1677 of 2067. The
  form gates (CJK_FORM, HYBRID_FORM) weigh it against the store's best coverage and
  cosine (and the run), and have a say only while no memory holds half the query's idf
  mass (FORM_COVERAGE): a question the store's words answer passes whatever its form.

Four models by the side that judges: hybrid (coverage, cosine, their product, top_cov,
top_cos; with the vector side read, capped by HYBRID_FORM: top_cov, top_cos and the
question's form, and by MEANING_GATE: top_cos alone), words (BM25 mode: coverage, and
whether any word matched), meaning (vector mode: the cosine), and for a query with any CJK
character judged by words (BM25 mode, or an English-only model, which ranks Chinese poorly:
BENCHMARKS.md, Issue 19) cjk:
the words model CJK_WORDS (coverage, known, top_cov; the hit's own cosine has no say, so
BM25-only matches are not punished), capped, when the vector side was read, by CJK_GATE,
a query-level gate over top_cov, the English model's best cosine top_cos and run, and by
CJK_FORM, the same with the question's form (cjk_relevance). The English model reads
Chinese as characters, and what it says is weak but real: its best cosine over the
store separates other domains from questions the store holds (ROC area 0.89 alone over
the tuning sets), though not other people's conversations (0.58).

The coefficients were fitted by benchmarks/abstain.py --fit with all-MiniLM-L6-v2:
evidence hits against every hit of a question the store does not hold, classes weighted
equally, so 0.5 means even odds between "evidence for a question the store holds" and "a
hit for a question it does not hold". HYBRID and CJK_WORDS on tests/data/abstain.json
(every user) and abstain_v2.json; CJK_GATE on the tuning sets of its round
(abstain.json, v2, v3, v4 and abstain_everyday.json) and CJK_FORM and HYBRID_FORM on
every tuning set (abstain.json, v2 to v28 and abstain_everyday.json), questions against
questions, then placed on the floors (cjk_relevance). WORDS and MEANING have no rows of
their own in these sets and keep their earlier fit (MEANING rewritten, same curve, for
the cosine above MiniLM's floor 0.2). A model the fit never saw (another embedder) has its cosine counted above its own
vector floor, which carries the weights over only roughly: set [recall] min_relevance
and its vector floor for it by measurement. A multilingual model reads Chinese itself:
its queries are judged by hybrid, as English ones.

The floors that use it, chosen by a stated rule on the tuning sets: [recall]
min_relevance (everywhere; the highest floor, in steps of 0.025, at which each language
keeps the evidence of every on-topic question, so the retrieval benchmarks do not drop
and a paraphrase that shares no word with its evidence passes) and prompt_min_relevance
(the prompt path; the floor at which the most tuning parts meet issue 19's three targets
together: unrelated questions left empty 0.80, other conversations 0.50, evidence kept 0.95)."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from gitmem.core.tokens import CJK_CHAR, CJK_STOP_CHARS, simplified

# Coverage is clipped here: BM25 saturates at (k1 + 1) x idf per term, and past this a
# longer match says nothing more about relevance.
COVERAGE_CAP = 1.5

# content_run is counted up to this many content characters: a shared word of three
# (小提琴, 马拉松) is as good a sign as a longer stretch.
RUN_CAP = 3
CJK_RUN = re.compile(rf"(?:{CJK_CHAR.pattern})+")

# The form of a question: it speaks of the asker or points back at something said before
# (OWN); it asks in general, for advice, a how or a why (GENERAL). Chinese read from its
# Simplified text; English from its words, the general form at its start (how do..., what
# is a..., should I...) and the asker's own in the possessive or the past (my, our; did I,
# I said), since "I" alone is as common in a general question (how do I...). An agent asks
# of "the user" (用户): the person the store's memories are about, the asker's own.
OWN_FORM = re.compile(r"我|咱|俺|用户|那[个件条趟笔期场批天次位回只家所辆台本张份些]|这[个件条趟笔期场批次位回]")
GENERAL_FORM = re.compile(r"为什么|为啥|怎么办|怎么做|注意(?:些)?什么|要不要|合适|比较好|最好|一般|怎么回事|怎么[^样]*才"
                          r"|有什么(?:好)?(?:办法|点子)|需要.*吗|可以.*吗|能.*吗|该怎么|应该|会不会"
                          r"|区别|差别|哪个更|哪种更|哪个好|哪种好|解释|介绍一下|科普|是什么意思|是做什么的|什么原理"
                          r"|(?<![是来])怎么(?!了|样|回事)[\u4e00-\u9fff]|是什么[？?]?$")
EN_OWN_FORM = re.compile(r"\b(?:my|mine|our|ours|we|us|me)\b|\bthe user\b|\buser's\b"
                         r"|\b(?:did|was|were|had|have|has) (?:i|we)\b"
                         r"|\bi (?:was|had|did|said|told|mentioned|went|got|bought|booked|decided|planned)\b", re.I)
EN_GENERAL_FORM = re.compile(
    r"^(?:how(?: long| much| many| often| far)?|what|why|when|where|which(?: \w+)?|who)"
    r" (?:do|does|can|should|is|are|to)\b"
    r"|^(?:is it|is there|are there|can (?:i|you)|should (?:i|you|we)|do (?:i|you) need)\b"
    r"|^what(?:'s| is| are) (?:the|a|an)\b|^who (?:invented|discovered|painted|wrote)\b", re.I)


@dataclass(frozen=True)
class QueryView:
    """What the store says about the query as a whole, the same for each of its hits
    and for any -k (read from BM25's and the vector side's top `candidates`, never from
    the hits shown): `known` (known_share; the cjk side only, else 0), `top_cov` (the
    best coverage of any BM25 candidate) and `top_cos` (the best cosine in the searched
    scopes, counted above the model's vector floor as in `features`; 0 without vectors),
    `run` (content_run over BM25's candidates, as a share of RUN_CAP; the cjk side only),
    `own` and `general` (1 when the question has that form, else 0: question_form; the
    cjk and hybrid sides) and `vectors` (whether the vector side was read at all: which cjk
    model judges)."""

    known: float = 0.0
    top_cov: float = 0.0
    top_cos: float = 0.0
    run: float = 0.0
    vectors: bool = False
    own: float = 0.0
    general: float = 0.0

    def as_dict(self) -> dict[str, float]:
        return {"known": round(self.known, 6), "top_cov": round(self.top_cov, 6), "top_cos": round(self.top_cos, 6),
                "run": round(self.run, 6), "own": self.own, "general": self.general}


NO_VIEW = QueryView()


@dataclass(frozen=True)
class Model:
    """p = 1 / (1 + exp(-(bias + w_cov x coverage + w_cos x cosine + w_both x coverage x cosine
    + w_match x [coverage > 0] + w_known x known + w_tcov x top_cov + w_tcos x top_cos + w_run x run
    + w_own x own + w_general x general)))."""

    bias: float
    w_cov: float = 0.0
    w_cos: float = 0.0
    w_both: float = 0.0
    w_match: float = 0.0
    w_known: float = 0.0
    w_tcov: float = 0.0
    w_tcos: float = 0.0
    w_run: float = 0.0
    w_own: float = 0.0
    w_general: float = 0.0

    def __call__(self, coverage: float, cosine: float, view: QueryView = NO_VIEW) -> float:
        z = (self.bias + self.w_cov * coverage + self.w_cos * cosine + self.w_both * coverage * cosine
             + (self.w_match if coverage > 0 else 0.0) + self.w_known * view.known
             + self.w_tcov * view.top_cov + self.w_tcos * view.top_cos + self.w_run * view.run
             + self.w_own * view.own + self.w_general * view.general)
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


# Fitted by benchmarks/abstain.py --fit on the tuning sets (see the module docstring).
HYBRID = Model(bias=-2.670, w_cov=0.792, w_cos=9.023, w_both=0.796, w_tcov=2.203, w_tcos=5.559)
# A hybrid hit is capped by HYBRID_FORM, a query-level gate over the store's best coverage
# and cosine and the question's form, fitted on every tuning part and placed on the floors
# as CJK_FORM is (benchmarks/abstain.py, fit_gate): it keeps every tuning on-topic
# question above min_relevance and leaves a general question with no word of the asker
# out of the prompt sooner.
HYBRID_FORM = Model(bias=-1.345, w_tcov=1.512, w_tcos=4.594, w_own=0.628, w_general=-0.608)
# ... and by MEANING_GATE: a prompt needs a memory near the question in meaning. The
# question's form cannot tell another person's conversation from the asker's own (both
# ask "what did I pay for the house?"), and where no memory holds FORM_COVERAGE of the
# question's words, the best cosine over the store tells them apart best (ROC area 0.91
# among the questions the prompt path filled, against 0.88 for the hit's relevance, on
# dcc800b's dump: benchmarks/abstain_gates.py --meaning). A
# gate over it alone, placed on the floors: prompt_min_relevance at MEANING_COSINE, the
# cosine (counted above the vector floor) at which the most tuning parts meet issue 19's
# three prompt targets together (benchmarks/abstain.py, choose_meaning_cosine), and just
# above min_relevance at a cosine of 0, so recall keeps what it did.
MEANING_COSINE = 0.1625
MEANING_GATE = Model(bias=-1.658, w_tcos=7.061)
WORDS = Model(bias=-2.066, w_cov=8.180, w_match=1.827)
MEANING = Model(bias=-0.816, w_cos=7.667)
# A query with Chinese: the words model of one hit (coverage, known, top_cov), as fitted
# on abstain.json and abstain_v2.json (the earlier cjk model, unchanged). With the English
# model's vectors read it is capped by CJK_GATE, the query's gate: a query-level model of
# whether the store holds the question at all (the store's best coverage, its best cosine
# and the content run), fitted on the tuning sets of its round (abstain.json, v2, v3, v4
# and abstain_everyday.json), then placed on the floors with a margin: see cjk_relevance.
CJK_WORDS = Model(bias=-1.786, w_cov=3.747, w_known=3.479, w_tcov=1.645)
CJK_GATE = Model(bias=-27.932, w_tcov=47.313, w_tcos=46.666, w_run=28.712)
# The form gates (CJK_FORM, HYBRID_FORM) have a say only while the store's best coverage is
# under this: where one memory holds half the query's idf mass or more, its words settle
# that the store holds the question, whatever its form ("when does the nightly build
# run?" over "the build server runs the nightly job at 1 am"). Over the tuning sets 1 of
# 4,239 questions from other domains reached it, and 76 of 930 on-topic questions.
FORM_COVERAGE = 0.5
# ... and by CJK_FORM, the same gate with the question's form (own, general), fitted on
# every tuning part (abstain.json, v2 to v28 and abstain_everyday.json) and placed on the
# floors as CJK_GATE is, but at the prompt floor below all but the lowest 2% of the
# on-topic questions (benchmarks/abstain.py, FORM_PROMPT_QUANTILE).
CJK_FORM = Model(bias=-1.477, w_tcov=1.415, w_tcos=0.604, w_run=0.968, w_own=0.717, w_general=-0.640)
MODELS = {"hybrid": HYBRID, "words": WORDS, "meaning": MEANING, "cjk_words": CJK_WORDS}


# A memory created in the period the query names ("what did I say on 9 March?"): even
# odds, whatever its words (not fitted: the set has too few such questions).
DATED = 0.5


def features(bm25: float | None, mass: float, cosine: float | None, cos_floor: float = 0.0) -> tuple[float, float]:
    """(coverage, cosine) of one hit: its BM25 score as a share of the query's idf mass
    (clipped to [0, COVERAGE_CAP]) and its cosine above the model's vector floor, as a
    share of the way from the floor to 1 (0 at or below the floor); absent sides 0."""
    cov = 0.0 if not bm25 or mass <= 0 else max(0.0, min(COVERAGE_CAP, float(bm25) / mass))
    cos = 0.0 if cosine is None else max(0.0, min(1.0, (float(cosine) - cos_floor) / max(1e-9, 1.0 - cos_floor)))
    return cov, cos


def cjk_relevance(coverage: float, cosine: float, view: QueryView = NO_VIEW, form: bool = True) -> float:
    """A Chinese hit judged by words: CJK_WORDS, and with vectors read the least of it,
    CJK_GATE and CJK_FORM (form_cap; left out with `form` False). The gates are
    conservative caps, never a lift: they can only leave out what the words model would
    keep, so the prompt path keeps no more than the words model alone let in, and a
    question the store does not hold (other domains, everyday questions that share a word
    with a chat) is left out by the store's best coverage, its best cosine and the content
    run together (CJK_GATE), or by these and the question's form (CJK_FORM: a general
    question with no word of the asker). Each is placed so that it crosses min_relevance
    below every tuning on-topic question; prompt_min_relevance below every one whose
    evidence the words model puts in the prompt (CJK_GATE) or all but the lowest 2% of
    them (CJK_FORM), both with a margin: caps placed on the floors, whose own probability
    means little away from them. CJK_GATE is steep (it decides recall's floor); CJK_FORM
    is gentle and decides between the floors (the prompt's), so recall leaves out what it
    did before and the prompt more."""
    words = CJK_WORDS(coverage, cosine, view)
    if not view.vectors:
        return words
    gate = min(words, CJK_GATE(coverage, cosine, view))
    return min(gate, form_cap("cjk", view)) if form else gate


def form_cap(side: str, view: QueryView) -> float:
    """The query's form gate for `side` (CJK_FORM for "cjk"; for "hybrid" the lesser of
    HYBRID_FORM and MEANING_GATE): the same cap for every hit of the query, 1.0 where it has
    no say (another side, no vector side read, or a memory holding FORM_COVERAGE of the
    query's idf mass)."""
    if not view.vectors or view.top_cov >= FORM_COVERAGE or side not in ("cjk", "hybrid"):
        return 1.0
    if side == "cjk":
        return CJK_FORM(0.0, 0.0, view)
    return min(HYBRID_FORM(0.0, 0.0, view), MEANING_GATE(0.0, 0.0, view))


def far_in_meaning(side: str, view: QueryView) -> bool:
    """Whether MEANING_GATE holds the query's hits under the prompt's floor: a hybrid query
    with the vector side read, no memory near it in meaning (top_cos under MEANING_COSINE)
    and none holding FORM_COVERAGE of its idf mass (`recall --explain` says so)."""
    return side == "hybrid" and view.vectors and view.top_cos < MEANING_COSINE and view.top_cov < FORM_COVERAGE


def relevance(side: str, coverage: float, cosine: float, view: QueryView = NO_VIEW, form: bool = True) -> float:
    """The probability for one hit, by the sides the query used: "hybrid", "words"
    (BM25 alone), "cjk" (a query with Chinese judged by words: cjk_relevance) or
    "meaning" (vector); capped by the query's form gate (form_cap) unless `form` is
    False (what ranking asks of a hit: is it about what the query asks?)."""
    if side == "cjk":
        return cjk_relevance(coverage, cosine, view, form)
    p = MODELS[side](coverage, cosine, view)
    return min(p, form_cap(side, view)) if form else p


def has_cjk(query: str) -> bool:
    """Whether the query has a character of a CJK script (then "cjk" judges it by words)."""
    return CJK_CHAR.search(query) is not None


def content_terms(terms: Sequence[str]) -> list[str]:
    """The query's distinct terms that carry a topic: none with a function character
    (CJK_STOP_CHARS: pronouns, particles, question words), which any Chinese store holds."""
    return [t for t in dict.fromkeys(terms) if not CJK_STOP_CHARS.intersection(t)]


def known_share(snap, terms: Sequence[str], scopes: Sequence[str] | None) -> float:
    """`known`: the share of the query's content terms' idf mass (as BM25 weighs them
    over `scopes`; a term no memory holds at the highest idf) that falls on terms some
    memory of `scopes` holds; 0 when the query has no content term."""
    content = content_terms(terms)
    df, n = snap.dfs(content, scopes)
    idf = {t: math.log(1 + (n - min(df.get(t, 0.0), n) + 0.5) / (min(df.get(t, 0.0), n) + 0.5)) for t in content}
    mass = sum(idf.values())
    return sum(v for t, v in idf.items() if t in df) / mass if mass > 0 else 0.0


def content_run(query: str, texts: Sequence[str]) -> int:
    """The longest stretch of the query's CJK text (two characters or more) that one of
    `texts` holds as it stands, counted in content characters (not CJK_STOP_CHARS); 0
    when none. A question about what the store holds tends to share a word of two or
    more characters with it (出差, 体检, 小提琴); one from another domain mostly meets
    it on single characters scattered over several turns (水 in 多喝水, 首 in 一首), and
    on stretches made only of function characters (什么, 是谁), which count 0 here."""
    norm = unicodedata.normalize("NFKC", query).casefold()
    hay = "\x00".join(unicodedata.normalize("NFKC", t).casefold() for t in texts)
    best = 0
    for m in CJK_RUN.finditer(norm):
        run = m.group(0)
        for i in range(len(run) - 1):
            j = i + 2
            while j <= len(run) and run[i:j] in hay:
                best = max(best, sum(c not in CJK_STOP_CHARS for c in run[i:j]))
                j += 1
    return best


def question_form(query: str) -> tuple[float, float]:
    """(own, general) of a question: 1.0 where its language's own and general forms occur.
    A question with Chinese is read in its Simplified, NFKC-folded text (這次 / 这次: one
    word in two scripts); any other by EN_OWN_FORM and EN_GENERAL_FORM, the latter at
    its start (typographic apostrophes read as plain)."""
    norm = unicodedata.normalize("NFKC", query).strip()
    if has_cjk(norm):
        norm = simplified(norm)
        return float(OWN_FORM.search(norm) is not None), float(GENERAL_FORM.search(norm) is not None)
    norm = norm.replace("\u2019", "'").lstrip("\"'(\u201c\u2018")
    return float(EN_OWN_FORM.search(norm) is not None), float(EN_GENERAL_FORM.search(norm) is not None)


def query_view(snap, terms: Sequence[str], scopes: Sequence[str] | None, bm: list[tuple[int, float]],
               mass: float, vec: list[tuple[int, float]], cos_floor: float = 0.0, known: bool = False,
               query: str = "", form: bool = False) -> QueryView:
    """The QueryView of one query: `bm` BM25's top candidates (raw scores, best first),
    `vec` the vector side's (cosines, best first); `known` whether to work out
    known_share, content_run and question_form (the cjk side's: one look-up of document
    frequencies, and the text of BM25's candidates, held in memory); `form` whether to
    read question_form alone (the hybrid side's)."""
    top_cov = features(bm[0][1], mass, None)[0] if bm else 0.0
    top_cos = features(None, 0.0, vec[0][1], cos_floor)[1] if vec else 0.0
    run = 0.0
    if known and query and bm:
        texts = [str(r.get("text") or "") for r in snap.rows([d for d, _ in bm]).values()]
        run = min(RUN_CAP, content_run(query, texts)) / RUN_CAP
    own, general = question_form(query) if (known or form) and query else (0.0, 0.0)
    return QueryView(known=known_share(snap, terms, scopes) if known else 0.0, top_cov=top_cov, top_cos=top_cos,
                     run=run, own=own, general=general, vectors=bool(vec))


def cjk_share(text: str) -> float:
    """Share of a text's letters that are in a CJK script."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if CJK_CHAR.match(c)) / len(letters)


def scorer(snap, bm: list[tuple[int, float]], mass: float, qv, side: str,
           lent: dict[int, int] | None = None, share: float = 0.0, dated: set[int] | None = None,
           cos_floor: float = 0.0, view: QueryView = NO_VIEW, cjk_blind: bool = False):
    """doc -> (relevance, coverage, cosine, topical) for the hits of one query, `topical`
    being the relevance before the query's form gate (form_cap): `bm` is BM25's top
    `candidates` (raw scores), `mass` the query's idf mass, `qv` the query vector (None
    without one), `view` its QueryView. A doc's cosine is read from its own vector, not
    from a ranking, and counted above the model's vector floor (`cos_floor`, what
    unrelated text reaches; see features).

    What ranking carries over, relevance does too: a memory lifted by the one beside it
    (`lent`: borrower -> lender) is at least `share` (neighbour_weight) x its lender's
    own relevance; one created in the period the query names (`dated`) at least
    DATED.

    `cjk_blind`: the model reads no Chinese (an English-only model). A query without
    Chinese judged by hybrid then judges a hit whose text is mostly Chinese by its words
    alone: the English model reads Chinese as characters, and its cosine between an
    English query and a Chinese memory (0.4-0.5 for a keyboard mash against any Chinese
    chat turn) says nothing of relevance."""
    bm_s = dict(bm)
    lent = lent or {}
    dated = dated or set()

    def own(doc: int) -> tuple[float, float, float, float]:
        cosine = None
        i = snap.row_of.get(doc)
        if qv is not None and snap.vectors is not None and i is not None and snap.has_vec[i] and not (
                cjk_blind and side == "hybrid" and cjk_share(str(snap.rows([doc])[doc].get("text") or "")) > 0.5):
            cosine = float(snap.vectors[i] @ qv)
        cov, cos = features(bm_s.get(doc), mass, cosine, cos_floor)
        hit_side = "words" if side == "hybrid" and cosine is None else side
        plain = relevance(hit_side, cov, cos, view, form=False)
        return min(plain, form_cap(hit_side, view)), cov, cos, plain

    def rel(doc: int) -> tuple[float, float, float, float]:
        p, cov, cos, plain = own(doc)
        if doc in lent:
            lender = own(lent[doc])
            p, plain = max(p, share * lender[0]), max(plain, share * lender[3])
        if doc in dated:
            p, plain = max(p, DATED), max(plain, DATED)
        return round(p, 6), round(cov, 6), round(cos, 6), round(plain, 6)

    return rel
