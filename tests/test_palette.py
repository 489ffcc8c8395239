"""hlv_ui.palette: one colour per model, stable across calls (pages), distinct for 48 models."""

from __future__ import annotations

from hlv_ui.palette import PALETTE, assign_colours, method_colours


def test_colours_are_stable_and_distinct():
    registry: dict[str, str] = {}
    first = assign_colours(["b", "a"], registry)
    again = assign_colours(["a", "c", "b"], registry)
    assert again["a"] == first["a"] and again["b"] == first["b"]
    assert len({*again.values()}) == 3
    many = assign_colours([f"m{i}" for i in range(45)], registry)
    assert len(set(many.values())) == 45 and len(set(PALETTE)) == len(PALETTE)


def test_method_colours_cover_the_14_methods_distinctly():
    colours = method_colours()
    assert len(colours) == 14 and len(set(colours.values())) == 14


def test_lab_models_keep_their_method_colour_unless_taken():
    registry: dict[str, str] = {}
    colours = assign_colours(["calibrated", "lab MV", "lab ReL"], registry)
    methods = method_colours()
    assert colours["lab MV"] == methods["MV"]
    # ReL's colour went to "calibrated" (first free colour): the lab model gets another one
    assert colours["calibrated"] == methods["ReL"] and colours["lab ReL"] != colours["calibrated"]
    assert len(set(colours.values())) == 3
