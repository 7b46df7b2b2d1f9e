"""A hit's relevance: the estimated probability, in [0, 1], that it is about what the
query asks rather than an answer from a store that does not hold the topic.

A logistic model over what the two rankings know of the hit itself, never its rank or
the other hits shown (so a hit's relevance is the same for any `-k`; only the memory
beside it that lent it a score counts, see `scorer`):

- coverage: the hit's BM25 score over the query's idf mass (Snapshot.bm25_mass), i.e.
  how much of what the query's words could score this hit holds; 0 when it is not in
  BM25's top `candidates`;
- cosine: the similarity of the hit's vector to the query's.

Words-only (BM25 mode, vectors pending) uses a model of coverage alone (and whether any
word matched at all), so a BM25-only match is not punished for a cosine the model cannot
give; vector mode uses the cosine alone. A query with Chinese (any CJK character) judged
by words (BM25 mode, or an English-only model, whose cosine says nothing about Chinese
text: BENCHMARKS.md, Issue 19) uses the "cjk" model: coverage and `known`, the share of
the idf mass of the query's content terms (none with a CJK_STOP_CHARS character) that
falls on terms the searched scopes hold at all.
Paraphrased questions about the store share few words with their evidence, as few as
questions from other domains share with some memory; but they are asked in the store's
own words (its people, its everyday talk), while a question about penicillin or JVM
tuning is mostly made of terms the store has never seen. `known` is a property of the
query and the store, not of the hit or of the other hits, so relevance still does not
depend on -k.

The coefficients were fitted on the tuning half of tests/data/abstain.json with
all-MiniLM-L6-v2 (benchmarks/abstain.py --fit), classes weighted equally: 0.5 means
even odds between "evidence for a question the store holds" and "a hit for a question it
does not hold" (BENCHMARKS.md, Issue 19). HYBRID, WORDS and MEANING date from before the
"cjk" model (HYBRID's rows then included the Chinese store's mixed-script questions); a
refit without them moves English figures both ways on the tuning half, so they stay.
A model the fit never saw (another embedder) keeps the cosine scale of MiniLM: set
[recall] min_relevance and its vector floor for it by measurement.

The floors that use it: [recall] min_relevance (everywhere; 0.1, the highest floor at
which the tuning half keeps the evidence of every on-topic question, so the retrieval
benchmarks do not drop) and prompt_min_relevance (the prompt path; 0.5, the highest at
which the tuning half keeps 95% of what the prompt would carry)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from gitmem.core.tokens import CJK_CHAR, CJK_STOP_CHARS

# Coverage is clipped here: BM25 saturates at (k1 + 1) x idf per term, and past this a
# longer match says nothing more about relevance.
COVERAGE_CAP = 1.5


@dataclass(frozen=True)
class Model:
    """p = 1 / (1 + exp(-(bias + w_cov x coverage + w_cos x cosine + w_both x coverage x cosine
    + w_match x [coverage > 0] + w_known x known)))."""

    bias: float
    w_cov: float = 0.0
    w_cos: float = 0.0
    w_both: float = 0.0
    w_match: float = 0.0
    w_known: float = 0.0

    def __call__(self, coverage: float, cosine: float, known: float = 0.0) -> float:
        z = (self.bias + self.w_cov * coverage + self.w_cos * cosine + self.w_both * coverage * cosine
             + (self.w_match if coverage > 0 else 0.0) + self.w_known * known)
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


# Fitted by benchmarks/abstain.py --fit on the tuning half (see the module docstring).
HYBRID = Model(bias=-2.794, w_cov=3.359, w_cos=8.902, w_both=2.062)
WORDS = Model(bias=-2.066, w_cov=8.180, w_match=1.827)
MEANING = Model(bias=-2.733, w_cos=9.584)
CJK = Model(bias=-2.296, w_cov=8.418, w_known=5.894)


# A memory created in the period the query names ("what did I say on 9 March?"): even
# odds, whatever its words (not fitted: the set has too few such questions).
DATED = 0.5


def features(bm25: float | None, mass: float, cosine: float | None) -> tuple[float, float]:
    """(coverage, cosine) of one hit: its BM25 score as a share of the query's idf mass
    (clipped to [0, COVERAGE_CAP]) and its cosine (clipped to [0, 1]); absent sides 0."""
    cov = 0.0 if not bm25 or mass <= 0 else max(0.0, min(COVERAGE_CAP, float(bm25) / mass))
    cos = 0.0 if cosine is None else max(0.0, min(1.0, float(cosine)))
    return cov, cos


def relevance(side: str, coverage: float, cosine: float, known: float = 0.0) -> float:
    """The probability for one hit, by the sides the query used: "hybrid", "words"
    (BM25 alone), "cjk" (a query with Chinese judged by words: see the module docstring)
    or "meaning" (vector)."""
    model = {"hybrid": HYBRID, "words": WORDS, "meaning": MEANING, "cjk": CJK}[side]
    if side == "cjk":
        # Under the language rule the hits no word matched are ordered by the English
        # model's vector, and one on-topic question per half of the set is answered only
        # by such a hit: they keep the words model's no-match relevance (0.112), just
        # above the recall floor, as before the "cjk" model.
        return max(model(coverage, cosine, known), WORDS(0.0, 0.0))
    return model(coverage, cosine, known)


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


def scorer(snap, bm: list[tuple[int, float]], mass: float, qv, side: str,
           lent: dict[int, int] | None = None, share: float = 0.0, dated: set[int] | None = None,
           cos_floor: float = 0.0, known: float = 0.0):
    """doc -> (relevance, coverage, cosine) for the hits of one query: `bm` is BM25's top
    `candidates` (raw scores), `mass` the query's idf mass, `qv` the query vector (None
    without one). A doc's cosine is read from its own vector, not from a ranking; below
    the model's vector floor (`cos_floor`, what unrelated text reaches) it counts as 0.

    What ranking carries over, relevance does too: a memory lifted by the one beside it
    (`lent`: borrower -> lender) is at least `share` (neighbour_weight) x its lender's
    own relevance; one created in the period the query names (`dated`) at least
    DATED. `known` is the query's known_share (the "cjk" side only)."""
    bm_s = dict(bm)
    lent = lent or {}
    dated = dated or set()

    def own(doc: int) -> tuple[float, float, float]:
        cosine = None
        i = snap.row_of.get(doc)
        if qv is not None and snap.vectors is not None and i is not None and snap.has_vec[i]:
            cosine = float(snap.vectors[i] @ qv)
            cosine = cosine if cosine >= cos_floor else 0.0
        cov, cos = features(bm_s.get(doc), mass, cosine)
        hit_side = "words" if side == "hybrid" and cosine is None else side
        return relevance(hit_side, cov, cos, known), cov, cos

    def rel(doc: int) -> tuple[float, float, float]:
        p, cov, cos = own(doc)
        if doc in lent:
            p = max(p, share * own(lent[doc])[0])
        if doc in dated:
            p = max(p, DATED)
        return round(p, 6), round(cov, 6), round(cos, 6)

    return rel
