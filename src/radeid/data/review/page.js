"use strict";
// radeid review page. All text comes from the JSON island and is shown with text nodes only
// (textContent / createTextNode): document text is never parsed as HTML.
(function () {
  const data = JSON.parse(document.getElementById("review-data").textContent);
  const docs = data.documents;
  const $ = (id) => document.getElementById(id);
  // Marks, by document index: replacements marked wrong (indices) and missed PHI (output offsets).
  const marks = docs.map(() => ({ wrong: new Set(), missed: [] }));
  let current = 0;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function checked(cls) {
    return new Set(Array.from(document.querySelectorAll("input." + cls + ":checked"), (i) => i.value));
  }

  function visible(span) {
    return checked("f-cat").has(span.category) && checked("f-src").has(span.source);
  }

  // Text with highlighted regions: regions = [{start, end, cls, title, onclick}] sorted, disjoint.
  function renderText(pre, text, regions) {
    pre.textContent = "";
    let cursor = 0;
    for (const r of regions) {
      if (r.start > cursor) pre.appendChild(document.createTextNode(text.slice(cursor, r.start)));
      const node = el("span", r.cls, text.slice(r.start, r.end));
      node.title = r.title;
      if (r.index !== undefined) node.dataset.index = String(r.index);
      if (r.onclick) node.addEventListener("click", r.onclick);
      pre.appendChild(node);
      cursor = r.end;
    }
    if (cursor < text.length) pre.appendChild(document.createTextNode(text.slice(cursor)));
  }

  function spanClass(span, i) {
    let cls = "hl cat-" + span.category;
    if (!visible(span)) cls += " off";
    if (marks[current].wrong.has(i)) cls += " wrong";
    return cls;
  }

  function title(span) {
    return span.category + (span.subtype ? "/" + span.subtype : "") + " · " + span.source +
      " · score " + span.score;
  }

  function toggleWrong(i) {
    const wrong = marks[current].wrong;
    if (wrong.has(i)) wrong.delete(i); else wrong.add(i);
    show(current);
  }

  function show(index) {
    if (!docs.length) { $("doc-title").textContent = "No documents"; return; }
    current = Math.max(0, Math.min(docs.length - 1, index));
    const doc = docs[current];
    $("doc-title").textContent = "Document " + doc.id;
    $("position").textContent = (current + 1) + " / " + docs.length;
    $("doc-select").value = String(current);
    const mine = marks[current];
    const regions = doc.spans.map((s, i) => ({
      start: s.start, end: s.end, cls: spanClass(s, i), title: title(s), index: i,
      onclick: () => { if (visible(s)) toggleWrong(i); },
    }));
    mine.missed.forEach((m, j) => regions.push({
      start: m.start, end: m.end, cls: "missed", title: "missed " + m.label + " (click to remove)",
      onclick: () => { mine.missed.splice(j, 1); show(current); },
    }));
    regions.sort((a, b) => a.start - b.start);
    renderText($("deid"), doc.text, regions);
    if (data.has_originals) {
      $("original-pane").hidden = false;
      $("orig-head").hidden = false;
      renderText($("original"), doc.original_text, doc.spans.map((s, i) => ({
        start: s.orig_start, end: s.orig_end, cls: spanClass(s, i), title: title(s), index: i,
      })));
    }
    const body = document.querySelector("#spans tbody");
    body.textContent = "";
    doc.spans.forEach((s, i) => {
      const row = el("tr");
      row.hidden = !visible(s);
      row.appendChild(el("td", "", String(i + 1)));
      const cat = el("td");
      cat.appendChild(el("span", "hl cat-" + s.category, s.category + (s.subtype ? "/" + s.subtype : "")));
      row.appendChild(cat);
      row.appendChild(el("td", "", s.source));
      row.appendChild(el("td", "", String(s.score)));
      if (data.has_originals) row.appendChild(el("td", "", s.original));
      row.appendChild(el("td", "", doc.text.slice(s.start, s.end)));
      const cell = el("td");
      const box = el("input");
      box.type = "checkbox";
      box.className = "mark-wrong";
      box.checked = mine.wrong.has(i);
      box.addEventListener("change", () => toggleWrong(i));
      cell.appendChild(box);
      cell.appendChild(document.createTextNode(" wrong"));
      row.appendChild(cell);
      body.appendChild(row);
    });
    listMarks();
  }

  function listMarks() {
    const list = $("marks");
    list.textContent = "";
    let count = 0;
    marks.forEach((m, d) => {
      for (const i of Array.from(m.wrong).sort((a, b) => a - b)) {
        const s = docs[d].spans[i];
        list.appendChild(el("li", "", docs[d].id + ": over-redaction " + s.category + " [" + s.start + ", " + s.end + ")"));
        count++;
      }
      for (const x of m.missed) {
        list.appendChild(el("li", "", docs[d].id + ": missed " + x.label + " [" + x.start + ", " + x.end + ")"));
        count++;
      }
    });
    $("mark-count").textContent = String(count);
  }

  // Output offsets of the current selection in the de-identified pane, or null.
  function selectionOffsets() {
    const sel = window.getSelection();
    const pre = $("deid");
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
    const range = sel.getRangeAt(0);
    if (!pre.contains(range.startContainer) || !pre.contains(range.endContainer)) return null;
    const before = document.createRange();
    before.setStart(pre, 0);
    before.setEnd(range.startContainer, range.startOffset);
    let start = before.toString().length;
    let end = start + range.toString().length;
    const text = docs[current].text;
    while (start < end && /\s/.test(text[start])) start++;
    while (end > start && /\s/.test(text[end - 1])) end--;
    return start < end ? { start: start, end: end } : null;
  }

  function markMissed(start, end, label) {
    const doc = docs[current];
    const overlaps = (a) => a.start < end && start < a.end;
    if (doc.spans.some(overlaps) || marks[current].missed.some(overlaps)) {
      $("mark-message").textContent = "The selection overlaps a replacement or a mark; select only the missed text.";
      return false;
    }
    marks[current].missed.push({ start: start, end: end, label: label });
    marks[current].missed.sort((a, b) => a.start - b.start);
    $("mark-message").textContent = "";
    show(current);
    return true;
  }

  // The marks as JSONL in radeid's gold format, over the de-identified text (output offsets).
  function exportJSONL(includeAll) {
    const lines = [];
    docs.forEach((doc, d) => {
      const m = marks[d];
      if (!includeAll && m.wrong.size === 0 && m.missed.length === 0) return;
      const kept = doc.spans.filter((s, i) => !m.wrong.has(i)).map((s) => ({ start: s.start, end: s.end, label: s.category }));
      const spans = kept.concat(m.missed.map((x) => ({ start: x.start, end: x.end, label: x.label })));
      spans.sort((a, b) => a.start - b.start || a.end - b.end);
      const review = {
        over_redaction: Array.from(m.wrong).sort((a, b) => a - b).map((i) => ({
          start: doc.spans[i].start, end: doc.spans[i].end, label: doc.spans[i].category, source: doc.spans[i].source,
        })),
        missed: m.missed.map((x) => ({ start: x.start, end: x.end, label: x.label })),
      };
      lines.push(JSON.stringify({ id: doc.id, text: doc.text, spans: spans, review: review }));
    });
    return lines.length ? lines.join("\n") + "\n" : "";
  }

  function download() {
    const blob = new Blob([exportJSONL($("export-all").checked)], { type: "application/x-ndjson" });
    const link = el("a");
    link.href = URL.createObjectURL(blob);
    link.download = "review-marks.jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }

  const select = $("doc-select");
  docs.forEach((doc, i) => {
    const option = el("option", "", (i + 1) + ". " + doc.id + " (" + doc.spans.length + ")");
    option.value = String(i);
    select.appendChild(option);
  });
  select.addEventListener("change", () => show(Number(select.value)));
  $("next").addEventListener("click", () => show(current + 1));
  $("prev").addEventListener("click", () => show(current - 1));
  $("mark-missed").addEventListener("click", () => {
    const where = selectionOffsets();
    if (!where) { $("mark-message").textContent = "Select text in the de-identified pane first."; return; }
    markMissed(where.start, where.end, $("missed-category").value);
  });
  $("export").addEventListener("click", download);
  document.querySelectorAll("input.f-cat, input.f-src").forEach((box) => box.addEventListener("change", () => show(current)));
  // "all" / "none" above each filter group.
  document.querySelectorAll("button.check-all, button.check-none").forEach((button) => {
    button.addEventListener("click", () => {
      const on = button.classList.contains("check-all");
      document.querySelectorAll("input." + button.dataset.filter).forEach((box) => { box.checked = on; });
      show(current);
    });
  });
  // The side panel (filters, summary, keys) folds away to give the document the whole width.
  function toggleSidebar() {
    const hidden = document.body.classList.toggle("no-sidebar");
    $("toggle-sidebar").setAttribute("aria-expanded", String(!hidden));
  }
  $("toggle-sidebar").addEventListener("click", toggleSidebar);
  document.addEventListener("keydown", (event) => {
    const tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "n" || event.key === "j") show(current + 1);
    else if (event.key === "p" || event.key === "k") show(current - 1);
    else if (event.key === "f") toggleSidebar();
  });
  window.addEventListener("beforeunload", (event) => {
    if (marks.some((m) => m.wrong.size || m.missed.length)) event.preventDefault();
  });
  window.radeidReview = { exportJSONL: exportJSONL, markMissed: markMissed, show: show, marks: marks };
  show(0);
})();
