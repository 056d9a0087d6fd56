"""A method has one colour in every learning-curve plot of a comparison; results.md says what is plotted."""

from __future__ import annotations

from matplotlib.axes import Axes

from searchgym.harness.plots import plot_learning_curves


def test_a_method_keeps_its_colour_in_the_combined_and_per_method_plots(tmp_path, monkeypatch) -> None:
    drawn: list[tuple[str, str]] = []
    original_plot, original_line = Axes.plot, Axes.axhline

    def plot(self, *args, **kwargs):
        drawn.append((kwargs["label"].split(" ")[0], kwargs["color"]))
        return original_plot(self, *args, **kwargs)

    def axhline(self, *args, **kwargs):
        drawn.append((kwargs["label"].split(" ")[0], kwargs["color"]))
        return original_line(self, *args, **kwargs)

    monkeypatch.setattr(Axes, "plot", plot)
    monkeypatch.setattr(Axes, "axhline", axhline)
    curves = {"cw_grpo": [[(0, 0.1), (10, 0.5)]], "grpo": [[(0, 0.1), (10, 0.3)]]}
    flat = {"oracle": 1.0, "random": 0.05}
    labels = ["cw_grpo", "grpo", "oracle", "random"]
    plot_learning_curves(curves, flat, tmp_path / "all.png", labels=labels)
    combined = dict(drawn)
    drawn.clear()
    plot_learning_curves({"grpo": curves["grpo"]}, flat, tmp_path / "grpo.png", labels=labels)
    alone = dict(drawn)
    assert alone == {k: combined[k] for k in ("grpo", "oracle", "random")}
    assert len(set(combined.values())) == 4  # four methods, four colours
