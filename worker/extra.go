package worker

import (
	"sort"

	"github.com/benchsup/benchsup/protocol"
)

// dropExtra records units a sample left out, beyond
// protocol.MaxExtraPerSample or what a frame carries (fitFrame).
func (w *session) dropExtra(units ...string) {
	for _, u := range units {
		if w.extraDropped == nil {
			w.extraDropped = map[string]bool{}
		}
		w.extraDropped[u] = true
	}
}

// droppedExtra is Result.ExtraDropped and ExtraDroppedUnits: how many
// units the identity's samples left out, and the first of them, sorted.
func (w *session) droppedExtra() (int64, []string) {
	if len(w.extraDropped) == 0 {
		return 0, nil
	}
	units := make([]string, 0, len(w.extraDropped))
	for u := range w.extraDropped {
		units = append(units, u)
	}
	sort.Strings(units)
	return int64(len(units)), units[:min(len(units), protocol.MaxDroppedUnits)]
}

// fitFrame keeps r within one frame: many samples of many custom metrics
// each (2000 samples of 256 are 19 MB) keep fewer metrics, the same first
// ones in every sample, and count the rest as dropped, rather than the
// process failing to send what it measured. It sets r's ExtraDropped
// fields in any case.
func (w *session) fitFrame(r *protocol.Result) {
	for {
		r.ExtraDropped, r.ExtraDroppedUnits = w.droppedExtra()
		body, err := protocol.StdCodec{}.AppendBody(nil, *r)
		size := 1 + len(body) // the kind byte
		if err != nil || size <= protocol.MaxFrameSize {
			return
		}
		keep := 0
		for _, s := range append(r.Samples[:len(r.Samples):len(r.Samples)], r.Retaken...) {
			keep = max(keep, len(s.Extra))
		}
		if keep == 0 {
			return // no metric to drop: the send says what is too large
		}
		// In proportion, with a margin: each round keeps strictly fewer.
		keep = int(float64(keep) * float64(protocol.MaxFrameSize) / float64(size) * 0.9)
		for _, samples := range [][]protocol.Sample{r.Samples, r.Retaken} {
			for i := range samples {
				if e := samples[i].Extra; len(e) > keep {
					for _, m := range e[keep:] {
						w.dropExtra(m.Unit)
					}
					samples[i].Extra = e[:keep:keep]
				}
			}
		}
	}
}
