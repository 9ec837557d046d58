/**
 * The dashboard's only stylesheet, served as /dashboard/assets/dashboard.css so the
 * Content-Security-Policy can forbid inline styles. Logical properties (inline-start,
 * inline-end) make the same rules right for Arabic (rtl) and French/English (ltr).
 * Colours keep at least 4.5:1 contrast on their backgrounds.
 */
export const DASHBOARD_CSS = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Tahoma, sans-serif;
  --ink: #1c2430; --muted: #4a5565; --line: #d5dbe3; --brand: #0b6b3a; --link: #0b4f8a;
  --bad: #a11d1d; --live: #8a3b00; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f6f8; color: var(--ink); line-height: 1.45; }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible
  { outline: 3px solid #f0b400; outline-offset: 2px; }
.skip { position: absolute; inset-inline-start: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { inset-inline-start: .5rem; z-index: 10; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header.top { background: #fff; border-block-end: 1px solid var(--line); padding: .75rem 1rem;
  display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: center; justify-content: space-between; }
.brand { font-weight: 700; font-size: 1.05rem; }
.brand.product { text-align: center; font-size: 1.15rem; margin: 0 0 1rem; }
.brand .merchant { display: block; font-weight: 400; color: var(--muted); font-size: .9rem; }
.switches { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
.switch { display: flex; gap: .25rem; align-items: center; margin: 0; }
.switch .legend { color: var(--muted); font-size: .85rem; margin-inline-end: .25rem; }
.switch button { background: #fff; color: var(--ink); border: 1px solid var(--line); border-radius: 6px;
  padding: .35rem .6rem; font-size: .9rem; cursor: pointer; width: auto; }
.switch button[aria-pressed="true"] { background: var(--ink); color: #fff; border-color: var(--ink); }
nav.main { background: #fff; border-block-end: 1px solid var(--line); }
nav.main ul { list-style: none; margin: 0; padding: 0 .5rem; display: flex; flex-wrap: wrap; gap: 0 .25rem; }
nav.main li { margin: 0; }
nav.main a, nav.main button { display: inline-block; padding: .7rem .6rem; color: var(--link); text-decoration: none;
  background: none; border: 0; font: inherit; cursor: pointer; width: auto; }
nav.main a[aria-current="page"] { color: var(--ink); font-weight: 700; border-block-end: 3px solid var(--brand); }
nav.main form { margin: 0; }
.live-banner { background: #fff4e5; color: var(--live); border-block-end: 1px solid #f3c68b; padding: .4rem 1rem;
  font-weight: 600; font-size: .9rem; }
main { max-width: 64rem; margin: 1rem auto; padding: 0 1rem 2rem; }
main.narrow { max-width: 26rem; margin-top: 2.5rem; }
.card { background: #fff; border-radius: 10px; padding: 1.25rem; box-shadow: 0 1px 3px rgba(0,0,0,.1);
  margin-block-end: 1rem; }
/* A heading may hold a QR token or a reference with no break in it: it wraps rather than
   widen a phone's page. */
h1 { font-size: 1.4rem; margin: .25rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 0 0 .75rem; }
p { margin: 0 0 .75rem; }
.muted { color: var(--muted); }
.flash { border-radius: 8px; padding: .7rem 1rem; margin-block-end: 1rem; }
.flash.ok { background: #e6f4ec; color: #0a5a31; border: 1px solid #9fd3b4; }
.flash.error { background: #fdecec; color: var(--bad); border: 1px solid #f0b3b3; }
form.stack { display: grid; gap: .8rem; }
label { display: block; font-weight: 600; margin-block-end: .25rem; }
input[type=text], input[type=email], input[type=password], input[type=url], input[type=search],
input[type=date], input[type=number], select, textarea {
  width: 100%; padding: .6rem .7rem; border: 1px solid #8a94a3; border-radius: 6px; font: inherit; background: #fff; color: var(--ink); }
fieldset { border: 1px solid var(--line); border-radius: 8px; padding: .75rem; margin: 0; }
legend { font-weight: 600; padding: 0 .25rem; }
.check { display: flex; gap: .5rem; align-items: center; font-weight: 400; margin: .25rem 0; }
button, .button { display: inline-block; padding: .65rem 1.1rem; border: 0; border-radius: 8px; background: var(--brand);
  color: #fff; font: inherit; font-weight: 600; text-align: center; text-decoration: none; cursor: pointer; }
button.secondary, .button.secondary { background: #fff; color: var(--link); border: 1px solid var(--link); }
button.danger { background: var(--bad); }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; background: #fff; font-size: .95rem; }
th, td { text-align: start; padding: .55rem .6rem; border-block-end: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: .85rem; }
td.number { text-align: end; font-variant-numeric: tabular-nums; }
code { direction: ltr; unicode-bidi: isolate; }
code, .secret { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; word-break: break-all; }
.secret { display: block; background: #f4f6f8; border: 1px dashed #8a94a3; padding: .75rem; border-radius: 6px;
  margin: .5rem 0 1rem; direction: ltr; text-align: left; }
.badge { display: inline-block; padding: .1rem .5rem; border-radius: 999px; font-size: .8rem; background: #e8ecf1; color: var(--ink); }
.badge.bad { background: #fdecec; color: var(--bad); }
.badge.ok { background: #e6f4ec; color: #0a5a31; }
.languages { display: flex; gap: .75rem; justify-content: center; margin-top: 1rem; }
.download { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; }
dl.fields { display: grid; grid-template-columns: minmax(8rem, auto) 1fr; gap: .4rem 1rem; margin: 0 0 1rem; }
dl.fields dt { color: var(--muted); } dl.fields dd { margin: 0; }
img.qr { max-width: 14rem; height: auto; }
/* A row's own small forms (the Team page: a role to choose, disable, revoke). */
form.inline { display: inline-flex; flex-wrap: wrap; gap: .35rem; align-items: center; margin: 0; }
form.inline select { width: auto; padding: .4rem .5rem; }
form.inline button { padding: .4rem .8rem; }
.forgot { margin: 1rem 0 0; text-align: center; }
@media (max-width: 40rem) {
  /* On a phone the header and the navigation take two short rows and one scrolling row
     (about 110 px of 844), so a page starts on the first screen. */
  header.top { padding: .35rem .75rem; gap: .3rem .75rem; }
  .brand { font-size: .95rem; overflow-wrap: anywhere; }
  .brand .merchant { display: inline; margin-inline-start: .4rem; font-size: .8rem; }
  .switches { gap: .3rem .75rem; }
  .switch .legend { display: none; }
  .switch button { padding: .2rem .5rem; font-size: .8rem; }
  nav.main ul { flex-wrap: nowrap; overflow-x: auto; padding: 0 .25rem; }
  nav.main a, nav.main button { padding: .5rem .5rem; white-space: nowrap; }
  main { padding: 0 .6rem 1.5rem; }
  .card { padding: 1rem; }
  dl.fields { grid-template-columns: 1fr; }
  table.responsive thead { display: none; }
  table.responsive tr { display: block; border-block-end: 1px solid var(--line); padding: .4rem 0; }
  table.responsive td { display: flex; justify-content: space-between; gap: 1rem; border: 0; padding: .25rem .6rem; }
  table.responsive td::before { content: attr(data-label); color: var(--muted); font-weight: 600; }
}
@media print {
  header.top, nav.main, .live-banner, .skip { display: none; }
  main { padding: 0; }
  .card { border: 0; box-shadow: none; }
}
`;
