"""Rendering verified submissions: ``leaderboard/README.md`` and a static, sortable ``index.html``.

Every submitted string is escaped where it is written: ``html.escape`` (quotes included) in
the page, and markdown/HTML escaping in the README. The page has no external resources and a
Content-Security-Policy that forbids loading any; its one inline script sorts a table when a
header is clicked (and once on load, by success, marking ``data-sorted`` on the table).
Output depends only on the submissions (no build time), so a rebuild without changes is
byte-identical.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from searchgym.harness.methods import PRIVILEGED_METHOD_NAMES, PRIVILEGED_NOTE
from searchgym.harness.privileged_runs import as_mapping as _mapping
from searchgym.harness.privileged_runs import run_reads_private_state, served_behaviours

if TYPE_CHECKING:
    from searchgym.leaderboard_checks import Verified

_PRIVILEGED_NOTE = (f"A method marked (privileged) {PRIVILEGED_NOTE} (a run against the scripted endpoint "
                    "replays the oracle's actions, so it is marked too). "
                    "The reader baseline, like random, reads only what an agent sees.")
_TRAINED_NOTE = ("Trained by: `re-trained` rows were re-run by a maintainer from their recorded run config "
                 "(`searchgym leaderboard retrain`) and gave the submitted predictions; `self-reported` rows "
                 "were re-scored, not re-run, so they show what was submitted, not who trained it.")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~])")


def md_escape(text: Any, limit: int = 200) -> str:
    """One-line markdown-safe text: HTML entities for & < >, backslashes for markdown syntax."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def _sorted_by_suite(entries: Sequence[Verified]) -> dict[str, list[Verified]]:
    suites: dict[str, list[Verified]] = {}
    for entry in entries:
        suites.setdefault(entry.submission["suite"]["id"], []).append(entry)
    for rows in suites.values():
        rows.sort(key=lambda e: (-e.metrics["success"], -e.metrics["f1"], e.submission["method"]["name"],
                                 e.submission["method"].get("seed", 0)))
    return dict(sorted(suites.items()))


def _families(rows: Sequence[Verified]) -> list[str]:
    return sorted({f for e in rows for f in e.metrics["families"]})


def training_status(entry: Verified) -> str:
    """``re-trained`` (a maintainer re-ran the recorded config and got these predictions),
    ``re-trained: differs`` (they re-ran it and did not), or ``self-reported`` (re-scored only)."""
    record = entry.retrained
    if not record:
        return "self-reported"
    return "re-trained" if record.get("matches") is True else "re-trained: differs"


#: The label ``benchmarks/text_suite_submissions.py`` gives a run against the scripted endpoint.
SCRIPTED_ENDPOINT_NAME = "scripted-endpoint"
#: Names (case-folded) marked privileged by themselves: the oracle, and the endpoint that replays it.
PRIVILEGED_NAMES = frozenset({*(n.casefold() for n in PRIVILEGED_METHOD_NAMES), SCRIPTED_ENDPOINT_NAME})


def is_privileged(submission: Mapping[str, Any]) -> bool:
    """Whether the board marks a row privileged: any trace of the oracle in its name or run block (under
    another label, as an ``evaluate`` agent, or replayed by the scripted endpoint). Why: ``submit --name
    gold-chain`` of an oracle run, then the ``scripted-endpoint`` rows (their run names the ``openai``
    agent), were shown at 1.000 unmarked, beside methods that read only what an agent sees. The
    ``scripted-endpoint`` name marks only a run whose replies named no behaviour: where they did, they
    say whether the oracle was replayed (the random baseline's replies read nothing private)."""
    run = _mapping(submission.get("run"))
    names = (_mapping(submission.get("method")).get("name"), run.get("method"), _mapping(run.get("options")).get("agent"))
    served = served_behaviours(run) is not None  # then the replies, not the label, say what played
    marking = PRIVILEGED_NAMES - {SCRIPTED_ENDPOINT_NAME} if served else PRIVILEGED_NAMES
    if any(isinstance(n, str) and n.casefold() in marking for n in names):
        return True
    return run_reads_private_state(run)  # the rule the harness's tables use


def _row(entry: Verified, rank: int, families: Sequence[str]) -> list[tuple[str, Any, str]]:
    """(text, sort value, kind) per column."""
    s, m = entry.submission, entry.metrics
    hardware = s["hardware"].get("device_name") or s["hardware"]["device"]
    name = s["method"]["name"]
    name = f"{name} (privileged)" if is_privileged(s) else name
    cells = [(str(rank), rank, "number"), (name, name, "text"),
             (f"{m['success']:.3f}", m["success"], "number"), (f"{m['f1']:.3f}", m["f1"], "number")]
    for family in families:
        value = m["families"].get(family, {}).get("success")
        cells.append(("—", -1, "number") if value is None else (f"{value:.3f}", value, "number"))
    cells += [(str(s["training_budget"]), s["training_budget"], "number"),
              (str(s["method"].get("seed", "")), s["method"].get("seed", -1), "number"),
              (hardware, hardware, "text"), (training_status(entry), training_status(entry), "text"),
              (s["method"]["description"], s["method"]["description"], "text")]
    return cells


def _headers(families: Sequence[str]) -> list[tuple[str, str]]:
    """(label, key) per column."""
    return ([("#", "rank"), ("method", "method"), ("success", "success"), ("F1", "f1")]
            + [(f"{f} success", f"family-{f}") for f in families]
            + [("training budget (env steps)", "budget"), ("seed", "seed"), ("hardware", "hardware"),
               ("trained by", "trained"), ("description", "description")])


def render_markdown(entries: Sequence[Verified]) -> str:
    lines = ["# searchgym leaderboard", "",
             ("Built by `searchgym leaderboard build` from the verified files in `submissions/` "
             "(each re-scored against its regenerated suite). A sortable view is in `index.html`."), "",
             ("To submit: `searchgym leaderboard submit RUN_DIR --name NAME --description TEXT`, then "
             "`searchgym leaderboard verify FILE` and open a pull request adding the file to `submissions/`."), "",
             _TRAINED_NOTE, "", _PRIVILEGED_NOTE, ""]
    suites = _sorted_by_suite(entries)
    if not suites:
        lines.append("No verified submissions yet.")
    for suite_id, rows in suites.items():
        families = _families(rows)
        suite_hash = rows[0].submission["suite"]["hash"]
        lines += [f"## {md_escape(suite_id)}", "", (f"Suite hash `{suite_hash[:16]}`; {len(rows)} submission(s); "
                  "success and F1 on the test split."), ""]
        headers = _headers(families)
        lines.append("| " + " | ".join(md_escape(h) for h, _ in headers) + " |")
        lines.append("|" + "---|" * len(headers))
        for rank, entry in enumerate(rows, start=1):
            lines.append("| " + " | ".join(md_escape(text) for text, _, _ in _row(entry, rank, families)) + " |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


_STYLE = """body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;margin:1rem 0;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3;cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td.number{text-align:right;font-variant-numeric:tabular-nums}td.description{max-width:28rem}
code{background:#f3f3f3;padding:0 3px}"""

_SCRIPT = """(function () {
  function value(cell, kind) {
    var raw = cell.getAttribute("data-value");
    return kind === "number" ? parseFloat(raw) : raw.toLowerCase();
  }
  function sortTable(table, index, descending) {
    var th = table.tHead.rows[0].cells[index];
    var kind = th.getAttribute("data-type");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a.cells[index], kind), y = value(b.cells[index], kind);
      var order = x < y ? -1 : x > y ? 1 : 0;
      if (order === 0) { order = parseFloat(a.cells[0].getAttribute("data-value")) -
                                 parseFloat(b.cells[0].getAttribute("data-value")); return order; }
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    table.setAttribute("data-sorted", th.getAttribute("data-key") + (descending ? "-desc" : "-asc"));
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.board"), function (table) {
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (th, index) {
      th.addEventListener("click", function () {
        sortTable(table, index, th.getAttribute("aria-sort") !== "descending");
      });
    });
    var success = Array.prototype.findIndex.call(headers, function (th) {
      return th.getAttribute("data-key") === "success";
    });
    sortTable(table, success, true);
  });
})();"""


def render_html(entries: Sequence[Verified]) -> str:
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             ("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
             "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"),
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>searchgym leaderboard</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
             "<h1>searchgym leaderboard</h1>",
             ("<p>Every row was verified by <code>searchgym leaderboard verify</code>: the suite was regenerated "
             "and the predictions re-scored. Click a column header to sort.</p>"),
             f"<p>{e(_TRAINED_NOTE).replace('`', '')}</p>", f"<p>{e(_PRIVILEGED_NOTE)}</p>"]
    suites = _sorted_by_suite(entries)
    if not suites:
        parts.append("<p>No verified submissions yet.</p>")
    for suite_id, rows in suites.items():
        families = _families(rows)
        parts += [f"<section><h2>{e(suite_id)}</h2>",
                  (f"<p>Suite hash <code>{e(rows[0].submission['suite']['hash'][:16])}</code>; "
                  f"{len(rows)} submission(s); test split.</p>"),
                  f'<table class="board" id="board-{e(suite_id)}"><thead><tr>']
        kinds = [kind for _, _, kind in _row(rows[0], 1, families)]
        for (label, key), kind in zip(_headers(families), kinds, strict=True):
            parts.append(f'<th data-key="{e(key)}" data-type="{kind}">{e(label)}</th>')
        parts.append("</tr></thead><tbody>")
        for rank, entry in enumerate(rows, start=1):
            cells = "".join(
                f'<td class="{kind}{" description" if i == len(kinds) - 1 else ""}" data-value="{e(str(value))}">'
                f"{e(text)}</td>"
                for i, (text, value, kind) in enumerate(_row(entry, rank, families)))
            parts.append(f"<tr>{cells}</tr>")
        parts.append("</tbody></table></section>")
    parts += [f"<script>{_SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"
