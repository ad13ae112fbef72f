package report

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

// sweepsTitle heads every rendering of a run's sweeps: a fit describes
// the values that ran, nothing beyond (docs/design.md#sweeps).
const sweepsTitle = "sweeps (" + rundoc.ScalingCaveat + ")"

// sweepValueText writes a point's value as its name wrote it (1KiB, 1e4,
// 08), when the name holds the family's wildcard element; otherwise in
// analysis.FormatSweepValue's compact form.
func sweepValueText(family, name, exact string) string {
	for i := strings.Index(family, "*"); i >= 0; {
		prefix, suffix := family[:i], family[i+1:]
		if len(name) > len(prefix)+len(suffix) && strings.HasPrefix(name, prefix) && strings.HasSuffix(name, suffix) {
			raw := name[len(prefix) : len(name)-len(suffix)]
			if v, ok := analysis.ParseSweepValue(raw); ok && v.String() == exact {
				return raw
			}
		}
		j := strings.Index(family[i+1:], "*")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return analysis.FormatSweepValue(exact)
}

// sweepRangeText is a sweep's range in the names' own style, "1KiB–64KiB";
// "" when it has none.
func sweepRangeText(sw rundoc.Sweep) string {
	r := sw.Range
	if r == nil {
		return ""
	}
	text := func(exact string) string {
		for _, p := range sw.Points {
			if p.ValueExact == exact {
				return sweepValueText(sw.Family, p.Name, exact)
			}
		}
		return analysis.FormatSweepValue(exact)
	}
	if r.MinExact == r.MaxExact {
		return text(r.MinExact)
	}
	return text(r.MinExact) + "–" + text(r.MaxExact)
}

// sweepFit is the fit a sweep's R² comes from: the selected model's, else
// the best one's; nil when no model was fitted.
func sweepFit(sw rundoc.Sweep) *rundoc.ModelFit {
	for _, m := range []*rundoc.Model{sw.Selected, sw.Best} {
		if m == nil {
			continue
		}
		for i := range sw.Models {
			if sw.Models[i].Model == *m {
				return &sw.Models[i]
			}
		}
	}
	return nil
}

// sweepModelCell is what a sweep concluded, briefly: the selected model,
// or the state and why ("ambiguous: linear or n log n", "poor-fit:
// closest n log n", "unavailable: 3 points, 4 needed"). The full reason
// is in the sweep notes.
func sweepModelCell(sw rundoc.Sweep) string {
	switch sw.Status {
	case rundoc.SweepFitted:
		if sw.Selected != nil {
			return sw.Selected.Text()
		}
	case rundoc.SweepAmbiguous:
		var names []string
		for _, m := range sw.Candidates {
			names = append(names, m.Text())
		}
		if len(names) == 0 && sw.Best != nil {
			names = append(names, sw.Best.Text())
		}
		return "ambiguous: " + orList(names)
	case rundoc.SweepPoorFit:
		if sw.Best != nil {
			return "poor-fit: closest " + sw.Best.Text()
		}
	case rundoc.SweepUnavailable:
		return "unavailable: " + analysis.SweepShortfall(sw)
	}
	return orDash(string(sw.Status))
}

// orList joins words as prose does: "a", "a or b", "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return dash
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// formatR2 writes a coefficient of determination to four decimals, never
// rounding a value below 1 up to a perfect 1.0000.
func formatR2(r2 *float64) string {
	if r2 == nil || !isFinite(*r2) {
		return dash
	}
	s := strconv.FormatFloat(*r2, 'f', 4, 64)
	if s == "1.0000" && *r2 < 1 {
		return ">0.9999"
	}
	return signed(s)
}

// formatExponent writes an observed exponent to the precision its
// standard error allows (two decimals at least, four at most), with the
// standard error beside it: "0.998 ±0.004".
func formatExponent(e, se *float64) string {
	if e == nil || !isFinite(*e) {
		return dash
	}
	decimals := 2
	if se != nil && *se > 0 && isFinite(*se) {
		decimals = min(max(decimals, int(math.Ceil(-math.Log10(*se)))), 4)
	}
	s := signed(strconv.FormatFloat(*e, 'f', decimals, 64))
	if se != nil && isFinite(*se) {
		s += " ±" + strconv.FormatFloat(*se, 'f', decimals, 64)
	}
	return s
}

// signed writes a number's minus sign as the tables do (−, not -).
func signed(s string) string {
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		if strings.Trim(rest, "0.") == "" {
			return rest // -0.00 is 0.00
		}
		return "−" + rest
	}
	return s
}

// sweepDisplayName is a family's name in a table: prefixed with its
// package as displayName prefixes a row's, with its build's revision.
func sweepDisplayName(sw rundoc.Sweep, prefixes map[string]string) string {
	name := shortenName(oneLine(sw.Family), nameWidth)
	if p, ok := prefixes[sw.Package]; ok {
		name = p + "." + name
	}
	if sw.Build != "" {
		name += " @" + sw.Build
	}
	return name
}

// sweepGrid builds the sweeps table: one line per family, with its
// points, range, model (or state), R² and observed exponent.
func sweepGrid(sweeps []rundoc.Sweep, prefixes map[string]string) *grid {
	g := &grid{cols: []column{
		{"family", alignLeft}, {"points", alignRight}, {"range", alignLeft},
		{"model", alignLeft}, {"R²", alignDecimal}, {"exponent", alignDecimal},
	}}
	for _, sw := range sweeps {
		var r2 *float64
		if f := sweepFit(sw); f != nil {
			r2 = f.R2
		}
		g.cells = append(g.cells, []string{
			sweepDisplayName(sw, prefixes), strconv.Itoa(len(sw.Points)), orDash(sweepRangeText(sw)),
			sweepModelCell(sw), formatR2(r2), formatExponent(sw.ObservedExponent, sw.ExponentStdError),
		})
	}
	return g
}

// sweepNotes are the lines below the sweeps table: each family's reason
// in full (why it is not fitted, or what qualifies its fit) and the
// members left out of its points, with why.
func sweepNotes(sweeps []rundoc.Sweep, prefixes map[string]string) []string {
	var out []string
	for _, sw := range sweeps {
		name := sweepDisplayName(sw, prefixes)
		if sw.Reason != "" {
			out = append(out, name+": "+string(sw.Status)+": "+oneLine(sw.Reason))
		}
		if n := len(sw.Omitted); n > 0 {
			parts := make([]string, n)
			for i, o := range sw.Omitted {
				parts[i] = oneLine(o.Name) + " (" + oneLine(o.Reason) + ")"
			}
			out = append(out, fmt.Sprintf("%s: %d %s left out: %s", name, n, plural(n, "member", "members"), strings.Join(parts, "; ")))
		}
	}
	return out
}

// writeSweeps writes the sweeps block of a run's table: the title (which
// says what a fit is worth), one line per family, then the notes.
func writeSweeps(w *bufio.Writer, sweeps []rundoc.Sweep, prefixes map[string]string, opt TableOptions, p painter) {
	g := sweepGrid(sweeps, prefixes)
	if opt.Width > 0 {
		g.fit(opt.Width, 0, -1)
	}
	w.WriteString(sweepsTitle + "\n")
	writeGrid(w, g, p)
	writeNotes(w, "sweep notes", sweepNotes(sweeps, prefixes))
}

// writeSweepChanges writes a comparison's sweep lines, grouped under
// their package as the metric sections group identities.
func writeSweepChanges(w *bufio.Writer, changes []rundoc.SweepChange) {
	w.WriteString("\nscaling changes (" + rundoc.ScalingCaveat + ")\n")
	g := grid{cols: []column{{"family", alignLeft}, {"change", alignLeft}}}
	pkg := ""
	for i, c := range changes {
		if i == 0 || c.Package != pkg {
			pkg = c.Package
			g.cells = append(g.cells, []string{pkg, ""})
		}
		g.cells = append(g.cells, []string{"  " + truncate(oneLine(c.Family), maxCompareName), oneLine(c.Text)})
	}
	writeGrid(w, &g, false)
}
