"""Someone's relative is someone else: "My neighbour Odile's husband is a porter at the
Rosie" and "My neighbour Odile is a midwife at the Rosie" are two people, though they
share the name, the place and the shape. gitmem.lifecycle.samefact keeps such texts
apart (Chinese: zh_names.owner_in reads who owns what with 的)."""

from __future__ import annotations

import re

# People someone has: kin, household, work and neighbours (British and American spellings).
RELATIONS = ("husband wife partner spouse fiance fiancee boyfriend girlfriend son daughter child children kids "
             "mother father mum mom dad parents brother sister sibling cousin uncle aunt niece nephew grandson "
             "granddaughter grandmother grandfather grandma grandpa gran nan stepson stepdaughter stepmother "
             "stepfather neighbour neighbor friend flatmate roommate housemate boss manager colleague landlord "
             "landlady tenant lodger nanny carer childminder teacher doctor dentist vet").split()
_RELATIVE = re.compile(r"\b([A-Z][\w-]+)['’]s\s+(?:[a-z-]+\s+)?(" + "|".join(RELATIONS) + r")\b")


def relative_added(a: str, b: str) -> bool:
    """Whether `b` speaks of a relative of someone `a` names ("Odile's husband", "Uncle
    Crispin's neighbour"), whom `a` speaks of themself: `a` names them and never says the
    relation."""
    for m in _RELATIVE.finditer(b):
        if re.search(rf"\b{re.escape(m[1])}\b", a) and not re.search(rf"\b{m[2]}s?\b", a, re.I):
            return True
    return False
