// verdict pages: small helpers shared by the server page and the lab report (no framework).
// Everything is built with DOM calls and textContent: no HTML strings, so no record, log or
// agent output can inject markup.
"use strict";
(function () {
  const V = (window.V = window.V || {});
  const SVG_NS = "http://www.w3.org/2000/svg";

  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) {
      child.forEach((c) => append(node, c));
    } else if (child instanceof Node) {
      node.appendChild(child);
    } else {
      node.appendChild(document.createTextNode(String(child)));
    }
  }

  function build(node, attrs, children) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.setAttribute("class", value);
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    children.forEach((c) => append(node, c));
    return node;
  }

  /** An HTML element: h("td", {class: "x"}, "text", child, [more]). */
  V.h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
  /** An SVG element. */
  V.s = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);

  /** Replaces the children of `node`. */
  V.replace = (node, ...children) => {
    node.replaceChildren();
    children.forEach((c) => append(node, c));
    return node;
  };

  V.fmtMs = (ms) => {
    if (typeof ms !== "number" || !isFinite(ms)) return "–";
    if (ms >= 1000) return (ms / 1000).toFixed(ms >= 10000 ? 1 : 2).replace(/\.?0+$/, "") + " s";
    return (Math.round(ms * 10) / 10) + " ms";
  };
  V.fmtKB = (kb) => {
    if (typeof kb !== "number" || !isFinite(kb)) return "–";
    if (kb >= 1048576) return (kb / 1048576).toFixed(1) + " GiB";
    if (kb >= 1024) return (kb / 1024).toFixed(1) + " MiB";
    return kb + " KiB";
  };
  V.fmtNum = (x, digits) => {
    if (typeof x === "boolean") return x ? "true" : "false";
    if (typeof x !== "number" || !isFinite(x)) return x === undefined || x === null ? "–" : String(x);
    if (Number.isInteger(x)) return String(x);
    const d = digits === undefined ? (Math.abs(x) < 1 ? 4 : 2) : digits;
    const fixed = x.toFixed(d).replace(/\.?0+$/, "");
    // Small values keep two significant digits instead of reading "0".
    if (Number(fixed) === 0 || Math.abs(x) < 0.01) return V.fmtSig(x, 2);
    return fixed;
  };
  /** `x` with `n` significant digits (0.00012 -> "0.00012"), without trailing zeros. */
  V.fmtSig = (x, n) => {
    if (x === 0) return "0";
    const s = Number(x.toPrecision(n));
    return Math.abs(s) < 1e-6 ? s.toExponential(n - 1) : String(s);
  };
  V.fmtTime = (iso) => {
    const d = new Date(iso);
    return isNaN(d) ? String(iso || "–") : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
  };

  /** Pretty JSON in a monospace block. */
  V.json = (value) => V.h("pre", { class: "mono" }, JSON.stringify(value, null, 2));

  /** A collapsible block: summary text, content built on first open. */
  V.details = (summary, content, open) => {
    const d = V.h("details", { open: !!open }, V.h("summary", {}, summary));
    let built = false;
    const fill = () => {
      if (built || !d.open) return;
      built = true;
      append(d, typeof content === "function" ? content() : content);
    };
    d.addEventListener("toggle", fill);
    fill();
    return d;
  };

  /** A badge: colour class plus its text. */
  V.badge = (text, kind) => V.h("span", { class: "badge " + kind }, text);

  /** A table wrapped in a horizontally scrolling box (never wider than the page). */
  V.table = (head, rows, attrs) =>
    V.h("div", { class: "scroll" },
      V.h("table", attrs || {},
        V.h("thead", {}, V.h("tr", {}, head.map((c) => V.h("th", { scope: "col" }, c)))),
        V.h("tbody", {}, rows)));

  /**
   * A sortable table. columns: [{key, label, value(row) -> sortable, cell(row) -> node/text,
   * numeric}]. Returns {node, update(rows)}. Headers are buttons (keyboard: Tab + Enter).
   */
  V.sortable = (columns, opts) => {
    const state = { key: (opts && opts.sortKey) || null, dir: (opts && opts.sortDir) || 1, rows: [] };
    const tbody = V.h("tbody");
    const heads = columns.map((col) => {
      const button = V.h("button", { class: "sort", type: "button", "data-key": col.key }, col.label);
      button.addEventListener("click", () => {
        state.dir = state.key === col.key ? -state.dir : 1;
        state.key = col.key;
        render();
      });
      return V.h("th", { scope: "col", class: col.numeric ? "num" : null }, button);
    });
    const table = V.h("table", { class: "sortable" }, V.h("thead", {}, V.h("tr", {}, heads)), tbody);
    function render() {
      const col = columns.find((c) => c.key === state.key);
      const rows = state.rows.slice();
      if (col) {
        const val = col.value || ((r) => r[col.key]);
        rows.sort((a, b) => {
          const x = val(a), y = val(b);
          if (x === y) return 0;
          if (x === undefined || x === null) return 1;
          if (y === undefined || y === null) return -1;
          return (x < y ? -1 : 1) * state.dir;
        });
      }
      heads.forEach((th, i) => {
        const on = columns[i].key === state.key;
        th.setAttribute("aria-sort", on ? (state.dir > 0 ? "ascending" : "descending") : "none");
      });
      V.replace(tbody, rows.map((row) => {
        const tr = V.h("tr", { class: opts && opts.rowClass ? opts.rowClass(row) : null },
          columns.map((c) => V.h("td", { class: c.numeric ? "num" : null },
            c.cell ? c.cell(row) : V.fmtNum(row[c.key]))));
        return tr;
      }));
    }
    return {
      node: V.h("div", { class: "scroll" }, table),
      update(rows) {
        state.rows = rows;
        render();
      },
    };
  };

  /**
   * Horizontal bars against a limit: items [{label, value, limit, text}]; a bar's length is
   * value/limit (the limit line at 100%), or value/max when there is no limit.
   */
  V.limitBars = (title, items) => {
    const rowH = 18, labelW = 70, barW = 220, textW = 150;
    const width = labelW + barW + textW, height = items.length * rowH + 22;
    const max = Math.max(1, ...items.map((i) => i.value || 0));
    const svg = V.s("svg", {
      class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title,
      preserveAspectRatio: "xMinYMin meet",
    }, V.s("title", {}, title));
    svg.appendChild(V.s("text", { x: 0, y: 12, class: "chart-title" }, title));
    const limitX = labelW + barW * 0.8;
    items.forEach((item, i) => {
      const y = 18 + i * rowH;
      const frac = item.limit > 0 ? item.value / item.limit : (item.value || 0) / max;
      const scale = item.limit > 0 ? 0.8 : 1;
      const w = Math.max(1, Math.min(barW, barW * scale * frac));
      const over = item.limit > 0 && item.value > item.limit;
      svg.appendChild(V.s("text", { x: 0, y: y + 12, class: "chart-label" }, item.label));
      svg.appendChild(V.s("rect", { x: labelW, y: y + 3, width: barW, height: rowH - 6, class: "bar-bg" }));
      svg.appendChild(V.s("rect", { x: labelW, y: y + 3, width: w, height: rowH - 6, class: over ? "bar over" : "bar" }));
      svg.appendChild(V.s("text", { x: labelW + barW + 6, y: y + 12, class: "chart-label" }, item.text));
    });
    if (items.some((i) => i.limit > 0)) {
      svg.appendChild(V.s("line", { x1: limitX, x2: limitX, y1: 16, y2: height, class: "limit-line" }));
      svg.appendChild(V.s("text", { x: limitX + 2, y: height - 2, class: "chart-note" }, "limit"));
    }
    return svg;
  };

  /** A line chart of samples [{t, v}] over the last `windowMs`. */
  V.spark = (title, samples, windowMs, format) => {
    const width = 240, height = 70, pad = 4;
    const now = Date.now();
    const pts = samples.filter((p) => now - p.t <= windowMs && isFinite(p.v));
    const max = Math.max(1e-9, ...pts.map((p) => p.v));
    const last = pts.length ? pts[pts.length - 1].v : undefined;
    const svg = V.s("svg", {
      class: "spark", viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": `${title}: ${last === undefined ? "no data" : format(last)}`,
    }, V.s("title", {}, title));
    svg.appendChild(V.s("rect", { x: 0, y: 0, width, height, class: "bar-bg" }));
    if (pts.length > 1) {
      const x = (t) => pad + (width - 2 * pad) * (1 - (now - t) / windowMs);
      const y = (v) => height - pad - (height - 2 * pad - 14) * (v / max);
      const d = pts.map((p, i) => `${i ? "L" : "M"}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ");
      svg.appendChild(V.s("path", { d, class: "spark-line" }));
    }
    svg.appendChild(V.s("text", { x: pad, y: 12, class: "chart-label" },
      // The highest sample as it is (the scale's floor of 1e-9 is no sample: "max 0", not "1.0e-9").
      `max ${format(pts.length ? Math.max(0, ...pts.map((p) => p.v)) : 0)}`));
    return V.h("figure", { class: "metric" },
      V.h("figcaption", {}, title, " ", V.h("strong", {}, last === undefined ? "–" : format(last))), svg);
  };

  /** Vertical bars with error bars: items [{label, mean, se}], one metric, drawn at its own size. */
  V.meanBars = (title, items, format) => {
    const barW = 40, gap = 22, top = 34, bottom = 40, plotH = 110, left = 8;
    const height = top + plotH + bottom;
    const titleW = title.length * 7 + 8;
    const width = Math.max(titleW, left + items.length * (barW + gap) + gap);
    const max = Math.max(1e-9, ...items.map((i) => Math.abs(i.mean) + (i.se || 0)));
    const svg = V.s("svg", {
      class: "chart bars", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title,
    }, V.s("title", {}, title));
    svg.appendChild(V.s("text", { x: 0, y: 14, class: "chart-title" }, title));
    svg.appendChild(V.s("line", { x1: 0, x2: width, y1: top + plotH, y2: top + plotH, class: "axis" }));
    items.forEach((item, i) => {
      const x = left + gap / 2 + i * (barW + gap);
      const barH = plotH * Math.max(0, item.mean) / max;
      svg.appendChild(V.s("rect", { x, y: top + plotH - barH, width: barW, height: Math.max(1, barH), class: "bar" },
        V.s("title", {}, `${item.label}: ${format(item.mean)} ± ${format(item.se || 0)} (n=${item.n})`)));
      // The value goes above the bar and its error bar, never across it.
      let labelY = top + plotH - barH - 4;
      if (item.se > 0) {
        const cx = x + barW / 2;
        const y1 = top + plotH - plotH * (item.mean + item.se) / max;
        const y2 = top + plotH - plotH * Math.max(0, item.mean - item.se) / max;
        svg.appendChild(V.s("line", { x1: cx, x2: cx, y1, y2, class: "err" }));
        svg.appendChild(V.s("line", { x1: cx - 5, x2: cx + 5, y1, y2: y1, class: "err" }));
        svg.appendChild(V.s("line", { x1: cx - 5, x2: cx + 5, y1: y2, y2, class: "err" }));
        labelY = y1 - 4;
      }
      svg.appendChild(V.s("text", { x: x + barW / 2, y: labelY, class: "chart-note mid bar-value" }, format(item.mean)));
      const label = item.label.length > 12 ? item.label.slice(0, 11) + "…" : item.label;
      svg.appendChild(V.s("text", { x: x + barW / 2, y: top + plotH + 14, class: "chart-label mid" }, label,
        V.s("title", {}, item.label)));
      svg.appendChild(V.s("text", { x: x + barW / 2, y: top + plotH + 28, class: "chart-note mid" }, `n=${item.n}`));
    });
    return svg;
  };

  /** Mean, standard error (sample sd / sqrt n) and count of numbers. */
  V.stats = (values) => {
    const n = values.length;
    if (!n) return { mean: NaN, se: NaN, n: 0 };
    const mean = values.reduce((a, b) => a + b, 0) / n;
    if (n < 2) return { mean, se: 0, n };
    const variance = values.reduce((a, b) => a + (b - mean) * (b - mean), 0) / (n - 1);
    return { mean, se: Math.sqrt(variance / n), n };
  };
})();
