package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/benchsup/benchsup/rundoc"
)

// The viewport every layout assertion and screenshot uses: a laptop screen.
const viewWidth, viewHeight = 1280, 900

// findChromium returns Debian's chromium (or another Chromium-family
// browser on PATH), or "" when there is none.
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// page is one headless browser tab with what it saw: console errors,
// uncaught exceptions, error entries of the browser log, and every request.
type page struct {
	ctx context.Context

	mu       sync.Mutex
	errs     []string
	requests []string
}

// browserStartWait bounds one attempt to start the browser: from the
// process's start to its first answer on the DevTools protocol. A loaded
// 2-core host starts Debian's chromium in 1 to 3 s (measured, with six busy
// loops); an attempt that waits this long has hung, and the next one starts
// a fresh process.
const browserStartWait = 30 * time.Second

// browserAttempts are the ways startBrowser tries, in order: the DevTools
// pipe (chromedp's default), the same without the zygote process, and the
// WebSocket port. A CI run once had chromium running but never answering
// the pipe for 60 s, which no run here reproduced; each later attempt
// drops a part of the start that could be what hung.
var browserAttempts = []struct {
	name string
	opts []chromedp.ExecAllocatorOption
}{
	{"pipe", nil},
	{"pipe, no zygote", []chromedp.ExecAllocatorOption{chromedp.Flag("no-zygote", true)}},
	{"websocket", []chromedp.ExecAllocatorOption{remote.WebSocket}},
}

// startBrowser starts one headless browser for the test (its own profile
// under a test temporary directory, nothing that reaches the network by
// itself, a viewWidth×viewHeight window) and returns its context, which
// newPage opens tabs in. The browser ends with the test.
//
// A browser that does not answer within browserStartWait is killed and
// the next of browserAttempts is tried; when none answers, the test skips
// with each attempt's error and the tail of what chromium printed: no
// browser could be had on this host, which says nothing about the report.
// Everything after the browser answered fails the test as usual.
func startBrowser(t *testing.T, chrome string) context.Context {
	t.Helper()
	var failures []string
	for i, attempt := range browserAttempts {
		out := &tailBuffer{max: 4 << 10}
		opts := append([]chromedp.ExecAllocatorOption{
			chromedp.ExecPath(chrome),
			chromedp.Flag("headless", true),
			chromedp.NoSandbox, // root in CI containers, where the sandbox cannot start
			chromedp.DisableGPU,
			chromedp.Flag("disable-dev-shm-usage", true), // a small or full /dev/shm must not stall it
			chromedp.Flag("disable-quic", true),
			chromedp.NoFirstRun,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("hide-scrollbars", true), // a scrollbar would take width from the layout under test
			chromedp.UserDataDir(filepath.Join(t.TempDir(), fmt.Sprintf("profile-%d", i))),
			chromedp.WindowSize(viewWidth, viewHeight),
			chromedp.CombinedOutput(out),
		}, attempt.opts...)
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
		// The browser lives as long as the context of its first Run, so the
		// attempt's bound is a timer beside it, not a deadline on it.
		began := time.Now()
		answered := make(chan error, 1)
		go func() { answered <- chromedp.Do(browserCtx) }()
		var err error
		select {
		case err = <-answered:
		case <-time.After(browserStartWait):
			err = fmt.Errorf("no answer within %v", browserStartWait)
			cancelAlloc() // kills the process, which ends the Run
			<-answered
		}
		if err == nil {
			t.Logf("%s answered in %v (%s)", chrome, time.Since(began).Round(time.Millisecond), attempt.name)
			t.Cleanup(func() {
				cancelBrowser()
				cancelAlloc()
			})
			return browserCtx
		}
		cancelBrowser()
		cancelAlloc()
		failure := fmt.Sprintf("attempt %d (%s): %v", i+1, attempt.name, err)
		if tail := strings.TrimSpace(out.String()); tail != "" {
			failure += "; chromium printed:\n\t\t" + strings.ReplaceAll(tail, "\n", "\n\t\t")
		}
		t.Log(failure)
		failures = append(failures, failure)
	}
	t.Skipf("%s did not start here, so the report could not be checked in a browser:\n\t%s", chrome, strings.Join(failures, "\n\t"))
	return nil
}

// tailBuffer keeps the last max bytes written to it; chromium's output
// goes to it from chromedp's reading goroutine.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// newPage opens a fresh tab of the browser with a viewWidth×viewHeight
// viewport; the tab closes when ctx ends.
func newPage(t *testing.T, ctx, browserCtx context.Context) *page {
	t.Helper()
	p := &page{}
	// WithListener sees every event in arrival order, before the command
	// that caused it returns: nothing is missed when the checks run.
	tabCtx, cancelTab := chromedp.NewContext(browserCtx, chromedp.WithListener(p.listen))
	// The tab's context comes from the browser's, not from ctx: ctx (which
	// ends with the test at the latest) closes the tab when it ends.
	context.AfterFunc(ctx, cancelTab)
	p.ctx = tabCtx
	if err := chromedp.Do(tabCtx, chromedp.EmulateViewport(viewWidth, viewHeight)); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return p
}

// listen runs on the tab's reading goroutine: it must only record.
func (p *page) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *cdpruntime.EventConsoleAPICalled:
		if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				if a.Description != "" {
					args = append(args, a.Description)
				} else {
					args = append(args, string(a.Value))
				}
			}
			p.errs = append(p.errs, "console."+string(ev.Type)+": "+strings.Join(args, " "))
		}
	case *cdpruntime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + d.Exception.Description
		}
		p.errs = append(p.errs, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, text))
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			p.errs = append(p.errs, fmt.Sprintf("log %s: %s (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, ev.Request.URL)
	}
}

// seen returns copies of what the page recorded so far.
func (p *page) seen() (errs, requests []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.errs), slices.Clone(p.requests)
}

// fileURL is the file:// URL of an absolute path.
func fileURL(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// screenshot is a full-page PNG of the page as loaded, checked to decode at
// the viewport's width.
func (p *page) screenshot(t *testing.T) ([]byte, image.Image) {
	t.Helper()
	buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != viewWidth || b.Dy() < 100 {
		t.Fatalf("screenshot is %dx%d, want %d wide and a page's height", b.Dx(), b.Dy(), viewWidth)
	}
	return buf, img
}

// section is one section.benchmark: its strip plots, and the first one's
// processes.
type section struct {
	Identity  string `json:"identity"`
	Strips    int    `json:"strips"`
	Declared  string `json:"declared"` // data-processes
	Processes []struct {
		Side    string `json:"side"`
		Outcome string `json:"outcome"`
	} `json:"processes"`
}

// census is what the browser found in the rendered report: per benchmark
// section its strip plots and their processes, the forest plots' rows,
// the windows and the sweep plots.
type census struct {
	Sections   []section `json:"sections"`
	Forests    []string  `json:"forests"`    // data-metric of each svg.forest
	ForestRows []string  `json:"forestRows"` // data-identity of each g.forest-row
	Verdicts   []string  `json:"verdicts"`   // data-verdict of each g.forest-row
	Windows    int       `json:"windows"`
	// Sweeps maps each svg.sweep's data-family to its g.point count.
	Sweeps map[string]int `json:"sweeps"`
}

const censusJS = `(() => {
	const out = {sections: [], forests: [], forestRows: [], verdicts: [], windows: 0, sweeps: {}};
	for (const s of document.querySelectorAll('section.benchmark')) {
		const strips = s.querySelectorAll('svg.strip');
		const procs = strips.length ? [...strips[0].querySelectorAll('g.process')] : [];
		out.sections.push({
			identity: s.getAttribute('data-identity') || '',
			strips: strips.length,
			declared: strips.length ? (strips[0].getAttribute('data-processes') || '') : '',
			processes: procs.map(g => ({side: g.getAttribute('data-side') || '', outcome: g.getAttribute('data-outcome') || ''})),
		});
	}
	for (const f of document.querySelectorAll('section.comparison svg.forest')) {
		out.forests.push(f.getAttribute('data-metric') || '');
	}
	for (const g of document.querySelectorAll('section.comparison svg.forest g.forest-row')) {
		out.forestRows.push(g.getAttribute('data-identity') || '');
		out.verdicts.push(g.getAttribute('data-verdict') || '');
	}
	out.windows = document.querySelectorAll('svg.windows g.window').length;
	for (const s of document.querySelectorAll('section.sweep svg.sweep')) {
		const f = s.getAttribute('data-family') || '';
		out.sweeps[f] = (out.sweeps[f] || 0) + s.querySelectorAll('g.point').length;
	}
	return out;
})()`

// overflowJS finds what reaches past the viewport's right edge: the
// document's scroll width and every element whose box does, described.
var overflowJS = fmt.Sprintf(`(() => {
	const limit = %d + 0.5;
	const out = {scrollWidth: document.documentElement.scrollWidth, elements: []};
	for (const e of document.querySelectorAll('body *')) {
		const r = e.getBoundingClientRect();
		if (r.right > limit) {
			let d = e.tagName.toLowerCase();
			if (e.id) d += '#' + e.id;
			const cls = e.getAttribute('class');
			if (cls) d += '.' + cls.trim().split(/\s+/).join('.');
			const text = (e.textContent || '').trim().slice(0, 40);
			out.elements.push(d + ' right=' + r.right.toFixed(1) + (text ? ' "' + text + '"' : ''));
		}
	}
	return out;
})()`, viewWidth)

// answerFirst is what answerFirstJS reads: whether a comparison precedes
// the benchmarks, where each comparison row's link leads, and the strip
// plots' lane labels.
type answerFirst struct {
	ComparisonFirst bool `json:"comparisonFirst"`
	Links           []struct {
		Href   string `json:"href"`
		Text   string `json:"text"`
		Target string `json:"target"` // the linked section's data-identity; "" for none
	} `json:"links"`
	Lanes []string `json:"lanes"`
}

const answerFirstJS = `(() => {
	const c = document.querySelector('section.comparison'), b = document.querySelector('section.benchmark');
	const out = {comparisonFirst: !!(c && b && (c.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)), links: [], lanes: []};
	for (const a of document.querySelectorAll('section.comparison a[href^="#"]')) {
		const id = decodeURIComponent(a.getAttribute('href').slice(1));
		const t = document.getElementById(id);
		out.links.push({href: id, text: a.textContent, target: t && t.matches('section.benchmark') ? (t.getAttribute('data-identity') || '') : ''});
	}
	for (const l of document.querySelectorAll('svg.strip g.process text.lane')) {
		out.lanes.push(l.textContent);
	}
	return out;
})()`

// brokenWordsJS lists the table cells (identities aside) a word of which
// spans two lines, and the verdict and number cells that wrap or overflow
// at all.
const brokenWordsJS = `(() => {
	const out = [];
	const lineTops = rects => new Set([...rects].filter(r => r.width > 0).map(r => Math.round(r.top))).size;
	for (const cell of document.querySelectorAll('main table:not(.facts) td:not(.ident), main table:not(.facts) th')) {
		if (!cell.getClientRects().length) continue; // in a closed <details>
		const text = cell.textContent.trim().replace(/\s+/g, ' ').slice(0, 60);
		if (cell.matches('td.num, td.verdict')) {
			const r = document.createRange();
			r.selectNodeContents(cell);
			if (lineTops(r.getClientRects()) > 1 || cell.scrollWidth > cell.clientWidth + 1) {
				out.push(cell.className + ' "' + text + '" wraps or overflows');
				continue;
			}
		}
		const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
		for (let n = walker.nextNode(); n; n = walker.nextNode()) {
			for (const m of n.data.matchAll(/\S+/g)) {
				const r = document.createRange();
				r.setStart(n, m.index);
				r.setEnd(n, m.index + m[0].length);
				if (lineTops(r.getClientRects()) > 1) out.push((cell.className || cell.tagName.toLowerCase()) + ' "' + text + '" breaks "' + m[0] + '"');
			}
		}
	}
	return out;
})()`

// openDetailsJS unfolds every <details>, whose content must fit too.
const openDetailsJS = `document.querySelectorAll('details').forEach(d => { d.open = true; }); document.querySelectorAll('details').length`

// countDOM counts the elements a selector matches through the DOM domain,
// which works with the page's scripts disabled. Node ids die whenever the
// document is fetched again (chromedp does so itself after a navigation),
// so a query that names a dead node is retried.
func (p *page) countDOM(selector string) (int, error) {
	var err error
	for range 5 {
		var doc dom.GetDocumentResult
		if doc, err = chromedp.Call(p.ctx, dom.GetDocument, dom.GetDocumentParams{}); err != nil {
			continue
		}
		var res dom.QuerySelectorAllResult
		res, err = chromedp.Call(p.ctx, dom.QuerySelectorAll, dom.QuerySelectorAllParams{NodeID: doc.Root.NodeID, Selector: selector})
		if err == nil {
			return len(res.NodeIDs), nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0, fmt.Errorf("counting %s: %w", selector, err)
}

// benchsupIn runs the built binary in dir, returning its exit status;
// anything but an exit status is fatal.
func benchsupIn(t *testing.T, ctx context.Context, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "benchsup"), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit) && exit.Exited():
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("benchsup %s: %v\n%s", strings.Join(args, " "), err, out)
	return 0, ""
}

func readJSON[T any](t *testing.T, path string) T {
	t.Helper()
	var v T
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// testBrowserReport renders the HTML reports of a real run and comparison
// (benchsup report, and compare --html) and checks each in a real headless
// browser: it loads without a console error or any request beyond its own
// file, every benchmark identity has its strip plot with one mark per
// process (failed ones included), the forest plot has one row per time
// comparison row, the window plot one per window, nothing is wider than a
// 1280 px viewport (also with every <details> open), the plots are there
// with JavaScript off, and a full-page screenshot is a valid PNG.
func testBrowserReport(t *testing.T) {
	endToEnd(t)
	if runtime.GOOS != "linux" {
		t.Skip("fresh-process children need Linux; benchsup reports that itself, see sandbox")
	}
	chrome := findChromium()
	if chrome == "" {
		t.Skip("no chromium: install Debian's chromium package (.ci/run does)")
	}
	// Bounds the fixture's runs; each page has a bound of its own.
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()

	dir := t.TempDir()
	mod := fixtureModule(t, "browser")
	// The fixture's workload uses the measure API of the tree under test.
	for _, args := range [][]string{{"mod", "edit", "-replace=github.com/benchsup/benchsup=" + srcDir}, {"mod", "tidy"}} {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = mod
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	crash := filepath.Join(dir, "crash")
	if err := os.Mkdir(crash, 0o755); err != nil {
		t.Fatal(err)
	}
	// --benchtime=2000x: no calibration, so the fixture's crash keys on N;
	// the same flags and environment on both runs keep them comparable.
	runArgs := func(out string) []string {
		return []string{"run", "--bench", "--repetitions=3", "--samples=3", "--benchtime=2000x",
			"--env-set=CRASHDIR=" + crash, "--json=" + out, "./..."}
	}
	oldJSON, newJSON := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	cmpJSON := filepath.Join(dir, "cmp.json")
	reportHTML, compareHTML := filepath.Join(dir, "report.html"), filepath.Join(dir, "compare.html")
	// The old run crashes nowhere (the fixture's second marker exists),
	// the new one in its second process of BenchmarkCrashOnce.
	if err := os.WriteFile(filepath.Join(crash, "second"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := benchsupIn(t, ctx, mod, runArgs(oldJSON)...); code != 0 {
		t.Fatalf("old run: exit %d\n%s", code, out)
	}
	for _, f := range []string{"first", "second"} {
		if err := os.Remove(filepath.Join(crash, f)); err != nil {
			t.Fatal(err)
		}
	}
	if code, out := benchsupIn(t, ctx, mod, runArgs(newJSON)...); code != 1 {
		t.Fatalf("new run: exit %d, want 1 (BenchmarkCrashOnce crashes)\n%s", code, out)
	}
	if code, out := benchsupIn(t, ctx, mod, "compare", "--json="+cmpJSON, "--html="+compareHTML, oldJSON, newJSON); code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, out)
	}
	if code, out := benchsupIn(t, ctx, mod, "report", "--out="+reportHTML, newJSON, cmpJSON); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	// What the documents say the pages must show.
	var w want
	newDoc := readJSON[rundoc.Document](t, newJSON)
	w.procs, w.order, w.failed = processCounts(newDoc)
	w.oldProcs, _, _ = processCounts(readJSON[rundoc.Document](t, oldJSON))
	w.windows = len(newDoc.WindowSummaries)
	w.sweeps = map[string]int{}
	for _, sw := range newDoc.Sweeps {
		id := sw.Package + " " + sw.Family
		if sw.Build != "" {
			id += " @" + sw.Build
		}
		w.sweeps[id] += len(sw.Points)
	}
	if w.windows != 2 {
		t.Fatalf("fixture run has %d window summaries, want 2 (BenchmarkPipeline's fill and sum)", w.windows)
	}
	if len(w.order) != 8 || w.failed != 1 || w.procs["example.com/browser BenchmarkCrashOnce"] < 2 {
		t.Fatalf("fixture run has %d benchmark identities (want 8: Sum, Sizes/small and /large, Grow/n=10 to 10000, CrashOnce), %d failed processes (want 1), processes %v; want a good process before the failed one", len(w.order), w.failed, w.procs)
	}
	for _, r := range readJSON[rundoc.Comparison](t, cmpJSON).Rows {
		if r.Metric == rundoc.MetricTime {
			w.forest = append(w.forest, r.Package+" "+r.Name)
		}
	}

	// benchsup report draws the run alone; compare --html draws the old
	// run's processes beside the new run's.
	browserCtx := startBrowser(t, chrome)
	t.Run("report", func(t *testing.T) { checkPage(t, browserCtx, reportHTML, w, false) })
	t.Run("compare --html", func(t *testing.T) { checkPage(t, browserCtx, compareHTML, w, true) })
}

// want is what the documents say a page must show.
type want struct {
	procs    map[string]int // processes of each benchmark identity of the run
	order    []string       // the run's benchmark identities
	failed   int            // failed processes of the run
	oldProcs map[string]int // processes of each identity of the old run
	forest   []string       // identity of each sec/op row of the comparison
	windows  int            // window summaries of the run
	sweeps   map[string]int // points of each sweep family ("PKG FAMILY", " @build" for another build's) of the run
}

// checkPage loads a report in a fresh tab of the browser and checks it against w;
// withOld says the page must draw the old run's processes too.
func checkPage(t *testing.T, browserCtx context.Context, html string, w want, withOld bool) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	wantProcs, order, wantFailed, oldProcs, wantForest := w.procs, w.order, w.failed, w.oldProcs, w.forest

	p := newPage(t, ctx, browserCtx)
	pageURL := fileURL(html)
	if err := chromedp.Do(p.ctx, chromedp.Navigate(pageURL)); err != nil {
		t.Fatalf("loading %s: %v", pageURL, err)
	}
	var c census
	raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]byte](censusJS))
	if err == nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}

	t.Run("loads cleanly", func(t *testing.T) {
		errs, requests := p.seen()
		if len(errs) > 0 {
			t.Errorf("console errors:\n\t%s", strings.Join(errs, "\n\t"))
		}
		var foreign []string
		for _, u := range requests {
			if u != pageURL {
				foreign = append(foreign, u)
			}
		}
		if len(foreign) > 0 || len(requests) == 0 {
			t.Errorf("requests besides the page's own %s (%d requests in all):\n\t%s", pageURL, len(requests), strings.Join(foreign, "\n\t"))
		}
	})

	t.Run("strip per identity", func(t *testing.T) {
		// The run's processes are data-side "new" (or a revision's name);
		// the old run's, when the page draws them, "old".
		got := map[string]int{}
		failed := 0
		var olds []string
		for _, s := range c.Sections {
			got[s.Identity]++
			var sides []string
			runN := 0
			for _, p := range s.Processes {
				sides = append(sides, p.Side+":"+p.Outcome)
				if p.Side == "old" {
					continue
				}
				runN++
				if p.Outcome != string(rundoc.OutcomeOK) {
					failed++
				}
			}
			if len(sides) > runN {
				olds = append(olds, s.Identity)
			}
			want, ok := wantProcs[s.Identity]
			switch {
			case !ok:
				t.Errorf("section %q is no benchmark identity of the run", s.Identity)
			case s.Strips != 1:
				t.Errorf("%s: %d svg.strip, want 1", s.Identity, s.Strips)
			case runN != want || s.Declared != fmt.Sprint(len(s.Processes)):
				t.Errorf("%s: g.process %v (data-processes=%q), want %d of the run, one per process of the document", s.Identity, sides, s.Declared, want)
			case withOld && len(sides)-runN != oldProcs[s.Identity]:
				t.Errorf("%s: g.process %v, want %d old ones", s.Identity, sides, oldProcs[s.Identity])
			}
		}
		for _, id := range order {
			if got[id] != 1 {
				t.Errorf("%s: %d sections, want 1", id, got[id])
			}
		}
		if withOld && len(olds) != len(order) {
			t.Errorf("%d of %d identities draw the old run's processes (%q)", len(olds), len(order), olds)
		}
		if !withOld && len(olds) > 0 {
			t.Errorf("%q draw old processes; this page has no old run", olds)
		}
		// The failed process is drawn too, and says so.
		if failed != wantFailed {
			t.Errorf("%d g.process of the run have a failed data-outcome, want %d", failed, wantFailed)
		}
	})

	t.Run("forest rows", func(t *testing.T) {
		if !slices.Contains(c.Forests, rundoc.MetricTime) {
			t.Errorf("no svg.forest[data-metric=%q] in a section.comparison (forests: %q)", rundoc.MetricTime, c.Forests)
		}
		got, want := slices.Sorted(slices.Values(c.ForestRows)), slices.Sorted(slices.Values(wantForest))
		if !slices.Equal(got, want) {
			t.Errorf("forest rows %q, want one per %s comparison row %q", got, rundoc.MetricTime, want)
		}
		for i, v := range c.Verdicts {
			if v == "" {
				t.Errorf("forest row %s has no data-verdict", c.ForestRows[i])
			}
		}
	})

	t.Run("windows", func(t *testing.T) {
		if c.Windows != w.windows {
			t.Errorf("%d svg.windows g.window, want %d, one per window summary", c.Windows, w.windows)
		}
	})

	// The fixture's BenchmarkGrow/n=* is a sweep family (BenchmarkSizes,
	// small and large, is not): a plot per family, a point per member.
	t.Run("sweeps", func(t *testing.T) {
		if len(w.sweeps) == 0 {
			t.Error("the document has no sweep: the fixture's BenchmarkGrow/n=* family was not found")
		}
		if !maps.Equal(c.Sweeps, w.sweeps) {
			t.Errorf("svg.sweep g.point per family %v, want %v, one plot per sweep family and a point per member", c.Sweeps, w.sweeps)
		}
	})

	t.Run("fits 1280px", func(t *testing.T) {
		for _, step := range []struct{ name, js string }{{"as loaded", ""}, {"with every <details> open", openDetailsJS}} {
			if step.js != "" {
				n, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](step.js))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("opened %d <details>", n)
			}
			var o struct {
				ScrollWidth float64  `json:"scrollWidth"`
				Elements    []string `json:"elements"`
			}
			raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]byte](overflowJS))
			if err == nil {
				err = json.Unmarshal(raw, &o)
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.ScrollWidth > viewWidth {
				t.Errorf("%s: document scrollWidth %.0f > %d", step.name, o.ScrollWidth, viewWidth)
			}
			if len(o.Elements) > 0 {
				t.Errorf("%s: %d elements reach past x=%d:\n\t%s", step.name, len(o.Elements), viewWidth, strings.Join(o.Elements, "\n\t"))
			}
		}
	})

	t.Run("answer first", func(t *testing.T) {
		var a answerFirst
		raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]byte](answerFirstJS))
		if err == nil {
			err = json.Unmarshal(raw, &a)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !a.ComparisonFirst {
			t.Error("the first section.comparison does not come before the first section.benchmark")
		}
		if len(a.Links) == 0 {
			t.Error("no comparison row links to its benchmark's section")
		}
		for _, l := range a.Links {
			if l.Target != l.Text {
				t.Errorf("link %q (#%s) leads to the section of %q", l.Text, l.Href, l.Target)
			}
		}
		lane := regexp.MustCompile(`^p[0-9]+$`)
		if withOld {
			lane = regexp.MustCompile(`^(old|new) · p[0-9]+$`)
		}
		if len(a.Lanes) == 0 {
			t.Error("no lane labels")
		}
		for _, l := range a.Lanes {
			if !lane.MatchString(l) {
				t.Errorf("lane label %q, want %s", l, lane)
			}
		}
	})

	// At 1280 px no table cell breaks a word across lines ("chang|e");
	// only identities may break, and verdicts and numbers stay on one
	// line.
	t.Run("no word broken", func(t *testing.T) {
		var broken []string
		raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]byte](brokenWordsJS))
		if err == nil {
			err = json.Unmarshal(raw, &broken)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(broken) > 0 {
			t.Errorf("%d table cells break a word or wrap a verdict or number:\n\t%s", len(broken), strings.Join(broken, "\n\t"))
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		buf, img := p.screenshot(t)
		out := filepath.Join(t.TempDir(), "report.png")
		if err := os.WriteFile(out, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %dx%d", out, img.Bounds().Dx(), img.Bounds().Dy())
	})

	// Last: it changes the page. The plots are server-side SVG, so with
	// scripts off the same plots are there.
	t.Run("without JavaScript", func(t *testing.T) {
		if _, err := chromedp.Call(p.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(p.ctx, chromedp.Navigate(pageURL)); err != nil {
			t.Fatal(err)
		}
		for sel, want := range map[string]int{
			"section.benchmark svg.strip": len(order),
			"svg.strip g.process":         sum(c.Sections),
			"svg.forest g.forest-row":     len(wantForest),
			"svg.windows g.window":        w.windows,
			"svg.sweep g.point":           sumValues(w.sweeps),
		} {
			n, err := p.countDOM(sel)
			if err != nil {
				t.Fatal(err)
			}
			if n != want {
				t.Errorf("with scripts disabled %s matches %d, want %d", sel, n, want)
			}
		}
	})
}

// sumValues adds m's values.
func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// sum counts the g.process of sections.
func sum(sections []section) int {
	n := 0
	for _, s := range sections {
		n += len(s.Processes)
	}
	return n
}

// processCounts returns, per benchmark identity ("PKG NAME") of a document,
// how many processes its rows hold (failed ones included), the identities
// in order, and how many processes failed in all.
func processCounts(doc rundoc.Document) (map[string]int, []string, int) {
	procs := map[string]int{}
	var order []string
	failed := 0
	for _, r := range doc.Rows {
		if r.Kind != "benchmark" {
			continue
		}
		id := r.Package + " " + r.Name
		if _, ok := procs[id]; !ok {
			order = append(order, id)
		}
		procs[id] += len(r.Processes)
		for _, p := range r.Processes {
			if p.Outcome.IsError() {
				failed++
			}
		}
	}
	return procs, order, failed
}
