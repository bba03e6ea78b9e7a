// What a reader cannot read on the page as drawn, measured from layout boxes (no screenshots).
// Returns a list of strings, one per offender. Run in the page and in every same-origin frame.
() => {
  const out = [];
  const short = (s) => (s || '').replace(/\s+/g, ' ').trim().slice(0, 50);
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
  };
  const root = document.querySelector('[data-testid="stAppViewContainer"]') || document.body;

  // (1) HTML text clipped by a box that hides its overflow (text-overflow: ellipsis needs overflow
  // hidden, so an ellipsis is one case): the text's own extent (a Range over its text nodes) against
  // the padding box of every ancestor that hides overflow. Boxes that scroll are a way to see it.
  // Chart text (SVG), KaTeX's hidden MathML copy and screen-reader-only text (1 px boxes) are not read here.
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement;
    if (!e || seen.has(e) || !n.nodeValue.trim() || e.closest('svg, canvas, .katex-mathml, script, style')) continue;
    seen.add(e);
    const range = document.createRange();
    range.selectNodeContents(e);
    const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
    if (!rects.length || !shown(e)) continue;
    const t = {left: Math.min(...rects.map(r => r.left)), right: Math.max(...rects.map(r => r.right)),
               top: Math.min(...rects.map(r => r.top)), bottom: Math.max(...rects.map(r => r.bottom))};
    const h = t.bottom - t.top;
    // above a box that scrolls (in one direction), that direction is not a cut: it scrolls into view
    let canX = true, canY = true;
    for (let a = e; a && a !== root.parentElement && (canX || canY); a = a.parentElement) {
      const cs = getComputedStyle(a);
      const hx = canX && ['hidden', 'clip'].includes(cs.overflowX), hy = canY && ['hidden', 'clip'].includes(cs.overflowY);
      if (['auto', 'scroll'].includes(cs.overflowX)) canX = false;
      if (['auto', 'scroll'].includes(cs.overflowY)) canY = false;
      if (!hx && !hy) continue;
      // an ellipsis: the text is laid out to the box's width, the box's scroll width is the text's
      if (hx && cs.textOverflow === 'ellipsis' && a.scrollWidth > a.clientWidth) {
        out.push(`text cut (…): "${short(e.innerText || n.nodeValue)}" (${a.scrollWidth} px of text in a ${a.clientWidth} px box)`);
        break;
      }
      const b = a.getBoundingClientRect();
      if (b.width < 4 || b.height < 4) break;  // a screen-reader-only box: not meant to be seen
      const left = b.left + a.clientLeft, right = left + a.clientWidth;
      const top = b.top + a.clientTop, bottom = top + a.clientHeight;
      const cutX = hx && (t.right > right + 1.5 || t.left < left - 1.5);
      const cutY = hy && (t.bottom - bottom > Math.max(3, 0.3 * h) || top - t.top > Math.max(3, 0.3 * h));
      if (cutX || cutY) {
        out.push(`text cut${cs.textOverflow === 'ellipsis' || getComputedStyle(e).textOverflow === 'ellipsis' ? ' (…)' : ''}`
                 + `: "${short(e.innerText || n.nodeValue)}" (${Math.round(t.right - t.left)}×${Math.round(h)} px text in a `
                 + `${Math.round(a.clientWidth)}×${Math.round(a.clientHeight)} px box)`);
        break;
      }
    }
  }

  // (2) Chart text (plotly's SVG): every title, annotation, tick label, legend entry and bar label
  // inside its chart's box and on top of no other. Tick labels of one axis and the legend's entries
  // are laid out by plotly as a group: they are compared with everything else, not among themselves.
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const svg = plot.querySelector('svg.main-svg');
    if (!svg || !shown(plot)) continue;
    const box = svg.getBoundingClientRect();
    const title = short((plot.querySelector('.gtitle') || {}).textContent) || short(plot.closest('[aria-label]')?.getAttribute('aria-label'));
    const items = [];
    for (const te of plot.querySelectorAll('svg text')) {
      if (te.closest('.hoverlayer') || !te.textContent.trim()) continue;
      if (getComputedStyle(te).display === 'none' || te.closest('[display="none"]') || getComputedStyle(te).opacity === '0') continue;
      const r = te.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      const tick = te.closest('.xtick, .ytick');
      const legend = te.closest('.legend');
      let group = null;
      if (tick) group = tick.classList[0] + ':' + (te.closest('[class*="axislayer"]')?.getAttribute('class') || '') + ':'
                        + (te.closest('.subplot')?.getAttribute('class') || '');
      else if (legend) group = 'legend';
      items.push({te, r, group, text: short(te.textContent)});
    }
    for (const it of items) {
      const {r} = it;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        out.push(`chart "${title}": "${it.text}" outside the chart (${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} × `
                 + `${Math.round(r.top - box.top)}..${Math.round(r.bottom - box.top)} px in ${Math.round(box.width)}×${Math.round(box.height)})`);
      }
    }
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const a = items[i], b = items[j];
        if (a.group && a.group === b.group) continue;
        if (a.te.contains(b.te) || b.te.contains(a.te)) continue;
        const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        // more than a sliver: 2 px and a fifth of the smaller text's height
        if (w > 2 && h > Math.max(2, 0.2 * Math.min(a.r.height, b.r.height))) {
          out.push(`chart "${title}": "${a.text}" overlaps "${b.text}" (${Math.round(w)}×${Math.round(h)} px)`);
        }
      }
    }
  }

  // (3) Tables. st.dataframe draws on a canvas (glide-data-grid): its columns (widths as laid out)
  // and the text of its cells come from the grid's own props; text is measured with the grid's font.
  const ctx = document.createElement('canvas').getContext('2d');
  const textWidth = (s, font) => { ctx.font = font; return ctx.measureText(s).width; };
  for (const df of document.querySelectorAll('[data-testid="stDataFrame"]')) {
    if (!shown(df)) continue;
    const scroller = df.querySelector('.dvn-scroller');
    if (!scroller) continue;
    const key = Object.keys(scroller).find(k => k.startsWith('__reactFiber'));
    let f = key && scroller[key], p = null;
    for (let d = 0; f && d < 60; d++, f = f.return) {
      if (f.memoizedProps && f.memoizedProps.columns && f.memoizedProps.getCellContent) { p = f.memoizedProps; break; }
    }
    if (!p) { out.push('table: glide-data-grid props not found (the measurement needs updating)'); continue; }
    const name = p.columns.map(c => c.title).join(', ').slice(0, 40);
    // the grid inside its element's box: below the box it is drawn under the next element (a caption)
    const holder = df.closest('[data-testid="stElementContainer"]');
    if (holder && df.getBoundingClientRect().bottom > holder.getBoundingClientRect().bottom + 1.5) {
      out.push(`table [${name}…]: drawn ${Math.round(df.getBoundingClientRect().bottom - holder.getBoundingClientRect().bottom)} px `
               + 'below its element\'s box, under the element that follows');
    }
    const theme = p.theme || {};
    const family = getComputedStyle(df.querySelector('.stDataFrameGlideDataEditor') || df).getPropertyValue('--gdg-font-family') || 'sans-serif';
    const bodyFont = (theme.baseFontStyle || '400 14px') + ' ' + family;
    const headFont = (theme.headerFontStyle || '600 14px') + ' ' + family;
    const pad = 2 * (theme.cellHorizontalPadding || 8);
    const marker = p.rowMarkers && p.rowMarkers !== 'none' ? (p.rowMarkerWidth || 40) : 0;
    const avail = scroller.clientWidth - marker;
    const sum = p.columns.reduce((s, c) => s + c.width, 0);
    if (sum > avail + 1) {
      let x = 0, whole = 0;
      for (const c of p.columns) { x += c.width; if (x <= avail + 1) whole++; }
      out.push(`table [${name}…]: ${p.columns.length - whole} of ${p.columns.length} columns cut off `
               + `(${Math.round(sum)} px of columns in ${Math.round(avail)} px)`);
    }
    // the widths as drawn: spare room is shared out by each column's grow
    const grow = p.columns.reduce((s, c) => s + (c.grow || 0), 0);
    const spare = Math.max(0, avail - sum);
    const rows = Math.min(p.rows, 60);
    // a column of free text (messages): one of its first rows is longer than 40 characters. Its cells are
    // cut by design, however short some are, and shown whole on click
    const freeText = (i) => {
      for (let r = 0; r < rows; r++) {
        const cell = p.getCellContent([i, r]);
        if (cell.kind === 'text' && typeof cell.displayData === 'string' && cell.displayData.length > 40) return true;
      }
      return false;
    };
    p.columns.forEach((c, i) => {
      const w = c.width + (grow ? spare * (c.grow || 0) / grow : 0);
      const free = freeText(i);
      if (textWidth(c.title, headFont) + pad > w + 1) {
        out.push(`table [${name}…]: header "${short(c.title)}" cut (${Math.round(textWidth(c.title, headFont) + pad)} px in ${Math.round(w)})`);
      }
      for (let r = 0; r < rows; r++) {
        const cell = p.getCellContent([i, r]);
        const text = cell.kind === 'bubble' ? (cell.data || []).join(', ') : cell.displayData;
        // a missing value with no text of its own is drawn by Streamlit as a grey "None"
        if ((cell.isMissingValue && !cell.displayData) || ['None', 'nan', 'NaN', 'null', 'undefined'].includes(cell.displayData)) {
          out.push(`table [${name}…]: cell in "${short(c.title)}" prints "${cell.displayData || 'None'}" (a missing number: show "—")`);
          break;
        }
        // long free text (a message) is cut by design and shown whole on click; a number or a short value never
        if (typeof text !== 'string' || !text || (cell.kind === 'text' && (free || text.length > 40))) continue;
        if (cell.kind === 'boolean' || cell.kind === 'image') continue;
        const need = textWidth(text, bodyFont) + pad + (cell.kind === 'custom' ? 0 : 0);
        if (need > w + 1) {
          out.push(`table [${name}…]: cell "${short(text)}" in "${short(c.title)}" cut (${Math.round(need)} px in ${Math.round(w)})`);
          break;
        }
      }
    });
    // the toolbar (show/hide columns, search, fullscreen) is drawn over the grid's top right corner
    // while the pointer is on the table: no header or cell text may be under it
    const bar = df.querySelector('[data-testid="stElementToolbar"]');
    if (bar && shown(bar) && getComputedStyle(bar).opacity !== '0') {
      const g = scroller.getBoundingClientRect(), t = bar.getBoundingClientRect();
      const headH = p.headerHeight || 35, rowH = typeof p.rowHeight === 'number' ? p.rowHeight : 35;
      let x = g.left + marker;
      p.columns.forEach((c, i) => {
        const w = c.width + (grow ? spare * (c.grow || 0) / grow : 0);
        const texts = [[c.title, headFont, 'left', g.top, g.top + headH]];
        for (let r = 0; r < rows; r++) {
          const top = g.top + headH + r * rowH;
          if (top > t.bottom) break;
          const cell = p.getCellContent([i, r]);
          const align = cell.contentAlign || (cell.kind === 'number' ? 'right' : 'left');
          texts.push([typeof cell.displayData === 'string' ? cell.displayData : '', bodyFont, align, top, top + rowH]);
        }
        for (const [s, font, align, top, bottom] of texts) {
          if (!s) continue;
          const tw = Math.min(textWidth(s, font), w - pad);
          const l = align === 'right' ? x + w - pad / 2 - tw : align === 'center' ? x + (w - tw) / 2 : x + pad / 2;
          const ow = Math.min(t.right, l + tw) - Math.max(t.left, l), oh = Math.min(t.bottom, bottom) - Math.max(t.top, top);
          if (ow > 1 && oh > 4) out.push(`table [${name}…]: its toolbar covers "${short(s)}" (${Math.round(ow)}×${Math.round(oh)} px)`);
        }
        x += w;
      });
    }
  }
  // a segmented control or pills (a button group) whose options do not all fit its box: Streamlit lets
  // the row scroll sideways, so the last options are cut at the edge ("doc…") with no sign they go on
  for (const g of document.querySelectorAll('[data-testid="stButtonGroup"]')) {
    if (!shown(g)) continue;
    for (const box of g.querySelectorAll('div')) {
      const cs = getComputedStyle(box);
      if (['auto', 'scroll'].includes(cs.overflowX) && box.scrollWidth > box.clientWidth + 1) {
        out.push(`options cut: "${short(g.innerText)}" (${box.scrollWidth} px of options in a ${box.clientWidth} px box)`);
        break;
      }
    }
  }
  // st.table (HTML): wider than its box, so columns are cut
  for (const t of document.querySelectorAll('[data-testid="stTable"]')) {
    const table = t.querySelector('table');
    if (table && shown(t) && table.getBoundingClientRect().width > t.getBoundingClientRect().width + 1) {
      out.push(`table "${short(table.innerText)}": ${Math.round(table.getBoundingClientRect().width)} px wide in ${Math.round(t.getBoundingClientRect().width)}`);
    }
  }
  return out;
}
