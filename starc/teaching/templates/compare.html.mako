## The compare page: everything inline (CSS, JS, highlighted code) so it works offline.
<%def name="line_attrs(line)">\
% if line.span is not None:
 data-s="${line.span.line}" data-e="${line.span.end_line}" title="from ${title | h}:${line.span.line}"\
% endif
</%def>\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="starc compare">
<title>starc compare: ${title | h}</title>
<style>
${css}
</style>
</head>
<body>
<header class="top">
  <h1>starc compare: <code>${title | h}</code> <span class="sub">function ${function | h}</span></h1>
  <button id="theme" type="button" title="Colour theme (key t)">theme: auto</button>
  <p class="help">Click or hover a DSL line to highlight what each backend generated for it;
  click a generated line to see its DSL origin. Keys: Tab moves between panes, &uarr;/&darr;
  move inside one, Enter picks a generated line's origin, t switches the theme.</p>
  <p class="status" id="status" role="status" aria-live="polite"></p>
</header>
<nav class="tabs" role="tablist" aria-label="Backends">
% for col in columns:
  <button type="button" role="tab" id="tab-${col.backend}" aria-controls="col-${col.backend}" aria-selected="${'true' if loop.first else 'false'}" data-backend="${col.backend}">${col.backend}</button>
% endfor
</nav>
<main class="layout">
<section class="pane dsl" aria-labelledby="dsl-title">
  <h2 id="dsl-title">${title | h}</h2>
  <div class="code" role="listbox" tabindex="0" aria-label="DSL source lines" data-pane="dsl">
% for line in dsl:
<div class="ln" role="option" aria-selected="false" id="dsl-L${line.number}" data-line="${line.number}"><span class="no" aria-hidden="true">${line.number}</span><span class="tx">${line.html}</span></div>
% endfor
  </div>
</section>
<div class="columns">
% for col in columns:
<section class="pane gen${' active' if loop.first else ''}" id="col-${col.backend}" data-backend="${col.backend}" role="tabpanel" aria-labelledby="tab-${col.backend} head-${col.backend}">
  <h2 id="head-${col.backend}">${col.backend} <span class="sub">${col.description | h}</span></h2>
  % if col.counts:
  <dl class="counts">
    % for key, value in col.counts.items():
    <div><dt>${key | h}</dt><dd>${value}</dd></div>
    % endfor
  </dl>
  % endif
  % if col.error:
  <pre class="error">${col.error | h}</pre>
  % else:
  <div class="code" role="listbox" tabindex="0" aria-label="${col.backend} generated code" data-pane="${col.backend}">
    % for file in col.files:
<div class="file" id="${col.backend}-f${loop.index}">${file.name | h}</div>
      <% findex = loop.index %>
      % for line in file.lines:
<div class="ln" role="option" aria-selected="false" id="${col.backend}-f${findex}-L${line.number}" data-file="${file.name | h}" data-line="${line.number}"${line_attrs(line)}><span class="no" aria-hidden="true">${line.number}</span><span class="tx">${line.html}</span></div>
      % endfor
    % endfor
  </div>
  % if col.shared:
  <p class="shared">Also built with it, the same for every program: ${", ".join(col.shared) | h}</p>
  % endif
  % endif
</section>
% endfor
</div>
</main>
<script>
${js}
</script>
</body>
</html>
