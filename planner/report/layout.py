"""What every report page shares: the page shell, style, script, and number formats.

Pages are self-contained: the style sheet is inline in each page (a page saved or
attached to a ticket still reads well) and the only script is the index table's sort
and filter. Each page carries a Content-Security-Policy that allows exactly that inline
style and script (by hash) and nothing else: no network fetch, no other script, no
inline event handler. Escaping is what keeps a hostile topic name inert; the policy is a
second wall behind it.
"""

from __future__ import annotations

import base64
import hashlib
import math
from datetime import datetime, timedelta
from html import escape

from planner.group_labels import duration_words as fmt_duration
from planner.report.model import DIMENSION_UNITS

__all__ = [
    "SCRIPT",
    "STATUS_LABELS",
    "STYLE",
    "fmt_count",
    "fmt_duration",
    "fmt_needed_by",
    "fmt_pct",
    "fmt_rate",
    "page",
    "status_badge",
]

#: Status -> (label shown, one-line meaning). The label is text, so colour is never the
#: only signal.
STATUS_LABELS: dict[str, tuple[str, str]] = {
    "increase": ("increase now", "not enough partitions for today's peak"),
    "plan-increase": ("increase within horizon", "enough today, not by the end of the horizon"),
    "ok": ("ok", "enough partitions to the end of the horizon"),
    "create": ("create", "the topic does not exist yet: create it with the recommended count"),
    "deploy": ("deploy", "a new group: run the recommended members when the topic is created"),
    "missing-capacity": ("missing figures", "no capacity (Tp/Tc) or throughput to size on"),
    "error": ("error", "planning failed for this topic"),
    "no-figures": ("no throughput", "no throughput samples in the history window to size on"),
    "unknown-topic": (
        "unknown topic",
        "throughput figures for a topic the run's topics table does not list",
    ),
    "invalid-figures": (
        "figures set aside",
        "its figures broke an input rule and were set aside; the reason says which",
    ),
    "under-provisioned": ("under-provisioned", "fewer members than today's peak needs"),
    "no-standby": (
        "no standby member",
        "keeps up with today's peak, with fewer members than min_group_members: none to "
        "take over while one restarts",
    ),
    "over-provisioned": ("over-provisioned", "more members than the horizon needs"),
    "unplanned": ("not planned", "a topic the group reads has no plan"),
}

STYLE = """
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;
--s0:#0072b2;--s1:#d55e00;--s2:#009e73;--s3:#cc79a7;--s4:#e69f00;--s5:#56b4e9;
--s6:#000;--s7:#999;--bad:#b42318;--warn:#9a6700;--good:#1a7f37;--info:#0969da}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1180px;padding:1.2rem 1.5rem 3rem;color:var(--fg);
background:var(--bg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:1.6rem;margin:.2rem 0 .4rem;overflow-wrap:anywhere}
h2{font-size:1.2rem;margin:2rem 0 .6rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
h3{font-size:1rem;margin:1.2rem 0 .4rem}
a{color:var(--info)}
.meta,.muted,figcaption{color:var(--muted)}
.meta{margin:0 0 1rem}
nav.crumbs{font-size:.9rem;margin-bottom:.4rem}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em;
overflow-wrap:break-word}
.wide{overflow-x:auto}
pre.command{background:var(--soft);border:1px solid var(--line);padding:.5rem .7rem;
overflow-x:auto;margin:.4rem 0}
td a{overflow-wrap:break-word}
table{border-collapse:collapse;width:100%;margin:.4rem 0 1rem;font-size:.92rem}
th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:hover{background:var(--soft)}
tr.notes td{border-top:0;padding-top:0;font-size:.88rem;color:var(--muted)}
tr:has(+ tr.notes) td{border-bottom:0}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(230px,1fr));gap:.8rem}
.card{border:1px solid var(--line);border-left-width:6px;border-radius:6px;padding:.6rem .8rem}
.card .big{font-size:1.8rem;font-weight:700;line-height:1.1}
.card ul{margin:.4rem 0 0;padding-left:1.1rem;font-size:.9rem}
.card.increase,.card.error{border-left-color:var(--bad)}
.card.plan-increase,.card.missing{border-left-color:var(--warn)}
.card.ok{border-left-color:var(--good)}
.status{display:inline-block;border-radius:1em;padding:0 .55em;font-size:.82rem;
font-weight:600;white-space:nowrap;border:1px solid currentColor}
.status::before{content:"\\25CF\\00a0"}
.st-increase,.st-error,.st-under-provisioned{color:var(--bad)}
.st-plan-increase,.st-missing-capacity,.st-over-provisioned,.st-no-figures,.st-unknown-topic,
.st-invalid-figures,.st-no-standby{
color:var(--warn)}
.st-unplanned{color:var(--muted)}
.st-create,.st-deploy{color:var(--info)}
.st-ok{color:var(--good)}
.warnings{border:1px solid #d4a72c;background:#fff8c5;border-radius:6px;padding:.5rem 1rem}
.warnings li{margin:.25rem 0}
.error-box{border:1px solid var(--bad);background:#ffebe9;border-radius:6px;padding:.5rem 1rem}
.headline{display:grid;grid-template-columns:repeat(auto-fit,minmax(190px,1fr));gap:.6rem;
margin:1rem 0}
.headline div{background:var(--soft);border-radius:6px;padding:.5rem .7rem}
.headline b{display:block;font-size:1.35rem}
ol.why li,ul.plain li{margin:.2rem 0}
.controls{display:flex;flex-wrap:wrap;gap:.8rem;align-items:center;margin:.6rem 0}
.controls input,.controls select{font:inherit;padding:.25rem .4rem}
.controls input{min-width:18rem}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;
color:inherit;text-align:inherit}
th button::after{content:" \\2195";color:var(--muted)}
th[aria-sort=ascending] button::after{content:" \\2191"}
th[aria-sort=descending] button::after{content:" \\2193"}
details summary{cursor:pointer}
figure{margin:1rem 0 1.6rem}
figure h3{margin-bottom:.2rem}
svg.chart{max-width:100%;height:auto;font:12px system-ui,sans-serif}
svg .grid{stroke:#eaeef2}svg .baseline,svg .tick-mark{stroke:#8c959f}
svg .tick{fill:var(--muted)}svg .axis-title{fill:var(--fg);font-weight:600}
svg .series path,svg .key line{fill:none;stroke-width:2}
svg .legend text{fill:var(--fg)}
svg .bars rect{stroke:none}svg .key.bars line{stroke-width:10}
svg .value{fill:var(--fg);font-size:11px}
svg .s0 path,svg .s0 line{stroke:var(--s0)}svg .s0 rect{fill:var(--s0)}
svg .s1 path,svg .s1 line{stroke:var(--s1)}svg .s1 rect{fill:var(--s1)}
svg .s2 path,svg .s2 line{stroke:var(--s2)}svg .s2 rect{fill:var(--s2)}
svg .s3 path,svg .s3 line{stroke:var(--s3)}svg .s3 rect{fill:var(--s3)}
svg .s4 path,svg .s4 line{stroke:var(--s4)}svg .s4 rect{fill:var(--s4)}
svg .s5 path,svg .s5 line{stroke:var(--s5)}svg .s5 rect{fill:var(--s5)}
svg .s6 path,svg .s6 line{stroke:var(--s6)}svg .s6 rect{fill:var(--s6)}
svg .s7 path,svg .s7 line{stroke:var(--s7)}svg .s7 rect{fill:var(--s7)}
svg .emphasis rect,svg .key.emphasis line{fill:var(--bad);stroke:var(--bad)}
svg .ref line{stroke-width:1.5}svg .ref text{font-size:11px}
svg .ref text,svg .marker text,svg .value{paint-order:stroke;stroke:#fff;stroke-width:3px;
stroke-linejoin:round}svg .key text{font-size:12px}
svg .ref-target line{stroke:var(--bad);stroke-dasharray:8 4}svg .ref-target text{fill:var(--bad)}
svg .ref-capacity line{stroke:var(--fg)}svg .ref-capacity text{fill:var(--fg)}
svg .ref-limit line{stroke:#6e7781;stroke-dasharray:3 3}svg .ref-limit text{fill:#57606a}
svg .ref-peak line{stroke:var(--s4);stroke-dasharray:1 3}svg .ref-peak text{fill:#7d4e00}
svg .marker line{stroke:var(--fg);stroke-dasharray:2 2}svg .marker text{fill:var(--fg)}
footer{margin-top:3rem;font-size:.85rem;color:var(--muted)}
@media print{body{max-width:none;padding:0;font-size:11pt}.controls,nav.crumbs{display:none}
a{color:inherit;text-decoration:none}h2{break-after:avoid}tr,figure,.card{break-inside:avoid}}
""".strip()

# The index table's sort and filter. It reads the table it finds (no data is embedded
# in the script), so nothing from the report ever lands inside a <script> element.
SCRIPT = """
(function () {
  "use strict";
  var table = document.getElementById("topics");
  var controls = document.getElementById("controls");
  if (!table || !controls) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var text = rows.map(function (r) { return r.textContent.toLowerCase(); });
  var box = document.getElementById("filter");
  var status = document.getElementById("status-filter");
  var protocol = document.getElementById("protocol-filter");
  var shown = document.getElementById("shown");
  controls.hidden = false;
  function readBy(r, p) {
    return (" " + (r.dataset.protocols || "") + " ").indexOf(" " + p + " ") !== -1;
  }
  function apply() {
    var q = box.value.trim().toLowerCase();
    var s = status.value;
    var p = protocol ? protocol.value : "";
    var n = 0;
    rows.forEach(function (r, i) {
      var ok = (!q || text[i].indexOf(q) !== -1) && (!s || r.dataset.status === s) &&
        (!p || readBy(r, p));
      r.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = n + " of " + rows.length + " topics shown";
  }
  function key(r, col, numeric) {
    var v = r.cells[col].dataset.sort;
    if (v === undefined) { v = r.cells[col].textContent.trim(); }
    if (!numeric) { return v.toLowerCase(); }
    var f = parseFloat(v);
    return isNaN(f) ? -Infinity : f;
  }
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    var button = th.querySelector("button");
    if (!button) { return; }
    button.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      var numeric = th.dataset.type === "number";
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var order = rows.map(function (r, i) { return [key(r, col, numeric), i]; });
      order.sort(function (a, b) {
        var c = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
        return (up ? c : -c) || a[1] - b[1];
      });
      var frag = document.createDocumentFragment();
      order.forEach(function (o) { frag.appendChild(rows[o[1]]); });
      body.appendChild(frag);
    });
  });
  box.addEventListener("input", apply);
  status.addEventListener("change", apply);
  if (protocol) { protocol.addEventListener("change", apply); }
  apply();
})();
""".strip()


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


_STYLE_HASH = _sha256(STYLE)
_SCRIPT_HASH = _sha256(SCRIPT)


def _policy(with_script: bool) -> str:
    script = _SCRIPT_HASH if with_script else "'none'"
    return (
        f"default-src 'none'; style-src {_STYLE_HASH}; script-src {script}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def page(title: str, body: str, *, with_script: bool = False) -> str:
    """A whole HTML page around `body` (already escaped HTML); `title` is plain text."""
    script = f"\n<script>{SCRIPT}</script>" if with_script else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_policy(with_script)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n"
        f"<body>\n{body}{script}\n</body>\n</html>\n"
    )


def status_badge(status: str) -> str:
    """A status as a coloured pill whose text says the status (colour is not needed)."""
    label, meaning = STATUS_LABELS.get(status, (status, ""))
    return (
        f'<span class="status st-{escape(status)}" title="{escape(meaning)}">{escape(label)}</span>'
    )


def fmt_count(value: int | None) -> str:
    """A whole number with thousands separators, or an em dash for unknown."""
    return "\u2014" if value is None else f"{value:,}"


def fmt_rate(value: float | None, dimension: str | None = None) -> str:
    """A rate as people read it: whole numbers from 100, 2 decimals from 1, and three
    significant figures below 1 (a quiet topic's 0.00412 MiB/s is not "0.00")."""
    if value is None or not math.isfinite(value):
        return "\u2014"
    if value == 0 or abs(value) >= 100:
        text = f"{value:,.0f}"
    elif abs(value) >= 1:
        text = f"{value:,.2f}"
    else:
        text = f"{value:.3g}"
        if "e" in text:  # below 0.0001: fixed notation, three significant figures
            text = f"{value:.{2 - math.floor(math.log10(abs(value)))}f}"
    if dimension is None:
        return text
    return f"{text} {DIMENSION_UNITS[dimension].split(' ')[0]}"


def fmt_needed_by(days: float, start: datetime) -> str:
    """When a count runs out, `days` after `start` (the end of the data): a date."""
    if days < 1:
        return "now"
    when = start + timedelta(days=days)
    return f"about {when:%Y-%m-%d} (in {math.floor(days):,} day{'' if days < 2 else 's'})"


def fmt_headroom(pct: float | None) -> str:
    """Spare capacity over a peak: a signed percentage, or from +900 % on, how many
    times the peak the partitions carry (`+83467 %` reads better as `835x the peak`)."""
    if pct is not None and math.isfinite(pct) and pct >= 900:
        return f"{1 + pct / 100:,.0f}\u00d7 the peak"
    return fmt_pct(pct, signed=True)


def fmt_pct(value: float | None, *, signed: bool = False, fraction: bool = False) -> str:
    """A percentage (`fraction`: the value is a fraction, 0.25 -> 25 %)."""
    if value is None or not math.isfinite(value):
        return "\u2014"
    pct = value * 100 if fraction else value
    # Below 1 % one decimal: -0.4 % is not "-0 %", and 0.3 % is not nothing.
    decimals = 1 if 0 < abs(pct) < 0.95 else 0
    return f"{pct:+.{decimals}f} %" if signed else f"{pct:.{decimals}f} %"
