// voxeval label: the page. Every field is rendered with textContent, never as HTML.
"use strict";
const TASK = document.body.dataset.task;
const TOKEN = new URLSearchParams(location.search).get("token") || "";
const ACTS = ["Question", "Check-Question", "Answer", "Inform", "Request", "Suggestion", "Commissive"];
const SENTENCE = /[。．？！?!.\n]/;  // the default span runs to a sentence end, past any 、
const CLAUSE = /[。．？！?!、,.\n]/;  // Shift+→/← move the span's end by a clause
const ARMED_MS = 1500;  // S, F and U act on a second press within this time: a typed word never skips an item
const $ = (id) => document.getElementById(id);
let state = null, item = null, chars = [], steps = [], pending = null, noAct = false, score = null;
let shownAt = Date.now(), armed = null;

function api(path, body) {
  const url = path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN);
  const opts = body ? {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)} : {};
  return fetch(url, opts).then((r) => r.json().catch(() => ({})).then((j) => ({ok: r.ok, status: r.status, body: j})));
}
// What a refused request says, never "undefined": the field and error when the server named them.
function problem(r) {
  if (r.status === 403) return "this page's token is not the server's: open the URL voxeval label printed";
  const text = [r.body.field, r.body.error].filter((x) => typeof x === "string" && x).join(": ");
  return text || `the server answered ${r.status}`;
}
function say(text, kind) { const s = $("status"); s.textContent = text; s.className = kind || "ok"; }
function fresh() { if ($("status").className !== "ok") say("", "ok"); }  // a warning or hint goes once the form changes
function media(path) { return "media/" + path.split("/").map(encodeURIComponent).join("/") + "?token=" + encodeURIComponent(TOKEN); }
function language(text) { return item.locale ? item.locale.split("-")[0] : /[\u3040-\u30ff]/.test(text) ? "ja" : ""; }
function show(id, text) { const el = $(id); if (!el) return; el.textContent = text; el.lang = item ? language(item.text + item.input_text) : ""; }

function load(newState, restored) {
  state = newState; item = state.item; steps = []; noAct = false; score = null; shownAt = Date.now(); armed = null;
  $("note").value = "";
  const mean = state.mean_seconds === null ? "—" : state.mean_seconds.toFixed(1) + " s";
  $("progress").textContent = item === null ? `All ${state.total} items judged. Thank you.`
    : `Item ${state.done + 1} of ${state.total} · skipped ${state.skipped} · mean time per item ${mean} · labeller ${state.labeller}`;
  for (const a of document.querySelectorAll("audio")) a.pause();
  if (item === null) {
    for (const id of ["reply", "instruction", "attributes", "input-text", "background", "system", "channel", "model-text"]) if ($(id)) $(id).replaceChildren();
    renderTask(); return;
  }
  show("reply", item.text);
  $("system").textContent = item.system ? "system: " + item.system : "";
  setAudio("input-audio", item.input_audio); setAudio("reply-audio", item.reply_audio);
  if (TASK === "da") {
    show("input-text", item.input_text || "(not recorded)"); show("background", item.background || "(not recorded)");
    showChannel(); chars = Array.from(item.text);
  } else { show("instruction", item.instruction || "(not recorded)"); renderAttributes(); }
  if (restored && restored.key === item.key) restore(restored);
  if (TASK === "da") pending = noAct ? null : nextSpan(used());
  renderTask();
}
// After undo the retracted judgement comes back into the form, to be corrected rather than redone.
function restore(row) {
  $("note").value = row.note || "";
  if (TASK === "style") { score = row.score || null; return; }
  noAct = row.no_act === true;
  steps = (row.steps || []).map((s) => ({act: s.act, start: s.start, end: s.end, importance: String(s.importance)}));
}
function showChannel() {
  const speech = item.text_source === "speech";
  $("channel").textContent = speech ? "speech transcript: what ASR heard in the reply audio (the text the run annotates)"
    : item.text_source === "model" ? "the model's own text" : "reply text";
  const other = speech && item.model_text && item.model_text !== item.text;
  show("model-text", other ? item.model_text : "");
  $("model-text-row").hidden = !other;
}
function setAudio(id, path) { const a = $(id); if (path) a.src = media(path); else a.removeAttribute("src"); }
function play(id) {
  for (const a of document.querySelectorAll("audio")) if (a.id !== id) a.pause();  // one recording at a time
  const a = $(id); if (a.getAttribute("src")) { a.currentTime = 0; a.play(); } else say("no audio for this item", "bad");
}
function renderAttributes() {
  const ul = $("attributes"); ul.replaceChildren();
  for (const [k, v] of Object.entries(item.attributes || {})) { const li = document.createElement("li"); li.textContent = k + ": " + v; ul.append(li); }
  if (!ul.children.length) { const li = document.createElement("li"); li.textContent = "(none recorded)"; ul.append(li); }
}
function renderTask() { if (TASK === "da") renderDA(); else renderStyle(); }

// ---- dialogue acts
// "." and "," end a sentence or clause only before a space or the end ("3.5", "window.x" are not ends)
function ends(j, mark) { return mark.test(chars[j]) && (!/[.,]/.test(chars[j]) || j + 1 >= chars.length || /\s|[.,?!]/.test(chars[j + 1])); }
function boundaryAfter(i, mark) { let j = i; while (j < chars.length && !ends(j, mark)) j++; while (j < chars.length && ends(j, mark)) j++; return j; }
function boundaryBefore(start, end) { let j = end - 1; while (j > start && ends(j - 1, CLAUSE)) j--; while (j > start && !ends(j - 1, CLAUSE)) j--; return j > start ? j : end; }
function used() { return steps.length ? steps[steps.length - 1].end : 0; }
function nextSpan(from) { return from >= chars.length ? null : {start: from, end: boundaryAfter(from, SENTENCE)}; }
function cut(box, a, b, cls, label) {
  if (b <= a) return;
  const s = document.createElement("span"); s.textContent = chars.slice(a, b).join("");
  if (cls) s.className = cls;
  if (label) s.dataset.act = label;  // shown by CSS (::before), so it is not part of the text a selection counts
  box.append(s);
}
function renderDA() {
  const box = $("reply"); box.replaceChildren();
  if (item) {
    let i = 0;
    steps.forEach((st, k) => { cut(box, i, st.start, ""); cut(box, st.start, st.end, `done step${k % 2}`, `${k + 1} ${st.act}`); i = st.end; });
    if (pending) { cut(box, i, pending.start, ""); cut(box, pending.start, pending.end, "pending"); i = pending.end; }
    cut(box, i, chars.length, "");
  }
  const body = $("steps"); body.replaceChildren();
  if (noAct) {
    const tr = document.createElement("tr"), td = document.createElement("td");
    td.colSpan = 4; td.textContent = "no act: this reply performs no dialogue act (Backspace to undo the choice)";
    tr.append(td); body.append(tr);
  }
  steps.forEach((st, k) => {
    const tr = document.createElement("tr");
    for (const t of [String(k + 1), st.act, chars.slice(st.start, st.end).join("")]) { const td = document.createElement("td"); td.textContent = t; tr.append(td); }
    tr.children[2].lang = language(item.text);
    const td = document.createElement("td"); const inp = document.createElement("input");
    inp.className = "imp"; inp.value = st.importance; inp.inputMode = "decimal"; inp.id = "imp" + k; inp.maxLength = 4;
    inp.addEventListener("input", () => {  // digits and one decimal point only
      const clean = inp.value.replace(",", ".").replace(/[^0-9.]/g, "").replace(/(\..*)\./g, "$1");
      if (clean !== inp.value) inp.value = clean;
      st.importance = clean; fresh(); showRules();
    });
    td.append(inp); tr.append(td); body.append(tr);
  });
  showRules();
}
function ruleProblem() {
  if (noAct) return "";
  if (!steps.length) return "add at least one step (1–7), or press 0 if the reply performs no act";
  const w = steps.map((s) => Number(s.importance));
  if (w.some((x, k) => steps[k].importance === "" || !isFinite(x) || x <= 0 || x > 1 || Math.abs(x * 100 - Math.round(x * 100)) > 1e-6))
    return "each importance must be in (0, 1] with at most two decimals";
  const sum = w.reduce((a, b) => a + Math.round(b * 100), 0);
  if (sum !== 100) return `importances sum to ${(sum / 100).toFixed(2)}; they must sum to exactly 1`;
  const top = Math.max(...w);
  if (w.filter((x) => Math.abs(x - top) < 1e-9).length > 1) return "the maximum importance is shared; the central act must be unique";
  return "";
}
function showRules() {
  const p = ruleProblem(); const r = $("rules");
  r.textContent = p || (noAct ? "no act ✓" : "importances: sum 1.00, unique maximum ✓"); r.className = p ? "bad" : "ok";
}
function addStep(k) {
  if (noAct) { say("this reply is marked 'no act': Backspace first to give it acts", "bad"); return; }
  if (!pending) { say("select a span first (no text left after the last step)", "bad"); return; }
  steps.push({act: ACTS[k], start: pending.start, end: pending.end, importance: steps.length ? "" : "1"});
  if (steps.length > 1 && steps[0].importance === "1") steps[0].importance = "";
  pending = nextSpan(used()); fresh(); renderDA();
}
function markNoAct() {
  if (steps.length) { say("remove the steps first (Backspace) to label the reply 'no act'", "bad"); return; }
  noAct = true; pending = null; fresh(); renderDA();
}
function removeLast() { if (noAct) noAct = false; else steps.pop(); pending = nextSpan(used()); fresh(); renderDA(); }
function moveSpan(e) {
  if (noAct) return;
  if (!pending) { if (used() < chars.length) pending = nextSpan(used()); renderDA(); return; }
  const p = pending;
  if (e.altKey) p.start = e.key === "ArrowRight" ? Math.min(p.start + 1, p.end - 1) : Math.max(p.start - 1, used());
  else if (e.shiftKey) p.end = e.key === "ArrowRight" ? boundaryAfter(p.end, CLAUSE) : boundaryBefore(p.start, p.end);
  else p.end = e.key === "ArrowRight" ? Math.min(p.end + 1, chars.length) : Math.max(p.end - 1, p.start + 1);
  fresh(); renderDA();
}
function mouseSpan() {
  const sel = window.getSelection(); if (!sel || sel.isCollapsed || !item || noAct) return;
  const box = $("reply"); const r = sel.getRangeAt(0);
  if (!box.contains(r.startContainer) || !box.contains(r.endContainer)) return;
  const offset = (node, off) => { const pre = document.createRange(); pre.selectNodeContents(box); pre.setEnd(node, off); return Array.from(pre.toString()).length; };
  let a = offset(r.startContainer, r.startOffset), b = offset(r.endContainer, r.endOffset);
  a = Math.max(a, used());
  if (b > a) { pending = {start: a, end: b}; sel.removeAllRanges(); fresh(); renderDA(); }
}
function daPayload() {
  if (noAct) return {steps: [], no_act: true};
  return {steps: steps.map((s) => ({act: s.act, importance: Number(s.importance), start: s.start, end: s.end, text: chars.slice(s.start, s.end).join("")}))};
}

// ---- style
function renderStyle() {
  const box = $("scores"); box.replaceChildren();
  for (let k = 1; k <= 5; k++) { const b = document.createElement("button"); b.textContent = `${k}`; b.className = score === k ? "chosen" : ""; b.addEventListener("click", () => { score = k; fresh(); renderStyle(); }); box.append(b); }
}

// ---- common actions
function send(action) {
  if (action !== "undo" && !item) return;
  const body = {action, key: item ? item.key : "", note: $("note").value, seconds: (Date.now() - shownAt) / 1000};
  if (action === "label") {
    if (TASK === "da") { const p = ruleProblem(); if (p) { say(p, "bad"); return; } Object.assign(body, daPayload()); }
    else { if (score === null) { say("choose a score 1-5 first", "bad"); return; } body.score = score; }
  }
  api("api/submit", body).then((r) => {
    if (!r.ok) { say("not saved: " + problem(r), "bad"); return; }
    const what = action === "label" && body.no_act ? "no act" : action;
    say(action === "undo" ? (r.body.undone ? "undone: the saved judgement is back in the form" : "nothing to undo") : `saved (${what})`, "ok");
    load(r.body.state, r.body.restored);
  }).catch(() => say("not saved: the server did not answer (is voxeval label still running?)", "bad"));
}
const ACTIONS = {s: "skip", f: "flag", u: "undo"};
const isAction = (k) => Object.prototype.hasOwnProperty.call(ACTIONS, k);
// S, F and U leave the item: they act on a second press, so the first letter of a typed note never does.
function armOrSend(k, typed) {
  if (armed && armed.key === k && Date.now() < armed.until) { armed = null; send(ACTIONS[k]); return; }
  const mine = {key: k, typed, until: Date.now() + ARMED_MS};
  armed = mine;
  say(`press ${k.toUpperCase()} again to ${ACTIONS[k]}`, "hint");
  setTimeout(() => { if (armed === mine) { armed = null; fresh(); } }, ARMED_MS);  // the hint goes with the chance
}
// A printable key that is no shortcut starts the note (with a letter just armed before it): typing goes there.
function startNote(e) {
  const note = $("note");
  if (armed && Date.now() < armed.until) note.value += armed.typed;
  armed = null; fresh(); note.focus();
  note.setSelectionRange(note.value.length, note.value.length);
  if (e) { e.preventDefault(); note.value += e.key; }
}
function shortcut(e, k) {
  if (isAction(k)) armOrSend(k, e.key);
  else if (k === "p") play("input-audio"); else if (k === "r") play("reply-audio");
  else if (k === "n") { e.preventDefault(); startNote(null); }
  else if (TASK === "da" && k === "i" && $("imp0")) { e.preventDefault(); $("imp0").focus(); $("imp0").select(); }
  else if (TASK === "da" && e.key === "0") markNoAct();
  else if (TASK === "da" && /^[1-7]$/.test(e.key)) addStep(Number(e.key) - 1);
  else if (TASK === "da" && (e.key === "ArrowRight" || e.key === "ArrowLeft")) { e.preventDefault(); moveSpan(e); }
  else if (TASK === "da" && e.key === "Backspace") { e.preventDefault(); removeLast(); }
  else if (TASK === "style" && /^[1-5]$/.test(e.key)) { score = Number(e.key); fresh(); renderStyle(); }
  else return false;
  return true;
}
document.addEventListener("keydown", (e) => {
  if (e.isComposing || e.keyCode === 229) return;  // an input method is composing: the key is text
  const box = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
  if (e.key === "Escape") { if (e.target.blur) e.target.blur(); return; }
  if (e.key === "Enter") {
    // Enter saves from the page and the importance boxes; in the note it is a new line (Ctrl+Enter saves)
    if (e.target instanceof HTMLTextAreaElement && !(e.ctrlKey || e.metaKey)) return;
    if (e.target instanceof HTMLButtonElement && !(e.ctrlKey || e.metaKey)) return;  // the button's own action
    e.preventDefault(); if (e.target.blur) e.target.blur(); send("label"); return;
  }
  if (box || e.ctrlKey || e.metaKey) return;
  if (e.altKey && !(e.key === "ArrowRight" || e.key === "ArrowLeft")) return;
  const k = e.key.toLowerCase();
  if (!shortcut(e, k)) { if (e.key.length === 1 && e.key.trim() && !e.altKey) startNote(e); return; }
  if (!isAction(k)) armed = null;
});
$("note").addEventListener("input", fresh);
$("submit").addEventListener("click", () => send("label"));
$("skip").addEventListener("click", () => send("skip"));
$("flag").addEventListener("click", () => send("flag"));
$("undo").addEventListener("click", () => send("undo"));
$("play-input").addEventListener("click", () => play("input-audio"));
$("play-reply").addEventListener("click", () => play("reply-audio"));
if (TASK === "da") {
  $("remove").addEventListener("click", removeLast);
  $("no-act").addEventListener("click", markNoAct);
  $("reply").addEventListener("mouseup", mouseSpan);
  const acts = $("acts");
  ACTS.forEach((a, k) => { const b = document.createElement("button"); b.textContent = `${k + 1} ${a}`; b.addEventListener("click", () => addStep(k)); acts.append(b); });
}
api("api/state").then((r) => { if (r.ok) load(r.body); else say(problem(r), "bad"); })
  .catch(() => say("the server did not answer (is voxeval label still running?)", "bad"));
