// voxeval label: the page. Every field is rendered with textContent, never as HTML.
"use strict";
const TASK = document.body.dataset.task;
const TOKEN = new URLSearchParams(location.search).get("token") || "";
const ACTS = ["Question", "Check-Question", "Answer", "Inform", "Request", "Suggestion", "Commissive"];
const BOUNDARY = /[。．？！?!、,.\n]/;
const $ = (id) => document.getElementById(id);
let state = null, item = null, chars = [], steps = [], pending = null, score = null, shownAt = Date.now();

function api(path, body) {
  const url = path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN);
  const opts = body ? {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)} : {};
  return fetch(url, opts).then((r) => r.json().then((j) => ({ok: r.ok, body: j})));
}
function say(text, bad) { const s = $("status"); s.textContent = text; s.className = bad ? "bad" : "ok"; }
function media(path) { return "media/" + path.split("/").map(encodeURIComponent).join("/") + "?token=" + encodeURIComponent(TOKEN); }

function load(newState) {
  state = newState; item = state.item; steps = []; score = null; shownAt = Date.now();
  $("note").value = "";
  const mean = state.mean_seconds === null ? "—" : state.mean_seconds.toFixed(1) + " s";
  $("progress").textContent = item === null ? `All ${state.total} items judged. Thank you.`
    : `Item ${state.done + 1} of ${state.total} · skipped ${state.skipped} · mean time per item ${mean} · labeller ${state.labeller}`;
  if (item === null) {
    for (const id of ["reply", "instruction", "attributes", "input-text", "system"]) if ($(id)) $(id).replaceChildren();
    renderTask(); return;
  }
  $("reply").textContent = item.text;
  $("system").textContent = item.system ? "system: " + item.system : "";
  setAudio("input-audio", item.input_audio); setAudio("reply-audio", item.reply_audio);
  if (TASK === "da") { $("input-text").textContent = item.input_text || "(not recorded)"; chars = Array.from(item.text); pending = nextSpan(0); }
  else { $("instruction").textContent = item.instruction || "(not recorded)"; renderAttributes(); }
  renderTask();
}
function setAudio(id, path) { const a = $(id); if (path) a.src = media(path); else a.removeAttribute("src"); }
function play(id) { const a = $(id); if (a.getAttribute("src")) { a.currentTime = 0; a.play(); } else say("no audio for this item", true); }
function renderAttributes() {
  const ul = $("attributes"); ul.replaceChildren();
  for (const [k, v] of Object.entries(item.attributes || {})) { const li = document.createElement("li"); li.textContent = k + ": " + v; ul.append(li); }
  if (!ul.children.length) { const li = document.createElement("li"); li.textContent = "(none recorded)"; ul.append(li); }
}
function renderTask() { if (TASK === "da") renderDA(); else renderStyle(); }

// ---- dialogue acts
function boundaryAfter(i) { let j = i; while (j < chars.length && !BOUNDARY.test(chars[j])) j++; while (j < chars.length && BOUNDARY.test(chars[j])) j++; return j; }
function boundaryBefore(start, end) { let j = end - 1; while (j > start && BOUNDARY.test(chars[j - 1])) j--; while (j > start && !BOUNDARY.test(chars[j - 1])) j--; return j > start ? j : end; }
function used() { return steps.length ? steps[steps.length - 1].end : 0; }
function nextSpan(from) { return from >= chars.length ? null : {start: from, end: boundaryAfter(from)}; }
function renderDA() {
  const box = $("reply"); box.replaceChildren();
  if (item) {
    let i = 0;
    const cut = (a, b, cls) => { if (b > a) { const s = document.createElement("span"); s.textContent = chars.slice(a, b).join(""); if (cls) s.className = cls; box.append(s); } };
    for (const st of steps) { cut(i, st.start, ""); cut(st.start, st.end, "done"); i = st.end; }
    if (pending) { cut(i, pending.start, ""); cut(pending.start, pending.end, "pending"); i = pending.end; }
    cut(i, chars.length, "");
  }
  const body = $("steps"); body.replaceChildren();
  steps.forEach((st, k) => {
    const tr = document.createElement("tr");
    for (const t of [String(k + 1), st.act, chars.slice(st.start, st.end).join("")]) { const td = document.createElement("td"); td.textContent = t; tr.append(td); }
    const td = document.createElement("td"); const inp = document.createElement("input");
    inp.className = "imp"; inp.value = st.importance; inp.inputMode = "decimal"; inp.id = "imp" + k;
    inp.addEventListener("input", () => { st.importance = inp.value; showRules(); });
    td.append(inp); tr.append(td); body.append(tr);
  });
  showRules();
}
function ruleProblem() {
  if (!steps.length) return "add at least one step";
  const w = steps.map((s) => Number(s.importance));
  if (w.some((x, k) => steps[k].importance === "" || !isFinite(x) || x <= 0 || x > 1 || Math.abs(x * 100 - Math.round(x * 100)) > 1e-6))
    return "each importance must be in (0, 1] with at most two decimals";
  const sum = w.reduce((a, b) => a + Math.round(b * 100), 0);
  if (sum !== 100) return `importances sum to ${(sum / 100).toFixed(2)}; they must sum to exactly 1`;
  const top = Math.max(...w);
  if (w.filter((x) => Math.abs(x - top) < 1e-9).length > 1) return "the maximum importance is shared; the central act must be unique";
  return "";
}
function showRules() { const p = ruleProblem(); const r = $("rules"); r.textContent = p || "importances: sum 1.00, unique maximum ✓"; r.className = p ? "bad" : "ok"; }
function addStep(k) {
  if (!pending) { say("select a span first (no text left after the last step)", true); return; }
  steps.push({act: ACTS[k], start: pending.start, end: pending.end, importance: steps.length ? "" : "1"});
  if (steps.length > 1 && steps[0].importance === "1") steps[0].importance = "";
  pending = nextSpan(used()); renderDA();
}
function moveSpan(e) {
  if (!pending) { if (used() < chars.length) pending = nextSpan(used()); renderDA(); return; }
  const p = pending;
  if (e.altKey) p.start = e.key === "ArrowRight" ? Math.min(p.start + 1, p.end - 1) : Math.max(p.start - 1, used());
  else if (e.shiftKey) p.end = e.key === "ArrowRight" ? boundaryAfter(p.end) : boundaryBefore(p.start, p.end);
  else p.end = e.key === "ArrowRight" ? Math.min(p.end + 1, chars.length) : Math.max(p.end - 1, p.start + 1);
  renderDA();
}
function mouseSpan() {
  const sel = window.getSelection(); if (!sel || sel.isCollapsed || !item) return;
  const box = $("reply"); const r = sel.getRangeAt(0);
  if (!box.contains(r.startContainer) || !box.contains(r.endContainer)) return;
  const offset = (node, off) => { const pre = document.createRange(); pre.selectNodeContents(box); pre.setEnd(node, off); return Array.from(pre.toString()).length; };
  let a = offset(r.startContainer, r.startOffset), b = offset(r.endContainer, r.endOffset);
  a = Math.max(a, used());
  if (b > a) { pending = {start: a, end: b}; sel.removeAllRanges(); renderDA(); }
}
function daPayload() {
  return {steps: steps.map((s) => ({act: s.act, importance: Number(s.importance), start: s.start, end: s.end, text: chars.slice(s.start, s.end).join("")}))};
}

// ---- style
function renderStyle() {
  const box = $("scores"); box.replaceChildren();
  for (let k = 1; k <= 5; k++) { const b = document.createElement("button"); b.textContent = `${k}`; b.className = score === k ? "chosen" : ""; b.addEventListener("click", () => { score = k; renderStyle(); }); box.append(b); }
}

// ---- common actions
function send(action) {
  if (action !== "undo" && !item) return;
  const body = {action, key: item ? item.key : "", note: $("note").value, seconds: (Date.now() - shownAt) / 1000};
  if (action === "label") {
    if (TASK === "da") { const p = ruleProblem(); if (p) { say(p, true); return; } Object.assign(body, daPayload()); }
    else { if (score === null) { say("choose a score 1-5 first", true); return; } body.score = score; }
  }
  api("api/submit", body).then((r) => {
    if (!r.ok) { say(`not saved: ${r.body.field}: ${r.body.error}`, true); return; }
    say(action === "undo" ? (r.body.undone ? "undone: back to the last saved item" : "nothing to undo") : `saved (${action})`, false);
    load(r.body.state);
  }).catch(() => say("not saved: the server did not answer (is voxeval label still running?)", true));
}
document.addEventListener("keydown", (e) => {
  const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
  if (e.key === "Escape") { e.target.blur && e.target.blur(); return; }
  if (e.key === "Enter" && !(e.target instanceof HTMLTextAreaElement && e.shiftKey)) { e.preventDefault(); e.target.blur && e.target.blur(); send("label"); return; }
  if (typing || e.ctrlKey || e.metaKey) return;
  const k = e.key.toLowerCase();
  if (k === "s") send("skip"); else if (k === "f") send("flag"); else if (k === "u") send("undo");
  else if (k === "p") play("input-audio"); else if (k === "r") play("reply-audio");
  else if (k === "n") { e.preventDefault(); $("note").focus(); }
  else if (TASK === "da" && k === "i" && $("imp0")) { e.preventDefault(); $("imp0").focus(); $("imp0").select(); }
  else if (TASK === "da" && /^[1-7]$/.test(e.key)) addStep(Number(e.key) - 1);
  else if (TASK === "da" && (e.key === "ArrowRight" || e.key === "ArrowLeft")) { e.preventDefault(); moveSpan(e); }
  else if (TASK === "da" && e.key === "Backspace") { steps.pop(); pending = nextSpan(used()); renderDA(); }
  else if (TASK === "style" && /^[1-5]$/.test(e.key)) { score = Number(e.key); renderStyle(); }
  else return;
});
$("submit").addEventListener("click", () => send("label"));
$("skip").addEventListener("click", () => send("skip"));
$("flag").addEventListener("click", () => send("flag"));
$("undo").addEventListener("click", () => send("undo"));
$("play-input").addEventListener("click", () => play("input-audio"));
$("play-reply").addEventListener("click", () => play("reply-audio"));
if (TASK === "da") {
  $("remove").addEventListener("click", () => { steps.pop(); pending = nextSpan(used()); renderDA(); });
  $("reply").addEventListener("mouseup", mouseSpan);
  const acts = $("acts");
  ACTS.forEach((a, k) => { const b = document.createElement("button"); b.textContent = `${k + 1} ${a}`; b.addEventListener("click", () => addStep(k)); acts.append(b); });
}
api("api/state").then((r) => { if (r.ok) load(r.body); else say(r.body.error, true); });
