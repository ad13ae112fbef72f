package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LiveRecording is what the live view of `benchsup record` shows at one
// moment: the time since the program started, its usage, and each
// identity's spans so far.
type LiveRecording struct {
	Elapsed time.Duration
	// Usage is the program's CPU and memory; nil when not measured, with
	// UsageReason saying why.
	Usage       *LiveUsage
	UsageReason string
	Identities  []LiveIdentity
}

// LiveUsage is a running child's CPU and memory as the live displays show
// them (internal/liveusage computes it from two readings). Its zero value
// is a measurement of zeros: a figure that was not measured is marked with
// NoCPU or NoRSS and prints as "—".
type LiveUsage struct {
	CPUPercent float64 // CPU time over wall time between two readings, in percent: 150 is 1.5 cores
	Cores      float64 // CPUPercent / 100: the cores occupied on average
	RSS        int64   // resident bytes at the latest reading
	RSSGrowth  int64   // RSS minus the first reading's, same source

	NoCPU bool // the CPU figures were not measured (one reading so far, or none readable)
	NoRSS bool // the memory figures were not measured
	// Label qualifies a source weaker than the child's cgroup, as in
	// "rss: root process only"; "" when every figure is the cgroup's.
	Label string
}

// LiveIdentity is one recorded identity in the live view.
type LiveIdentity struct {
	Name                      string
	Completed, Active, Errors int64
	// Median and P95 are of the latest Window finished spans (a
	// RollingWindow); Window 0: none finished yet, and both print as "—".
	Median, P95 time.Duration
	Window      int
}

// unmeasured is what a live display prints for a figure not measured.
const unmeasured = "—"

// usageText renders u as the live displays show it: "cpu 152% (1.52
// cores) rss 48.30MiB (+2.100MiB)", a dash for what was not measured.
func usageText(u *LiveUsage) string {
	cpu, rss := "cpu "+unmeasured, "rss "+unmeasured
	if u == nil {
		return cpu + " " + rss
	}
	if !u.NoCPU {
		cpu = fmt.Sprintf("cpu %s%% (%s cores)", strconv.FormatFloat(u.CPUPercent, 'f', 0, 64), strconv.FormatFloat(u.Cores, 'f', 2, 64))
	}
	if !u.NoRSS {
		sign := "+"
		if u.RSSGrowth < 0 {
			sign = "−"
		}
		growth := u.RSSGrowth
		if growth < 0 {
			growth = -growth
		}
		rss = fmt.Sprintf("rss %s (%s%s)", formatBytes(float64(u.RSS)), sign, formatBytes(float64(growth)))
	}
	s := cpu + " " + rss
	if u.Label != "" {
		s += " [" + u.Label + "]"
	}
	return s
}

// clockText renders an elapsed time as hh:mm:ss (hours beyond 99 widen).
func clockText(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// durationText renders a span's duration, or the dash when window is 0.
func durationText(d time.Duration, window int) string {
	if window == 0 {
		return unmeasured
	}
	return formatDuration(float64(d))
}

// recordLines renders r as the live view's lines, each cut to width runes
// (0: no limit), at most height lines in all (0: no limit): a header, then
// one line per identity, aligned.
func recordLines(r LiveRecording, width, height int) []string {
	head := clockText(r.Elapsed) + "  " + usageText(r.Usage)
	if r.Usage == nil && r.UsageReason != "" {
		head += " (" + oneLine(r.UsageReason) + ")"
	}
	out := []string{head}
	if len(r.Identities) > 0 {
		out = append(out, identityLines(r.Identities)...)
	}
	if height > 0 && len(out) > height {
		hidden := len(out) - height + 1
		out = append(out[:height-1], fmt.Sprintf("  … %d more", hidden))
	}
	if width > 0 {
		for i := range out {
			out[i] = truncate(out[i], width)
		}
	}
	return out
}

// identityLines renders the identities as a table under a header line:
// the name, then counts and the rolling quantiles right-aligned.
func identityLines(ids []LiveIdentity) []string {
	rows := [][]string{{"identity", "done", "active", "errors", "p50", "p95", "window"}}
	for _, id := range ids {
		window := unmeasured
		if id.Window > 0 {
			window = strconv.Itoa(id.Window)
		}
		rows = append(rows, []string{
			shortenName(oneLine(id.Name), 40),
			strconv.FormatInt(id.Completed, 10),
			strconv.FormatInt(id.Active, 10),
			strconv.FormatInt(id.Errors, 10),
			durationText(id.Median, id.Window),
			durationText(id.P95, id.Window),
			window,
		})
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for c, s := range row {
			widths[c] = max(widths[c], runeLen(s))
		}
	}
	out := make([]string, 0, len(rows))
	for _, row := range rows {
		var b strings.Builder
		b.WriteString("  ")
		for c, s := range row {
			pad := strings.Repeat(" ", widths[c]-runeLen(s))
			if c == 0 {
				b.WriteString(s + pad)
				continue
			}
			b.WriteString("  " + pad + s)
		}
		out = append(out, b.String())
	}
	return out
}

// defaultHeight is the number of rows assumed when the terminal's is
// unknown.
const defaultHeight = 24

// RecordView is the multi-line live view of `benchsup record`: a header
// with the elapsed time and the program's CPU and memory, then a line per
// identity, repainted in place on each Update. Like Progress, a disabled
// RecordView and a nil one write nothing, write errors are ignored, and it
// is safe for concurrent use.
type RecordView struct {
	w       io.Writer
	enabled bool
	width   int
	height  int

	mu      sync.Mutex
	painted int // lines on the screen, the cursor at the end of the last
}

// NewRecordView returns a RecordView drawing on w when enabled is true
// (pass LiveEnabled(f)). When w is a terminal *os.File, lines are cut to
// its width and the view to its height, since what scrolled off could not
// be repainted.
func NewRecordView(w io.Writer, enabled bool) *RecordView {
	v := &RecordView{w: w, enabled: enabled, width: defaultWidth, height: defaultHeight}
	if f, ok := w.(*os.File); ok && enabled {
		if cols, rows, ok := terminalSize(f); ok {
			if cols > 1 {
				v.width = cols
			}
			if rows > 1 {
				v.height = rows
			}
		}
	}
	return v
}

// Update repaints the view with r.
func (v *RecordView) Update(r LiveRecording) {
	if v == nil || !v.enabled {
		return
	}
	// One column short of the width, one row short of the height: writing
	// the last column wraps early on some terminals, and the last row
	// scrolls.
	ls := recordLines(r, v.width-1, v.height-1)
	v.mu.Lock()
	defer v.mu.Unlock()
	io.WriteString(v.w, syncBegin+v.erase()+strings.Join(ls, "\r\n")+syncEnd)
	v.painted = len(ls)
}

// Clear erases the view, leaving the cursor where it began, so that what
// is printed next starts on a clean line.
func (v *RecordView) Clear() {
	if v == nil || !v.enabled {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.painted > 0 {
		io.WriteString(v.w, v.erase())
		v.painted = 0
	}
}

// erase returns what moves the cursor to the start of the view's first
// line and erases from there to the end of the screen.
func (v *RecordView) erase() string {
	s := "\r"
	if v.painted > 1 {
		s += fmt.Sprintf("\x1b[%dA", v.painted-1)
	}
	return s + eraseDown
}

// eraseDown erases from the cursor to the end of the screen.
const eraseDown = "\x1b[J"

// RollingWindow holds the latest K durations and gives their median and
// 95th percentile: the rolling latency of the live view, fed with the
// spans as they are drained. Add allocates nothing; Quantiles sorts into
// a buffer allocated once. It is not safe for concurrent use.
type RollingWindow struct {
	ring    []time.Duration
	next    int // where the next Add writes
	n       int // how many of ring hold values
	scratch []time.Duration
}

// NewRollingWindow returns a window of the latest k durations; k < 1 is
// taken as 1.
func NewRollingWindow(k int) *RollingWindow {
	k = max(k, 1)
	return &RollingWindow{ring: make([]time.Duration, k), scratch: make([]time.Duration, 0, k)}
}

// Add puts d in the window, dropping the oldest value when it is full.
func (w *RollingWindow) Add(d time.Duration) {
	w.ring[w.next] = d
	w.next = (w.next + 1) % len(w.ring)
	w.n = min(w.n+1, len(w.ring))
}

// Len returns the number of durations in the window.
func (w *RollingWindow) Len() int { return w.n }

// Quantiles returns the median and the 95th percentile of the window
// (type 7, as R's default and numpy's linear: interpolated between order
// statistics), and the number of values they are over; zeros and 0 when
// the window is empty.
func (w *RollingWindow) Quantiles() (median, p95 time.Duration, n int) {
	if w.n == 0 {
		return 0, 0, 0
	}
	s := append(w.scratch[:0], w.ring[:w.n]...)
	slices.Sort(s)
	return quantile7(s, 0.5), quantile7(s, 0.95), w.n
}

// quantile7 is the type 7 quantile p of sorted s (not empty): the order
// statistic at h = (n-1)p, interpolated linearly.
func quantile7(s []time.Duration, p float64) time.Duration {
	h := float64(len(s)-1) * p
	lo := int(h)
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := h - float64(lo)
	return s[lo] + time.Duration(math.Round(frac*float64(s[lo+1]-s[lo])))
}
