"""Which branch of a chain, or which street (gitmem.lifecycle.branches): look-alikes of one
shop written in two shapes stay two; one branch written two ways stays one."""

from __future__ import annotations

import pytest

from gitmem.lifecycle import branches, kinds, samefact


@pytest.mark.parametrize("a, b", [
    ("麦香坊人民路店周三碱水面包打八折。", "麦香坊 解放路店 周三 碱水面包八折"),
    ("海底捞（龙湖天街店）营业到凌晨2点", "万象城那家海底捞营业到凌晨两点。"),
    ("麦德龙（余杭店）21:30关门", "钱塘区那家麦德龙晚上九点半关门。"),
    ("The Hetherington's Hardware on Coopers Row has the 15mm push-fit elbows in stock.",
     "hetherington's wharf st branch – 15mm push-fit elbows in stock"),
])
def test_two_branches_or_two_streets_are_two_places(a, b):
    assert branches.differ(a, b)
    # (a lower-case note's head may tell them apart first: samefact's names, notes.branch_in_head)
    assert samefact.conflict(a, b) in ("entities differ", "names differ")


@pytest.mark.parametrize("a, b", [
    ("麦香坊人民路店周三碱水面包打八折。", "人民路那家麦香坊周三碱水面包八折"),  # one branch, two ways
    ("The Greggs on Otley Road opens at 7.", "greggs otley rd opens 7am"),
    ("我们那家店周三关门", "书店周三关门"),  # no branch named
])
def test_one_branch_or_no_branch_is_no_difference(a, b):
    assert not branches.differ(a, b)


@pytest.mark.parametrize("a, b, kind", [
    ("Our travel insurance renews on 2 April.", "02/04 – gadget insurance renewal", "cover"),
    ("The washing machine is under warranty for three years.", "tumble dryer – 3 yr warranty", "appliance"),
    ("The sweet peas need feeding every ten days.", "dahlias – feed every 10 days", "plant"),
])
def test_what_a_policy_covers_an_appliance_and_a_plant_are_kinds(a, b, kind):
    assert kinds.differ(a, b) == kind


def test_a_fridge_freezer_is_the_fridge():
    assert kinds.differ("The new fridge-freezer is 60 cm wide.", "new fridge: 600mm wide") is None


@pytest.mark.parametrize("a, b, same", [
    ("周六中午在外婆家菜五角场店吃饭。", "外婆家五角店 周六中午", True),  # 五角 for 五角场
    ("小林的生日饭订在海底捞人民广场店。", "小林生日 海底捞人广店", True),  # 人广 for 人民广场
    ("麦香坊人民路店周三碱水面包打八折。", "麦香坊解放路店周三碱水面包八折", False),
])
def test_a_branch_by_its_short_form_is_that_branch(a, b, same):
    assert branches.differ(a, b) != same
