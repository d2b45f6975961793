// The compare page's linking: a selection is one DSL line L. Generated lines whose DSL span
// starts at L are "hit" (what L produced); lines whose span encloses L are "ctx" (the
// construct around it, e.g. the kernel of a forall). Hovering previews ("peek"), clicking or
// the keyboard selects and scrolls every column to its first hit.
(function () {
  'use strict';
  var dslPane = document.querySelector('.code[data-pane=dsl]');
  var dslLines = Array.prototype.slice.call(dslPane.querySelectorAll('.ln'));
  var genPanes = Array.prototype.slice.call(document.querySelectorAll('.gen .code'));
  var mapped = Array.prototype.slice.call(document.querySelectorAll('.gen .ln[data-s]'));
  var status = document.getElementById('status');
  var byStart = {};
  mapped.forEach(function (el) {
    (byStart[el.dataset.s] = byStart[el.dataset.s] || []).push(el);
  });

  function clear(cls) {
    Array.prototype.slice.call(document.querySelectorAll('.ln.' + cls)).forEach(function (el) {
      el.classList.remove(cls);
      if (cls === 'hit') { el.setAttribute('aria-selected', 'false'); }
    });
  }

  // Scroll only the line's own pane, vertically: scrollIntoView would also scroll the row of
  // columns sideways to the last one it was called for.
  function scrollTo(el) {
    var pane = el && el.closest('.code');
    if (!pane) { return; }
    var top = el.offsetTop, header = 32;
    if (top < pane.scrollTop + header || top + el.offsetHeight > pane.scrollTop + pane.clientHeight) {
      pane.scrollTop = Math.max(0, top - pane.clientHeight / 3);
    }
  }

  // Highlight what DSL line `line` produced with class `cls` (hit or peek); `span` (from a
  // clicked generated line) also marks the rest of its construct in the DSL. `still`: do not
  // scroll (restoring the selection when the pointer leaves must not move what it is about
  // to click).
  function show(line, cls, span, still) {
    clear(cls);
    clear('ctx');
    if (line === null) { return; }
    var hits = byStart[line] || [];
    hits.forEach(function (el) { el.classList.add(cls); });
    mapped.forEach(function (el) {
      if (+el.dataset.s < line && line <= +el.dataset.e) { el.classList.add('ctx'); }
    });
    var origin = dslLines[line - 1];
    if (origin) { origin.classList.add(cls); }
    if (span) {
      for (var k = span[0] + 1; k <= span[1] && k <= dslLines.length; k++) {
        dslLines[k - 1].classList.add('ctx');
      }
    }
    if (cls === 'hit') {
      hits.forEach(function (el) { el.setAttribute('aria-selected', 'true'); });
      if (origin) { origin.setAttribute('aria-selected', 'true'); }
    }
    if (!still) {
      genPanes.forEach(function (pane) { scrollTo(pane.querySelector('.ln.' + cls)); });
    }
    var counts = genPanes.map(function (pane) {
      return pane.dataset.pane + ' ' + pane.querySelectorAll('.ln.' + cls).length;
    });
    status.textContent = 'line ' + line + ': ' + counts.join(', ') + ' generated lines';
  }

  var selected = null;
  function select(line, span) {
    selected = line;
    clear('picked');
    show(line, 'hit', span);
    if (line !== null) { scrollTo(dslLines[line - 1]); }
  }

  function lineOf(target) {
    var el = target.closest ? target.closest('.ln') : null;
    return el && el.closest('.code') ? el : null;
  }

  // Clicks and hovers.
  dslPane.addEventListener('click', function (ev) {
    var el = lineOf(ev.target);
    if (el) { moveCursor(dslPane, el); select(+el.dataset.line); }
  });
  dslPane.addEventListener('mouseover', function (ev) {
    var el = lineOf(ev.target);
    if (el) { show(+el.dataset.line, 'peek'); }
  });
  dslPane.addEventListener('mouseleave', function () {
    clear('peek');
    if (selected !== null) { show(selected, 'hit', null, true); } else { clear('ctx'); }
  });
  function pick(el) {
    if (!el.dataset.s) {
      status.textContent = el.dataset.file + ':' + el.dataset.line +
        ' comes from no single DSL line (a template part of the program)';
      return;
    }
    select(+el.dataset.s, [+el.dataset.s, +el.dataset.e]);
    el.classList.add('picked');
  }
  genPanes.forEach(function (pane) {
    pane.addEventListener('click', function (ev) {
      var el = lineOf(ev.target);
      if (el) { moveCursor(pane, el); pick(el); }
    });
  });

  // Keyboard: each pane is one tab stop (a listbox); arrows move its cursor line. In the DSL
  // the cursor selects as it moves; in a generated pane Enter or Space picks the origin.
  function moveCursor(pane, el) {
    var old = pane.querySelector('.ln.cursor');
    if (old) { old.classList.remove('cursor'); }
    el.classList.add('cursor');
    pane.setAttribute('aria-activedescendant', el.id);
    scrollTo(el);
  }
  function step(pane, delta) {
    var lines = Array.prototype.slice.call(pane.querySelectorAll('.ln'));
    var at = lines.indexOf(pane.querySelector('.ln.cursor'));
    var next = Math.max(0, Math.min(lines.length - 1, at < 0 ? 0 : at + delta));
    if (delta === Infinity) { next = lines.length - 1; }
    if (delta === -Infinity) { next = 0; }
    moveCursor(pane, lines[next]);
    return lines[next];
  }
  var keys = {ArrowDown: 1, ArrowUp: -1, PageDown: 20, PageUp: -20, Home: -Infinity,
              End: Infinity};
  [dslPane].concat(genPanes).forEach(function (pane) {
    pane.addEventListener('keydown', function (ev) {
      if (ev.key in keys) {
        ev.preventDefault();
        var el = step(pane, keys[ev.key]);
        if (pane === dslPane) { select(+el.dataset.line); }
      } else if ((ev.key === 'Enter' || ev.key === ' ') && pane !== dslPane) {
        var cur = pane.querySelector('.ln.cursor');
        if (cur) { ev.preventDefault(); pick(cur); }
      } else if (ev.key === 'Escape') {
        select(null);
        clear('hit');
        status.textContent = '';
      }
    });
  });

  // Narrow screens: one backend at a time behind tabs (arrow keys move between tabs).
  var tabs = Array.prototype.slice.call(document.querySelectorAll('.tabs [role=tab]'));
  function activate(tab) {
    tabs.forEach(function (t) {
      var on = t === tab;
      t.setAttribute('aria-selected', on ? 'true' : 'false');
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute('aria-controls')).classList.toggle('active', on);
    });
  }
  tabs.forEach(function (tab, i) {
    tab.tabIndex = i === 0 ? 0 : -1;
    tab.addEventListener('click', function () { activate(tab); });
    tab.addEventListener('keydown', function (ev) {
      var d = ev.key === 'ArrowRight' ? 1 : ev.key === 'ArrowLeft' ? -1 : 0;
      if (d) {
        var next = tabs[(i + d + tabs.length) % tabs.length];
        activate(next);
        next.focus();
      }
    });
  });

  // Theme: auto (the system's preference), light, dark; remembered where storage works.
  var themeButton = document.getElementById('theme');
  var themes = ['auto', 'light', 'dark'];
  function setTheme(name) {
    if (name === 'auto') { delete document.documentElement.dataset.theme; } else {
      document.documentElement.dataset.theme = name;
    }
    themeButton.textContent = 'theme: ' + name;
    try { localStorage.setItem('starc-compare-theme', name); } catch (e) { /* file:// */ }
  }
  themeButton.addEventListener('click', function () {
    var now = themeButton.textContent.replace('theme: ', '');
    setTheme(themes[(themes.indexOf(now) + 1) % themes.length]);
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.key === 't' && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { themeButton.click(); }
  });
  try {
    var saved = localStorage.getItem('starc-compare-theme');
    if (themes.indexOf(saved) > 0) { setTheme(saved); }
  } catch (e) { /* storage unavailable */ }
}());
