/**
 * @module The dashboard's only stylesheet and script, served by the dashboard itself (no CDN, no
 * external request): readable without the script, which only enhances the charts (a focusable bar
 * reads its minute out, with the keyboard as with the mouse).
 */

/** The stylesheet: system fonts, AA contrast, a layout that holds from a phone to 1280 px and wider. */
export const STYLESHEET = `
:root{color-scheme:light;--fg:#1b1f24;--muted:#4d5560;--bg:#ffffff;--panel:#f5f7fa;--line:#cfd6de;
--link:#0b5cad;--ok:#1a7f37;--bad:#b3261e;--warn:#8a5300;--focus:#0b5cad;--bar:#3b6fb6;--bar2:#b3261e}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible,[tabindex]:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem 1rem;z-index:2}
.skip:focus{left:.5rem}
header{background:#102a43;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center}
header .brand{font-weight:700;margin-right:auto}
header nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:0;padding:0}
header a{color:#fff;text-decoration:none;padding:.25rem 0;border-bottom:2px solid transparent}
header a[aria-current="page"]{border-bottom-color:#fff}
header a:focus-visible{outline-color:#fff}
main{max-width:1280px;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
.badge{display:inline-block;border:1px solid currentColor;border-radius:.25rem;padding:0 .4rem;font-size:.85rem;font-weight:600}
.s-completed,.s-done{color:var(--ok)}.s-failed,.s-dead,.bad{color:var(--bad)}.s-processing,.s-pending,.warn{color:var(--warn)}
.notice{border-left:4px solid var(--ok);background:var(--panel);padding:.5rem 1rem}
.notice.error{border-left-color:var(--bad)}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:.25rem}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:.5rem}
th,td{padding:.4rem .6rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600;white-space:nowrap}
td.n,th.n{text-align:right}
.wrap{overflow-wrap:anywhere}
td.wrap,th.wrap{max-width:28rem;min-width:8ch;white-space:normal}
td.id{min-width:16ch}
td.err>bdi{display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:2;overflow:hidden}
.muted{color:var(--muted)}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.fields dt{font-weight:600}dl.fields dd{margin:0;overflow-wrap:anywhere}
form.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end;background:var(--panel);padding:.75rem;border-radius:.25rem}
form.filters label,form.confirm label{display:flex;flex-direction:column;font-size:.9rem;font-weight:600;gap:.2rem}
form.confirm label.check{flex-direction:row;align-items:center;gap:.5rem;font-weight:400}
input,select,button{font:inherit;padding:.35rem .5rem;border:1px solid #6b7480;border-radius:.25rem;background:#fff;color:var(--fg)}
button,.button{background:var(--link);color:#fff;border-color:var(--link);cursor:pointer;text-decoration:none;display:inline-block;padding:.35rem .8rem;border-radius:.25rem}
button.danger{background:var(--bad);border-color:var(--bad)}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin:1rem 0}
pre{background:var(--panel);border:1px solid var(--line);padding:.75rem;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;max-height:70vh}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:.75rem}
.card{background:var(--panel);border-radius:.25rem;padding:.75rem}
.card .big{font-size:1.6rem;font-weight:700;display:block}
figure{margin:0 0 1rem}
figcaption{font-weight:600;margin-bottom:.25rem}
svg.chart{width:100%;height:auto;background:var(--panel);border-radius:.25rem}
svg.chart .ok{fill:var(--bar)}svg.chart .bad{fill:var(--bar2)}svg.chart .time{fill:#5b3f99}
svg.chart text{font-size:11px;fill:var(--muted)}svg.chart line{stroke:var(--line)}
svg.chart rect:focus,svg.chart rect.on{stroke:var(--fg);stroke-width:2;outline:none}
.readout{min-height:1.5rem;font-variant-numeric:tabular-nums}
.legend{display:flex;gap:1rem;flex-wrap:wrap;font-size:.9rem}
.key{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-.1rem}
.key.ok{background:var(--bar)}.key.bad{background:var(--bar2)}.key.time{background:#5b3f99}
.pager{display:flex;gap:1rem;margin:.75rem 0}
@media (max-width:640px){main{padding:.5rem}h1{font-size:1.25rem}dl.fields{grid-template-columns:1fr}dl.fields dd{margin-bottom:.5rem}th,td{padding:.3rem .4rem}
.scroll.list{border:0;overflow:visible}
table.rows,table.rows tbody{display:block}
table.rows thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
table.rows tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:0 .6rem;border:1px solid var(--line);border-radius:.25rem;padding:.25rem .5rem;margin:0 0 .3rem;font-size:.8125rem;line-height:1.35}
table.rows td{display:block;border:0;padding:0;max-width:none;min-width:0}
table.rows td.id{order:-1;flex:1 0 100%;font-size:.9375rem}
table.rows td[data-label]::before{content:attr(data-label) " ";color:var(--muted)}
table.rows td.err{flex:1 1 100%;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.rows td.err>bdi{display:inline}
table.rows td.err:empty{display:none}}
`;

/**
 * The script: makes each chart's bars focusable and shows the focused (or hovered) bar's numbers
 * in the chart's live readout. The page says the same in each bar's title and in a data table
 * without it.
 */
export const SCRIPT = `'use strict';
document.querySelectorAll('figure[data-chart]').forEach(function (figure) {
  var out = figure.querySelector('.readout');
  var bars = figure.querySelectorAll('rect[data-label]');
  var svg = figure.querySelector('svg');
  // Bars the keyboard reaches: the picture becomes a group of labelled bars.
  if (svg) svg.setAttribute('role', 'group');
  function show(bar) {
    bars.forEach(function (b) { b.classList.toggle('on', b === bar); });
    if (out) out.textContent = bar.getAttribute('data-label');
  }
  bars.forEach(function (bar, i) {
    bar.setAttribute('tabindex', i === bars.length - 1 ? '0' : '-1');
    bar.setAttribute('role', 'img');
    bar.setAttribute('aria-label', bar.getAttribute('data-label'));
    bar.addEventListener('mouseenter', function () { show(bar); });
    bar.addEventListener('focus', function () { show(bar); });
    bar.addEventListener('keydown', function (event) {
      var step = event.key === 'ArrowLeft' ? -1 : event.key === 'ArrowRight' ? 1 : 0;
      var next = bars[i + step];
      if (step && next) {
        event.preventDefault();
        bar.setAttribute('tabindex', '-1');
        next.setAttribute('tabindex', '0');
        next.focus();
      }
    });
  });
  figure.classList.add('enhanced');
});
`;
