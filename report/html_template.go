package report

import "html/template"

// pageTemplate is the HTML page. html/template escapes every value; the
// plots arrive as template.HTML built by html_svg.go, which escapes each
// string it writes. The CSS uses the system font stack only and no
// external reference, so the file is complete on its own.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
:root{--fg:#1a202c;--muted:#5a6475;--rule:#d5dae1;--new:#2b6cb0;--old:#8a8f98;--bg:#fff;--soft:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1100px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:22px;margin:0 0 2px}
h2{font-size:18px;margin:32px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--rule)}
h3{font-size:15px;margin:0 0 6px;overflow-wrap:anywhere}
.sub,.muted{color:var(--muted)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:var(--soft);border:1px solid var(--rule);padding:8px 10px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:24em;overflow:auto}
table{border-collapse:collapse;font-size:13px}
th,td{text-align:left;padding:3px 10px 3px 0;vertical-align:top;border-bottom:1px solid #eceff3;overflow-wrap:break-word}
th{font-weight:600;color:var(--muted);white-space:nowrap}
td.num{font-variant-numeric:tabular-nums;white-space:nowrap}
td.verdict,td.word{white-space:nowrap}
td.ident{overflow-wrap:anywhere;min-width:14em}
a{color:var(--new)}
.wide{overflow-x:auto;max-width:100%}
.facts td:first-child{color:var(--muted);white-space:nowrap;padding-right:16px}
.facts td{overflow-wrap:anywhere}
@media (min-width:900px){.facts.two tbody{display:grid;grid-template-columns:1fr 1fr;column-gap:28px}.facts.two tr{display:flex}.facts.two td:first-child{flex:0 0 120px}.facts.two td:last-child{flex:1}}
p.headline{margin:4px 0}
table.metrics td{font-variant-numeric:tabular-nums;padding-right:24px}
details{margin:4px 0}
details summary{cursor:pointer}
section.benchmark,section.comparison,section.sweep,figure{break-inside:avoid;page-break-inside:avoid}
section.benchmark,section.sweep{margin:18px 0 26px}
figure{margin:8px 0}
svg{width:100%;height:auto;display:block;font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
svg text{fill:var(--fg)}
svg .ticklabel,svg .axistitle{fill:var(--muted)}
svg .grid{stroke:#edf0f4}
svg .axis,svg .tick{stroke:#9aa3ae}
svg .sep{stroke:var(--rule);stroke-dasharray:3 3}
svg .lane{fill:var(--muted)}
svg .dot{fill:currentColor;fill-opacity:.75;stroke:currentColor}
svg .dot.short{fill:#fff;fill-opacity:1}
svg .side-new,svg .process[data-side="new"]{color:var(--new)}
svg .side-old,svg .process{color:var(--old)}
svg .ring{fill:none;stroke:#dd6b20;stroke-width:1.8}
svg .retaken{stroke:#dd6b20;stroke-width:1.5;fill:none}
svg .pmedian{stroke:currentColor;stroke-width:2}
svg .band{fill:currentColor;fill-opacity:.12;stroke:none}
svg .headline{stroke:currentColor;stroke-width:1.5;stroke-dasharray:4 2}
svg .fail,svg .mk-none{stroke:#b83232;stroke-width:2;fill:none}
svg .failtext{fill:#b83232}
svg .threshold{fill:#e9edf2}
svg .one{stroke:#4a5568;stroke-width:1}
svg .ci{stroke:#2d3748;stroke-width:1.5}
svg .mk{stroke-width:1.5}
svg .mk-down{fill:#2f7d4f;stroke:#2f7d4f}
svg .mk-up{fill:#b83232;stroke:#b83232}
svg .mk-inc,svg .mk-dec{fill:#4a5568;stroke:#4a5568}
svg .mk-same{fill:#fff;stroke:#4a5568}
svg .mk-unsure{fill:#fff;stroke:#a86b12}
svg .v-down{fill:#2f7d4f}svg .v-up{fill:#b83232}svg .v-unsure{fill:#a86b12}svg .v-none{fill:#b83232}
svg .seg-user{fill:#2b6cb0}svg .seg-kernel{fill:#7fa7d6}svg .seg-runqueue{fill:#d69e2e}
svg .seg-disk{fill:#9c4221}svg .seg-other{fill:#cbd2d9}svg .seg-wall{fill:#cbd2d9}
svg .wall-outline{fill:none;stroke:#1a202c;stroke-width:1}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;color:var(--muted);font-size:12px;margin:2px 0 6px}
.legend span{display:inline-flex;align-items:center;gap:5px}
.legend svg{width:auto;height:14px;display:inline}
svg .curve{fill:none;stroke:#2b6cb0;stroke-width:2}
svg .curve.best{stroke:#a86b12;stroke-dasharray:6 4}
svg .sweep-dot{fill:#1a202c;stroke:#fff;stroke-width:1}
.sw{display:inline-block;width:12px;height:12px;border:1px solid #0003}
ul.plain{margin:4px 0;padding-left:18px}
.repair{border-left:3px solid #dd6b20;background:#fffaf0;padding:4px 10px;margin:6px 0;overflow-wrap:anywhere}
.fail-block{border-left:3px solid #b83232;padding-left:10px;margin:8px 0;overflow-wrap:anywhere}
.outcome{font-weight:600;color:#b83232}
.fail-block.skip{border-left-color:var(--old)}
.skip .outcome{color:var(--muted)}
@media print{
  body{font-size:11px;background:#fff;color:#000}
  main{max-width:none;padding:0}
  pre{max-height:none;overflow:visible;background:#fff}
  h2{break-after:avoid}
}
</style>
</head>
<body>
<main>
<header>
<h1>{{.Title}}</h1>
<div class="sub">{{.Subtitle}}</div>
</header>

<h2 id="summary">Summary</h2>
<div class="wide"><table class="facts two">
{{range .Facts}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>
{{end}}</table></div>
{{if .Outcomes}}<h3 style="margin-top:14px">Rows by kind and outcome</h3>
<table class="facts">{{range .Outcomes}}<tr><td>{{.Name}}</td><td class="num">{{.Value}}</td></tr>{{end}}</table>{{end}}
{{if .Sources}}<h3 style="margin-top:14px">Measurement sources</h3>
<div class="wide"><table class="facts">{{range .Sources}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>
{{end}}</table></div>{{end}}
{{if .Absent}}<h3 style="margin-top:14px">Not measured</h3>
<details><summary>{{len .Absent}} metric values of rows have no value; each with its reason (also under its benchmark)</summary>
<ul class="plain">{{range .Absent}}<li>{{.}}</li>
{{end}}</ul></details>{{end}}

{{range $i, $c := .Comparisons}}
<section class="comparison">
<h2>Comparison{{if $i}} {{$i}}{{end}}: new / old</h2>
<table class="facts"><tr><td>old</td><td>{{.Old}}</td></tr><tr><td>new</td><td>{{.New}}</td></tr><tr><td>statistics</td><td>{{.Statistics}}</td></tr>{{if .Shortfall}}<tr><td>confidence</td><td>{{.Shortfall}}</td></tr>{{end}}</table>
{{if .Mismatches}}<p class="outcome">Fingerprints differ (compared because --allow-mismatch was given):</p>
<ul class="plain">{{range .Mismatches}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{range .Forests}}<figure>
<h3>{{.Metric}}: new / old</h3>
{{.SVG}}
<figcaption class="legend">
{{if eq .Metric "sec/op"}}<span><svg viewBox="0 0 14 14" width="14" height="14"><path d="M1 2L13 2L7 13Z" fill="#2f7d4f"/></svg>faster</span>
<span><svg viewBox="0 0 14 14" width="14" height="14"><path d="M1 12L13 12L7 1Z" fill="#b83232"/></svg>slower</span>{{else}}<span><svg viewBox="0 0 14 14" width="14" height="14"><path d="M1 2L13 2L7 13Z" fill="#4a5568"/></svg>decreased</span>
<span><svg viewBox="0 0 14 14" width="14" height="14"><path d="M1 12L13 12L7 1Z" fill="#4a5568"/></svg>increased (better or worse depends on the metric)</span>{{end}}
<span><svg viewBox="0 0 14 14" width="14" height="14"><circle cx="7" cy="7" r="5" fill="#fff" stroke="#4a5568" stroke-width="1.5"/></svg>equivalent / same</span>
<span><svg viewBox="0 0 14 14" width="14" height="14"><path d="M7 1L13 7L7 13L1 7Z" fill="#fff" stroke="#a86b12" stroke-width="1.5"/></svg>inconclusive</span>
<span><span class="sw" style="background:#e9edf2"></span>practical threshold</span>
<span>rows without a ratio: verdict in text, no marker</span>
</figcaption>
</figure>{{end}}
{{if .Geomeans}}<p><strong>Geomean</strong></p><ul class="plain">{{range .Geomeans}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Sweeps}}<p><strong>Scaling changes</strong> <span class="muted">({{$.Caveat}})</span></p><ul class="plain">{{range .Sweeps}}<li>{{.}}</li>{{end}}</ul>{{end}}
<div class="wide"><table>
<tr><th>identity</th><th>metric</th><th>old</th><th>new</th><th>change</th><th>interval</th><th>p</th><th>verdict</th></tr>
{{range .Table}}<tr><td class="ident">{{if .Anchor}}<a href="#{{.Anchor}}">{{.Identity}}</a>{{else}}{{.Identity}}{{end}}</td><td class="word">{{.Metric}}</td><td class="num">{{.Old}}</td><td class="num">{{.New}}</td><td class="num">{{.Change}}</td><td class="num">{{.Interval}}</td><td class="num">{{.P}}</td><td class="verdict">{{.Verdict}}</td></tr>
{{end}}</table></div>
{{if .Notes}}<ul class="plain muted">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
</section>
{{end}}

{{range .Variants}}
<section class="variants">
<h2>{{.Title}}</h2>
<table class="facts"><tr><td>statistics</td><td>{{.Statistics}}</td></tr></table>
{{range .Groups}}<figure>
<h3>{{.Package}} {{.Group}}: each variant / {{.Reference}}</h3>
{{.SVG}}
<figcaption class="legend">
<span><svg viewBox="0 0 14 14" width="14" height="14"><path d="M1 2L13 2L7 13Z" fill="#2f7d4f"/></svg>faster than the reference</span>
<span><svg viewBox="0 0 14 14" width="14" height="14"><path d="M1 12L13 12L7 1Z" fill="#b83232"/></svg>slower</span>
<span><svg viewBox="0 0 14 14" width="14" height="14"><circle cx="7" cy="7" r="5" fill="#fff" stroke="#4a5568" stroke-width="1.5"/></svg>equivalent</span>
<span><svg viewBox="0 0 14 14" width="14" height="14"><path d="M7 1L13 7L7 13L1 7Z" fill="#fff" stroke="#a86b12" stroke-width="1.5"/></svg>inconclusive</span>
<span><span class="sw" style="background:#e9edf2"></span>practical threshold</span>
<span>the reference is the line at 1</span>
</figcaption>
</figure>
<div class="wide"><table>
<tr><th>variant</th><th>time</th><th>ratio to {{.Reference}}</th><th>interval</th><th>won–lost</th><th>verdict</th></tr>
{{range .Lines}}<tr><td class="ident">{{.Variant}}</td><td class="num">{{.Time}}</td><td class="num">{{.Ratio}}</td><td class="num">{{.Interval}}</td><td class="num">{{.Won}}</td><td class="verdict">{{.Verdict}}</td></tr>
{{end}}</table></div>
{{with .Matrix}}<div class="wide"><table class="vs-matrix">
<tr><th>vs</th>{{range .Members}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.Name}}</th>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</table><p class="muted">{{.Legend}}</p></div>{{end}}
{{end}}
{{if .Geomeans}}<p><strong>Geomean over the groups</strong></p><ul class="plain">{{range .Geomeans}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Notes}}<ul class="plain muted">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
</section>
{{end}}

{{if .TestMode}}
<h2 id="tests">Failed and skipped tests</h2>
{{if .Tests}}<div class="wide"><table>
<tr><th>test</th><th>outcome</th><th>elapsed</th><th>reason</th></tr>
{{range .Tests}}<tr><td class="mono">{{.Name}}</td><td>{{.Outcome}}</td><td class="num">{{.Elapsed}}</td><td>{{.Error}}</td></tr>
{{end}}</table></div>
{{range .Tests}}{{if .Output}}{{template "failure" .}}{{end}}{{end}}{{else}}<p>Every test passed.</p>{{end}}
{{end}}

{{if .Benchmarks}}
<h2 id="benchmarks">Benchmarks</h2>
<p class="muted">One lane per fresh process; the process is the unit, so each lane's samples are evidence about that process only.</p>
{{range .Benchmarks}}
<section class="benchmark" id="{{.Anchor}}" data-identity="{{.Identity}}">
<h3>{{.Name}} <span class="muted" style="font-weight:400">{{.Package}}</span></h3>
<figure>
{{.Strip}}
{{if .Legend}}<figcaption class="legend">
<span><svg viewBox="0 0 12 12" width="12" height="12"><circle cx="6" cy="6" r="3.5" fill="#2b6cb0"/></svg>sample (new)</span>
{{if gt (len .Sides) 1}}<span><svg viewBox="0 0 12 12" width="12" height="12"><circle cx="6" cy="6" r="3.5" fill="#8a8f98"/></svg>sample (old / other build)</span>{{end}}
<span><svg viewBox="0 0 12 12" width="12" height="12"><circle cx="6" cy="6" r="3.5" fill="#fff" stroke="#5a6475"/></svg>short sample</span>
{{if .Disturbed}}<span><svg viewBox="0 0 14 14" width="14" height="14"><circle cx="7" cy="7" r="5.5" fill="none" stroke="#dd6b20" stroke-width="1.8"/><circle cx="7" cy="7" r="3" fill="#5a6475"/></svg>disturbed sample (foreign CPU over the limit; kept, in the statistics)</span>{{end}}
{{if .Retaken}}<span><svg viewBox="0 0 12 12" width="12" height="12"><path d="M3 3L9 9M3 9L9 3" stroke="#dd6b20" stroke-width="1.5"/></svg>retaken: not in any statistic</span>{{end}}
<span><svg viewBox="0 0 12 12" width="12" height="12"><line x1="6" y1="0" x2="6" y2="12" stroke="#5a6475" stroke-width="2"/></svg>process median</span>
<span><svg viewBox="0 0 18 12" width="18" height="12"><rect x="0" y="0" width="18" height="12" fill="#5a6475" fill-opacity=".15"/><line x1="9" y1="0" x2="9" y2="12" stroke="#5a6475" stroke-dasharray="3 2"/></svg>median of process medians and its interval</span>
<span><svg viewBox="0 0 12 12" width="12" height="12"><path d="M2 2L10 10M2 10L10 2" stroke="#b83232" stroke-width="2"/></svg>process without samples</span>
</figcaption>{{end}}
</figure>
{{range .Rows}}<p class="headline"><strong>{{.Side}}:</strong> {{.Headline}}</p>
{{if .Repair}}<div class="repair" data-side="{{.Side}}"><strong>{{.Side}}</strong> {{.Repair}}</div>
{{end}}{{end}}
{{if .Metrics}}<div class="wide"><table class="metrics">
<tr><th>metric</th>{{range .Sides}}<th>{{.}}</th>{{end}}</tr>
{{range .Metrics}}<tr>{{range $i, $v := .}}{{if $i}}<td>{{$v}}</td>{{else}}<td class="muted">{{$v}}</td>{{end}}{{end}}</tr>
{{end}}</table></div>{{end}}
{{range .Rows}}
{{if .Absences}}<details class="muted"><summary>{{.Side}}: {{len .Absences}} selected metric(s) without a value, and why</summary><ul class="plain">{{range .Absences}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
{{$side := .Side}}{{if .Notes}}<ul class="plain muted">{{range .Notes}}<li>{{$side}}: {{.}}</li>{{end}}</ul>{{end}}
{{range .Failures}}{{template "failure" .}}{{end}}
{{end}}
</section>
{{end}}
{{end}}

{{if .Recordings}}
<h2 id="recordings">Recordings</h2>
<p class="muted">Spans the program marked, per identity: percentiles of individual spans, not per-process medians. Each plot is the share of retained spans at or below each duration (an ECDF).</p>
{{range .Recordings}}
<section class="recording" data-identity="{{.Identity}}">
<h3>{{.Identity}} {{if .Source}}<span class="muted" style="font-weight:400">{{.Source}}</span>{{end}}</h3>
<p class="headline">{{.Summary}}</p>
<figure>{{.SVG}}</figure>
</section>
{{end}}
{{end}}

{{if .Sweeps}}
<h2 id="sweeps">Sweeps</h2>
<p class="muted">How time per operation grows with the size a family of sub-benchmarks varies: {{.Caveat}}. Log-log axes; each point a member's median ns/op with its interval; the line the selected model c·g(n) over the measured values, dashed the closest model when the fit selected none.</p>
{{range .Sweeps}}
<section class="sweep" data-family="{{.Identity}}" data-status="{{.Status}}">
<h3>{{.Family}} <span class="muted" style="font-weight:400">{{.Package}}</span></h3>
<p class="headline"><strong>{{.Status}}:</strong> {{.Summary}}</p>
{{if .Reason}}<p class="muted">{{.Reason}}</p>{{end}}
<figure>
{{.SVG}}
<figcaption class="legend">
<span><svg viewBox="0 0 12 16" width="12" height="16"><line x1="6" y1="1" x2="6" y2="15" stroke="#2d3748" stroke-width="1.5"/><circle cx="6" cy="8" r="3.5" fill="#1a202c"/></svg>member: median ns/op and its interval</span>
{{if eq .Curve "selected"}}<span><svg viewBox="0 0 24 12" width="24" height="12"><line x1="0" y1="6" x2="24" y2="6" stroke="#2b6cb0" stroke-width="2"/></svg>selected model</span>{{end}}
{{if eq .Curve "best"}}<span><svg viewBox="0 0 24 12" width="24" height="12"><line x1="0" y1="6" x2="24" y2="6" stroke="#a86b12" stroke-width="2" stroke-dasharray="6 4"/></svg>closest model, not selected</span>{{end}}
</figcaption>
</figure>
{{if .Omitted}}<ul class="plain muted">{{range .Omitted}}<li>left out: {{.}}</li>{{end}}</ul>{{end}}
{{if .Fits}}<details><summary>the six models' fits (in log space: c by least squares; residuals in natural-log units)</summary><div class="wide"><table>
<tr><th>model</th><th>c (ns per g(n))</th><th>nominal exponent</th><th>R²</th><th>RMS log residual</th><th>max log residual</th><th>selection</th></tr>
{{range .Fits}}<tr>{{range $i, $v := .}}{{if $i}}<td class="num">{{$v}}</td>{{else}}<td>{{$v}}</td>{{end}}{{end}}</tr>
{{end}}</table></div></details>{{end}}
</section>
{{end}}
{{end}}

{{if .Failures}}
<h2 id="failures">Other failures</h2>
{{range .Failures}}{{template "failure" .}}{{end}}
{{end}}

{{with .Windows}}
<h2 id="workloads">Workload windows</h2>
<p class="muted">Each bar is one window's median wall-clock time split into the median of each component across processes, scaled to that window's own wall (component medians are summarized apart and need not add up to it). An unattributed component is not drawn; the table shows it as an em dash with the reason.</p>
<figure>
{{.SVG}}
<figcaption class="legend">
<span><span class="sw" style="background:#2b6cb0"></span>on-CPU user</span>
<span><span class="sw" style="background:#7fa7d6"></span>on-CPU kernel</span>
<span><span class="sw" style="background:#d69e2e"></span>run queue</span>
<span><span class="sw" style="background:#9c4221"></span>disk wait</span>
<span><span class="sw" style="background:#cbd2d9"></span>other off-CPU (wall only when the scope is mixed or wall-only)</span>
</figcaption>
</figure>
<div class="wide"><table>
<tr><th>window</th><th>processes</th><th>scope</th><th>wall</th><th>spread</th><th>user</th><th>kernel</th><th>runqueue</th><th>disk</th><th>other</th><th>other threads</th><th>page cache</th><th>note</th></tr>
{{range .Table}}<tr><td>{{.Name}}</td><td class="num">{{.Processes}}</td><td>{{.Scope}}</td><td class="num">{{.Wall}}</td><td class="num">{{.Spread}}</td><td class="num">{{.User}}</td><td class="num">{{.Kernel}}</td><td class="num">{{.Runqueue}}</td><td class="num">{{.Disk}}</td><td class="num">{{.Other}}</td><td class="num">{{.OtherThreads}}</td><td>{{.Regimes}}</td><td>{{.Note}}</td></tr>
{{end}}</table></div>
{{end}}
</main>
</body>
</html>
{{define "failure"}}<div class="fail-block{{if eq .Outcome "skipped"}} skip{{end}}"><div><span class="outcome">{{.Outcome}}</span> <span class="mono">{{.Name}}</span></div>
{{if .Error}}<div class="mono">{{.Error}}</div>{{end}}
{{if .Output}}<pre>{{.Output}}</pre>{{end}}</div>
{{end}}`))
