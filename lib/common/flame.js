(function () {
"use strict";
/*
 * Zoom moves one transform, not 30,000 rectangles: the frames group is
 * scaled and shifted so the target spans the view, the view clips the
 * rest, and only the labels that are visible get rewritten (each
 * counter-scaled so text is never stretched).  Labels are fitted by
 * character count, never measured, so nothing forces a layout per frame.
 */
var svg = document.documentElement;
var fr = document.getElementById("frames");
var details = document.getElementById("details");
var unzoomBtn = document.getElementById("unzoom");
var searchBtn = document.getElementById("search");
var icBtn = document.getElementById("ignorecase");
var matchedEl = document.getElementById("matched");
var XPAD = +fr.getAttribute("data-xpad");
var CW = +fr.getAttribute("data-fontsize") * +fr.getAttribute("data-fontwidth");
var TOTAL = +fr.getAttribute("data-total");
var W = +svg.getAttribute("width") - 2 * XPAD;
var WPT = TOTAL > 0 ? W / TOTAL : 0;
var nametype = details.getAttribute("data-nametype");
var SEARCH_FILL = "rgb(230,0,230)";
var els = Array.prototype.slice.call(fr.children);
var N = els.length;
var s = new Float64Array(N), n = new Float64Array(N);
var parent = new Int32Array(N), end = new Int32Array(N);
var matched = new Uint8Array(N), exact = new Uint8Array(N);
var rect = new Array(N), text = new Array(N), name = new Array(N);
var tip = new Array(N), fill = new Array(N), label = new Array(N);
var olabel = new Array(N), tx = new Float64Array(N);
var moved = [], dimmed = [], hidden = [];
var zoomed = 0, term = null, ic = false;
var stack = [], i;
for (i = 0; i < N; i++) {
  var g = els[i], t = g.firstElementChild;
  g._pf = i;
  s[i] = +g.getAttribute("data-s");
  n[i] = +g.getAttribute("data-n");
  rect[i] = t.nextElementSibling;
  text[i] = rect[i].nextElementSibling;   /* null when no label fits */
  tip[i] = t.textContent;
  var dn = g.getAttribute("data-name");
  name[i] = dn !== null ? dn : tip[i].slice(0, tip[i].lastIndexOf(" ("));
  fill[i] = rect[i].getAttribute("fill");
  label[i] = olabel[i] = text[i] ? text[i].textContent : "";
  tx[i] = +rect[i].getAttribute("x") + 3;
  while (stack.length > 0) {
    var p = stack[stack.length - 1];
    if (s[i] >= s[p] && s[i] + n[i] <= s[p] + n[p]) break;
    end[stack.pop()] = i;
  }
  parent[i] = stack.length > 0 ? stack[stack.length - 1] : -1;
  stack.push(i);
}
while (stack.length > 0) end[stack.pop()] = N;

/* The label that fits w px: the name, a prefix and "..", or nothing. */
function fit(i, w) {
  var c = Math.floor(w / CW), nm = name[i];
  if (!(c >= 3)) return "";
  if (nm.length <= c) return nm;
  var k = c - 2, code = nm.charCodeAt(k - 1);
  if (code >= 0xd800 && code <= 0xdbff) k--;
  return nm.slice(0, k) + "..";
}
function setLabel(i, l) {
  if (label[i] === l) return;
  if (text[i] === null) {
    /* Frames too narrow for a label have no text element until needed. */
    var r = rect[i], e = document.createElementNS("http://www.w3.org/2000/svg", "text");
    e.setAttribute("x", tx[i].toFixed(2));
    e.setAttribute("y", (+r.getAttribute("y") + +r.getAttribute("height") / 2 + 3).toFixed(2));
    els[i].appendChild(e);
    text[i] = e;
  }
  text[i].textContent = l;
  label[i] = l;
}
/* Put frame i's label at screen x under group scale sx and shift gx. */
function moveLabel(i, x, sx, gx) {
  text[i].setAttribute("transform", "matrix(" + (1 / sx) + " 0 0 1 " +
      ((x + 3 - tx[i] - gx) / sx) + " 0)");
  moved.push(i);
}
/* Frame t fills the width; its ancestors dim; the view clips the rest. */
function zoom(t) {
  var st = s[t], sc = W / n[t], sx = sc / WPT, gx = XPAD - sx * (XPAD + st * WPT);
  var i, a, l;
  for (i = 0; i < dimmed.length; i++) els[dimmed[i]].classList.remove("parent");
  dimmed = [];
  fr.setAttribute("transform", "matrix(" + sx + " 0 0 1 " + gx + " 0)");
  for (i = t; i < end[t]; i++) {
      /* Rounded coordinates drift by 0.05 px times sx: use exact ones. */
    if (sx > 10 && !exact[i]) {
      rect[i].setAttribute("x", XPAD + s[i] * WPT);
      rect[i].setAttribute("width", n[i] * WPT);
      exact[i] = 1;
    }
    l = fit(i, n[i] * sc);
    if (l !== "") {
      setLabel(i, l);
      moveLabel(i, XPAD + (s[i] - st) * sc, sx, gx);
      /* Keep the corners round, not stretched, where they show. */
      rect[i].setAttribute("rx", 2 / sx);
    } else {
      setLabel(i, "");
    }
  }
  /*
   * Neighbours outside the target are clipped, but their rounded
   * coordinates may poke into the view by 0.05 px times sx: hide those.
   */
  for (i = 0; i < hidden.length; i++) els[hidden[i]].classList.remove("hide");
  hidden = [];
  if (sx > 10) {
    var slack = 0.1 * sx / sc;
    for (i = 0; i < N; i++) {
      if ((i >= t && i < end[t]) || s[i] + n[i] < st - slack || s[i] > st + n[t] + slack ||
          (s[i] <= st && s[i] + n[i] >= st + n[t])) continue;
      els[i].classList.add("hide");
      hidden.push(i);
    }
  }
  for (a = parent[t]; a >= 0; a = parent[a]) {
    els[a].classList.add("parent");
    dimmed.push(a);
    setLabel(a, fit(a, W));
    moveLabel(a, XPAD, sx, gx);
  }
  zoomed = t;
  unzoomBtn.classList.remove("hide");
  save();
}
function unzoom() {
  var i;
  fr.removeAttribute("transform");
  for (i = 0; i < hidden.length; i++) els[hidden[i]].classList.remove("hide");
  hidden = [];
  for (i = 0; i < dimmed.length; i++) els[dimmed[i]].classList.remove("parent");
  dimmed = [];
  for (i = 0; i < moved.length; i++) {
    if (text[moved[i]]) text[moved[i]].removeAttribute("transform");
    rect[moved[i]].setAttribute("rx", "2");
  }
  moved = [];
  for (i = 0; i < N; i++) setLabel(i, olabel[i]);
  zoomed = 0;
  unzoomBtn.classList.add("hide");
  save();
}
/* Recolour frames whose name matches; count nested matches once. */
function search(t) {
  var re;
  try { re = new RegExp(t, ic ? "i" : ""); }
  catch (e) { matchedEl.textContent = "Invalid regex"; return; }
  var count = 0, skipEnd = -1;
  for (var i = 0; i < N; i++) {
    if (re.test(name[i])) {
      if (!matched[i]) { rect[i].setAttribute("fill", SEARCH_FILL); matched[i] = 1; }
      if (i >= skipEnd) { count += n[i]; skipEnd = end[i]; }
    } else if (matched[i]) {
      rect[i].setAttribute("fill", fill[i]);
      matched[i] = 0;
    }
  }
  term = t;
  searchBtn.classList.add("show");
  searchBtn.textContent = "Reset Search";
  matchedEl.textContent = "Matched: " + (TOTAL > 0 ? 100 * count / TOTAL : 0).toFixed(1) + "%";
  save();
}
function resetSearch() {
  for (var i = 0; i < N; i++)
    if (matched[i]) { rect[i].setAttribute("fill", fill[i]); matched[i] = 0; }
  term = null;
  searchBtn.classList.remove("show");
  searchBtn.textContent = "Search";
  matchedEl.textContent = "";
  save();
}
function askSearch() {
  var t = prompt("Search frames (regular expression, e.g. ^ext4_)" +
      (ic ? " [ignoring case]" : ""), term !== null ? term : "");
  if (t === null) return;
  if (t === "") resetSearch(); else search(t);
}
function toggleCase() {
  ic = !ic;
  if (ic) icBtn.classList.add("show"); else icBtn.classList.remove("show");
  if (term !== null) search(term); else save();
}
/* Zoom and search live in the URL fragment, so a link reopens the view. */
function save() {
  var p = [];
  if (zoomed > 0) p.push("z=" + zoomed);
  if (term !== null) p.push("s=" + encodeURIComponent(term));
  if (ic) p.push("i=1");
  var base = location.href.split("#")[0];
  try { history.replaceState(null, "", p.length ? base + "#" + p.join("&") : base); }
  catch (e) { /* some viewers forbid it; the view still works */ }
}
function frameOf(el) {
  while (el && el.parentNode !== fr) el = el.parentNode;
  return el && el._pf !== undefined ? el._pf : -1;
}
window.addEventListener("click", function (e) {
  var i = frameOf(e.target);
  if (i >= 0) {
    if (els[i].localName === "a") {
      if (!e.ctrlKey) return;   /* a plain click follows the link */
      e.preventDefault();
    }
    if (i === 0) unzoom(); else zoom(i);
    return;
  }
  if (e.target === unzoomBtn) unzoom();
  else if (e.target === searchBtn) { if (term !== null) resetSearch(); else askSearch(); }
  else if (e.target === icBtn) toggleCase();
}, false);
fr.addEventListener("mouseover", function (e) {
  var i = frameOf(e.target);
  if (i >= 0) details.textContent = nametype + " " + tip[i];
}, false);
fr.addEventListener("mouseout", function () { details.textContent = " "; }, false);
window.addEventListener("keydown", function (e) {
  var k = e.key;
  if (k === "F3" || ((e.ctrlKey || e.metaKey) && (k === "f" || k === "F"))) {
    e.preventDefault();
    askSearch();
  } else if ((e.ctrlKey || e.metaKey) && (k === "i" || k === "I")) {
    e.preventDefault();
    toggleCase();
  } else if (k === "Escape") {
    if (term !== null) resetSearch();
    if (zoomed !== 0) unzoom();
  }
}, false);
/* Reopen the view the URL names. */
(function () {
  var h = location.hash.replace(/^#/, "").split("&"), z = 0, st = null, j;
  for (j = 0; j < h.length; j++) {
    var kv = h[j].split("="), v;
    try { v = decodeURIComponent(kv.slice(1).join("=")); } catch (e) { continue; }
    if (kv[0] === "z" && /^[0-9]+$/.test(v) && +v < N) z = +v;
    else if (kv[0] === "s") st = v;
    else if (kv[0] === "i" && v === "1") { ic = true; icBtn.classList.add("show"); }
  }
  if (z > 0) zoom(z);
  if (st !== null && st !== "") search(st);
})();
})();
