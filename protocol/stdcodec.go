package protocol

// StdCodec's per-type encoders and decoders. Each encoder writes the
// struct's fields in declaration order under their msgpack tags, leaving
// out exactly the omitempty fields the library leaves out; each decoder's
// key table lists the same tags in the same order, and its switch decodes
// the field at that index.

// ---- encoders ----

func appendIdentity(b []byte, v *Identity) []byte {
	b = appendMapLen(b, 2)
	b = appendString(b, "package")
	b = appendString(b, v.Package)
	b = appendString(b, "name")
	return appendString(b, v.Name)
}

func appendHello(b []byte, v *Hello) []byte {
	n := 7
	if v.Again != 0 {
		n++
	}
	b = appendMapLen(b, n)
	b = appendString(b, "protocolVersion")
	b = appendInt(b, int64(v.ProtocolVersion))
	b = appendString(b, "workerVersion")
	b = appendString(b, v.WorkerVersion)
	b = appendString(b, "pid")
	b = appendInt(b, int64(v.PID))
	b = appendString(b, "goVersion")
	b = appendString(b, v.GoVersion)
	b = appendString(b, "goos")
	b = appendString(b, v.GOOS)
	b = appendString(b, "goarch")
	b = appendString(b, v.GOARCH)
	b = appendString(b, "gomaxprocs")
	b = appendInt(b, int64(v.GOMAXPROCS))
	if v.Again != 0 {
		b = appendString(b, "again")
		b = appendInt(b, int64(v.Again))
	}
	return b
}

func appendRequest(b []byte, v *Request) []byte {
	n := 5
	if v.FullName != "" {
		n++
	}
	b = appendMapLen(b, n)
	b = appendString(b, "mode")
	b = appendString(b, string(v.Mode))
	b = appendString(b, "identity")
	b = appendIdentity(b, &v.Identity)
	b = appendString(b, "config")
	b = appendRequestConfig(b, &v.Config)
	b = appendString(b, "repetition")
	b = appendInt(b, int64(v.Repetition))
	b = appendString(b, "seed")
	b = appendUint(b, v.Seed)
	if v.FullName != "" {
		b = appendString(b, "fullName")
		b = appendString(b, v.FullName)
	}
	return b
}

func appendRequestConfig(b []byte, v *RequestConfig) []byte {
	n := 13
	if v.SkipProbe {
		n++
	}
	if len(v.WindowMetrics) > 0 {
		n++
	}
	if v.Interference != nil {
		n++
	}
	if v.SkipPattern != "" {
		n++
	}
	b = appendMapLen(b, n)
	b = appendString(b, "minSampleNs")
	b = appendInt(b, v.MinSampleNs)
	b = appendString(b, "samples")
	b = appendInt(b, int64(v.Samples))
	b = appendString(b, "iterations")
	b = appendInt(b, v.Iterations)
	b = appendString(b, "run")
	b = appendString(b, v.Run)
	b = appendString(b, "bench")
	b = appendString(b, v.Bench)
	b = appendString(b, "after")
	b = appendString(b, v.After)
	b = appendString(b, "skip")
	b = appendStrings(b, v.Skip)
	b = appendString(b, "testTimeoutNs")
	b = appendInt(b, v.TestTimeoutNs)
	b = appendString(b, "args")
	b = appendStrings(b, v.Args)
	b = appendString(b, "metrics")
	b = appendStrings(b, v.Metrics)
	b = appendString(b, "perfIters")
	b = appendInt(b, v.PerfIters)
	b = appendString(b, "perfBatch")
	b = appendInt(b, v.PerfBatch)
	b = appendString(b, "perfScaled")
	b = appendBool(b, v.PerfScaled)
	if v.SkipProbe {
		b = appendString(b, "skipProbe")
		b = appendBool(b, true)
	}
	if len(v.WindowMetrics) > 0 {
		b = appendString(b, "windowMetrics")
		b = appendStrings(b, v.WindowMetrics)
	}
	if v.SkipPattern != "" {
		b = appendString(b, "skipPattern")
		b = appendString(b, v.SkipPattern)
	}
	if p := v.Interference; p != nil {
		b = appendString(b, "interference")
		b = appendMapLen(b, 6)
		b = appendString(b, "response")
		b = appendString(b, p.Response)
		b = appendString(b, "maxForeign")
		b = appendFloat(b, p.MaxForeign)
		b = appendString(b, "maxRetakes")
		b = appendInt(b, int64(p.MaxRetakes))
		b = appendString(b, "settleNs")
		b = appendInt(b, p.SettleNs)
		b = appendString(b, "pauseMaxNs")
		b = appendInt(b, p.PauseMaxNs)
		b = appendString(b, "cpus")
		if p.CPUs == nil {
			b = appendNil(b)
		} else {
			b = appendArrayLen(b, len(p.CPUs))
			for _, c := range p.CPUs {
				b = appendInt(b, int64(c))
			}
		}
	}
	return b
}

func appendReady(b []byte, v *Ready) []byte {
	b = appendMapLen(b, 1)
	b = appendString(b, "identity")
	return appendIdentity(b, &v.Identity)
}

func appendProgress(b []byte, v *Progress) []byte {
	b = appendMapLen(b, 3)
	b = appendString(b, "phase")
	b = appendString(b, string(v.Phase))
	b = appendString(b, "done")
	b = appendInt(b, v.Done)
	b = appendString(b, "total")
	return appendInt(b, v.Total)
}

func appendResult(b []byte, v *Result) []byte {
	n := 9
	if len(v.Retaken) > 0 {
		n++
	}
	if v.Interference != nil {
		n++
	}
	if v.AfterSiblings != 0 {
		n++
	}
	if v.ExtraDropped != 0 {
		n++
	}
	if len(v.ExtraDroppedUnits) > 0 {
		n++
	}
	b = appendMapLen(b, n)
	b = appendString(b, "identity")
	b = appendIdentity(b, &v.Identity)
	b = appendString(b, "repetition")
	b = appendInt(b, int64(v.Repetition))
	b = appendString(b, "seed")
	b = appendUint(b, v.Seed)
	b = appendString(b, "bytesPerOp")
	b = appendInt(b, v.BytesPerOp)
	b = appendString(b, "samples")
	if v.Samples == nil {
		b = appendNil(b)
	} else {
		b = appendArrayLen(b, len(v.Samples))
		for i := range v.Samples {
			b = appendSample(b, &v.Samples[i])
		}
	}
	b = appendString(b, "metrics")
	b = appendMetricCells(b, v.Metrics)
	b = appendString(b, "absences")
	if v.Absences == nil {
		b = appendNil(b)
	} else {
		b = appendArrayLen(b, len(v.Absences))
		for i := range v.Absences {
			a := &v.Absences[i]
			b = appendMapLen(b, 2)
			b = appendString(b, "name")
			b = appendString(b, a.Name)
			b = appendString(b, "reason")
			b = appendString(b, a.Reason)
		}
	}
	b = appendString(b, "countIterations")
	b = appendInt(b, v.CountIterations)
	b = appendString(b, "countMethod")
	b = appendString(b, v.CountMethod)
	if len(v.Retaken) > 0 {
		b = appendString(b, "retaken")
		b = appendArrayLen(b, len(v.Retaken))
		for i := range v.Retaken {
			b = appendSample(b, &v.Retaken[i])
		}
	}
	if o := v.Interference; o != nil {
		b = appendString(b, "interference")
		b = appendMapLen(b, 4)
		b = appendString(b, "pauses")
		b = appendInt(b, int64(o.Pauses))
		b = appendString(b, "pausedNs")
		b = appendInt(b, o.PausedNs)
		b = appendString(b, "budgetExhausted")
		b = appendBool(b, o.BudgetExhausted)
		b = appendString(b, "problem")
		b = appendString(b, o.Problem)
	}
	if v.AfterSiblings != 0 {
		b = appendString(b, "afterSiblings")
		b = appendInt(b, v.AfterSiblings)
	}
	if v.ExtraDropped != 0 {
		b = appendString(b, "extraDropped")
		b = appendInt(b, v.ExtraDropped)
	}
	if len(v.ExtraDroppedUnits) > 0 {
		b = appendString(b, "extraDroppedUnits")
		b = appendStrings(b, v.ExtraDroppedUnits)
	}
	return b
}

func appendSample(b []byte, v *Sample) []byte {
	n := 2
	if v.AllocBytes != nil {
		n++
	}
	if v.Allocs != nil {
		n++
	}
	if len(v.Extra) > 0 {
		n++
	}
	if v.Exact {
		n++
	}
	if v.Watch != nil {
		n++
	}
	b = appendMapLen(b, n)
	b = appendString(b, "n")
	b = appendInt(b, v.Iterations)
	b = appendString(b, "ns")
	b = appendInt(b, v.ElapsedNs)
	if v.AllocBytes != nil {
		b = appendString(b, "allocBytes")
		b = appendUint(b, *v.AllocBytes)
	}
	if v.Allocs != nil {
		b = appendString(b, "allocs")
		b = appendUint(b, *v.Allocs)
	}
	if len(v.Extra) > 0 {
		b = appendString(b, "extra")
		b = appendArrayLen(b, len(v.Extra))
		for i := range v.Extra {
			e := &v.Extra[i]
			n := 2
			if e.Unmeasured != "" {
				n++
			}
			b = appendMapLen(b, n)
			b = appendString(b, "unit")
			b = appendString(b, e.Unit)
			b = appendString(b, "value")
			b = appendFloat(b, e.Value)
			if e.Unmeasured != "" {
				b = appendString(b, "unmeasured")
				b = appendString(b, e.Unmeasured)
			}
		}
	}
	if v.Exact {
		b = appendString(b, "exact")
		b = appendBool(b, true)
	}
	if w := v.Watch; w != nil {
		b = appendString(b, "watch")
		b = appendMapLen(b, 6)
		b = appendString(b, "hostBusyTicks")
		b = appendInt(b, w.HostBusyTicks)
		b = appendString(b, "tickNs")
		b = appendInt(b, w.TickNs)
		b = appendString(b, "ownCpuNs")
		b = appendInt(b, w.OwnCPUNs)
		b = appendString(b, "wallNs")
		b = appendInt(b, w.WallNs)
		b = appendString(b, "cpus")
		b = appendInt(b, int64(w.CPUs))
		b = appendString(b, "disturbed")
		b = appendBool(b, w.Disturbed)
	}
	return b
}

// appendMetricCells encodes a []MetricCell that is not omitempty: nil as
// nil.
func appendMetricCells(b []byte, cells []MetricCell) []byte {
	if cells == nil {
		return appendNil(b)
	}
	b = appendArrayLen(b, len(cells))
	for i := range cells {
		c := &cells[i]
		n := 3
		if c.Uncertainty != 0 {
			n++
		}
		if c.Note != "" {
			n++
		}
		b = appendMapLen(b, n)
		b = appendString(b, "name")
		b = appendString(b, c.Name)
		b = appendString(b, "value")
		b = appendFloat(b, c.Value)
		b = appendString(b, "estimated")
		b = appendBool(b, c.Estimated)
		if c.Uncertainty != 0 {
			b = appendString(b, "uncertainty")
			b = appendFloat(b, c.Uncertainty)
		}
		if c.Note != "" {
			b = appendString(b, "note")
			b = appendString(b, c.Note)
		}
	}
	return b
}

func appendLog(b []byte, v *Log) []byte {
	n := 1
	for _, set := range []bool{v.Test != "", v.Limit != "", v.Restored} {
		if set {
			n++
		}
	}
	b = appendMapLen(b, n)
	b = appendString(b, "text")
	b = appendString(b, v.Text)
	if v.Test != "" {
		b = appendString(b, "test")
		b = appendString(b, v.Test)
	}
	if v.Limit != "" {
		b = appendString(b, "limit")
		b = appendString(b, v.Limit)
	}
	if v.Restored {
		b = appendString(b, "restored")
		b = appendBool(b, true)
	}
	return b
}

func appendSkip(b []byte, v *Skip) []byte {
	b = appendMapLen(b, 1)
	b = appendString(b, "reason")
	return appendString(b, v.Reason)
}

func appendFailure(b []byte, v *Failure) []byte {
	b = appendMapLen(b, 3)
	b = appendString(b, "class")
	b = appendString(b, string(v.Class))
	b = appendString(b, "message")
	b = appendString(b, v.Message)
	b = appendString(b, "stack")
	return appendString(b, v.Stack)
}

func appendDone(b []byte) []byte { return appendMapLen(b, 0) }

func appendListing(b []byte, v *Listing) []byte {
	b = appendMapLen(b, 1)
	b = appendString(b, "identities")
	if v.Identities == nil {
		return appendNil(b)
	}
	b = appendArrayLen(b, len(v.Identities))
	for i := range v.Identities {
		l := &v.Identities[i]
		n := 2
		for _, set := range []bool{l.Iterations != 0, len(l.Calibration) > 0, l.SampleNs != 0, l.FixedNs != 0, l.SetupNs != 0, l.FullName != "", l.Problem != "", l.Skipped != "", l.AfterSiblings != 0} {
			if set {
				n++
			}
		}
		b = appendMapLen(b, n)
		b = appendString(b, "name")
		b = appendString(b, l.Name)
		b = appendString(b, "kind")
		b = appendString(b, string(l.Kind))
		if l.Iterations != 0 {
			b = appendString(b, "n")
			b = appendInt(b, l.Iterations)
		}
		if len(l.Calibration) > 0 {
			b = appendString(b, "calibration")
			b = appendArrayLen(b, len(l.Calibration))
			for j := range l.Calibration {
				b = appendSample(b, &l.Calibration[j])
			}
		}
		if l.SampleNs != 0 {
			b = appendString(b, "sampleNs")
			b = appendInt(b, l.SampleNs)
		}
		if l.FixedNs != 0 {
			b = appendString(b, "fixedNs")
			b = appendInt(b, l.FixedNs)
		}
		if l.SetupNs != 0 {
			b = appendString(b, "setupNs")
			b = appendInt(b, l.SetupNs)
		}
		if l.FullName != "" {
			b = appendString(b, "fullName")
			b = appendString(b, l.FullName)
		}
		if l.Problem != "" {
			b = appendString(b, "problem")
			b = appendString(b, l.Problem)
		}
		if l.Skipped != "" {
			b = appendString(b, "skipped")
			b = appendString(b, l.Skipped)
		}
		if l.AfterSiblings != 0 {
			b = appendString(b, "afterSiblings")
			b = appendInt(b, l.AfterSiblings)
		}
	}
	return b
}

func appendTestEvent(b []byte, v *TestEvent) []byte {
	n := 4
	for _, set := range []bool{v.OmittedBytes != 0, v.Lost, v.Imitated, len(v.ImitatedBeside) > 0} {
		if set {
			n++
		}
	}
	b = appendMapLen(b, n)
	b = appendString(b, "action")
	b = appendString(b, string(v.Action))
	b = appendString(b, "test")
	b = appendString(b, v.Test)
	b = appendString(b, "elapsedNs")
	b = appendInt(b, v.ElapsedNs)
	b = appendString(b, "output")
	b = appendString(b, v.Output)
	if v.OmittedBytes != 0 {
		b = appendString(b, "omittedBytes")
		b = appendInt(b, v.OmittedBytes)
	}
	if v.Lost {
		b = appendString(b, "lost")
		b = appendBool(b, true)
	}
	if v.Imitated {
		b = appendString(b, "imitated")
		b = appendBool(b, true)
	}
	if len(v.ImitatedBeside) > 0 {
		b = appendString(b, "imitatedBeside")
		b = appendStrings(b, v.ImitatedBeside)
	}
	return b
}

func appendWindow(b []byte, v *Window) []byte {
	optional := [...]*int64{v.OnCPUUserNs, v.OnCPUKernelNs, v.OffCPURunqueueNs, v.OffCPUDiskNs, v.OffCPUOtherNs, v.OtherThreadsCPUNs}
	n := 4
	for _, p := range optional {
		if p != nil {
			n++
		}
	}
	if len(v.Totals) > 0 {
		n++
	}
	if v.PSI != nil {
		n++
	}
	if v.Regime != nil {
		n++
	}
	if v.Note != "" {
		n++
	}
	b = appendMapLen(b, n)
	b = appendString(b, "name")
	b = appendString(b, v.Name)
	b = appendString(b, "reps")
	b = appendInt(b, int64(v.Reps))
	b = appendString(b, "wallNs")
	b = appendInt(b, v.WallNs)
	b = appendString(b, "scope")
	b = appendString(b, v.Scope)
	for i, p := range optional {
		if p != nil {
			b = appendString(b, windowKeys[windowOptionalKey+i])
			b = appendInt(b, *p)
		}
	}
	if len(v.Totals) > 0 {
		b = appendString(b, "totals")
		b = appendMetricCells(b, v.Totals)
	}
	if p := v.PSI; p != nil {
		b = appendString(b, "psi")
		b = appendMapLen(b, 5)
		b = appendString(b, "ioSomeNs")
		b = appendInt(b, p.IOSomeNs)
		b = appendString(b, "ioFullNs")
		b = appendInt(b, p.IOFullNs)
		b = appendString(b, "memSomeNs")
		b = appendInt(b, p.MemSomeNs)
		b = appendString(b, "memFullNs")
		b = appendInt(b, p.MemFullNs)
		b = appendString(b, "cpuSomeNs")
		b = appendInt(b, p.CPUSomeNs)
	}
	if r := v.Regime; r != nil {
		b = appendString(b, "regime")
		n := 5
		if r.Note != "" {
			n++
		}
		b = appendMapLen(b, n)
		b = appendString(b, "requested")
		b = appendString(b, r.Requested)
		b = appendString(b, "effective")
		b = appendString(b, r.Effective)
		b = appendString(b, "residentBefore")
		b = appendInt(b, r.ResidentBefore)
		b = appendString(b, "residentAfter")
		b = appendInt(b, r.ResidentAfter)
		b = appendString(b, "totalBytes")
		b = appendInt(b, r.TotalBytes)
		if r.Note != "" {
			b = appendString(b, "note")
			b = appendString(b, r.Note)
		}
	}
	if v.Note != "" {
		b = appendString(b, "note")
		b = appendString(b, v.Note)
	}
	return b
}

// ---- decoders ----

// Key tables: the msgpack tags of each struct in field order.
var (
	identityKeys      = []string{"package", "name"}
	helloKeys         = []string{"protocolVersion", "workerVersion", "pid", "goVersion", "goos", "goarch", "gomaxprocs", "again"}
	requestKeys       = []string{"mode", "identity", "config", "repetition", "seed", "fullName"}
	requestConfigKeys = []string{"minSampleNs", "samples", "iterations", "run", "bench", "after", "skip",
		"testTimeoutNs", "args", "metrics", "perfIters", "perfBatch", "perfScaled", "skipProbe", "windowMetrics", "skipPattern", "interference"}
	interferenceKeys = []string{"response", "maxForeign", "maxRetakes", "settleNs", "pauseMaxNs", "cpus"}
	watchKeys        = []string{"hostBusyTicks", "tickNs", "ownCpuNs", "wallNs", "cpus", "disturbed"}
	outcomeKeys      = []string{"pauses", "pausedNs", "budgetExhausted", "problem"}
	readyKeys        = []string{"identity"}
	progressKeys     = []string{"phase", "done", "total"}
	resultKeys       = []string{"identity", "repetition", "seed", "bytesPerOp", "samples", "metrics", "absences", "countIterations", "countMethod",
		"retaken", "interference", "afterSiblings", "extraDropped", "extraDroppedUnits"}
	sampleKeys     = []string{"n", "ns", "allocBytes", "allocs", "extra", "exact", "watch"}
	metricKeys     = []string{"unit", "value", "unmeasured"}
	metricCellKeys = []string{"name", "value", "estimated", "uncertainty", "note"}
	absenceKeys    = []string{"name", "reason"}
	logKeys        = []string{"text", "test", "limit", "restored"}
	skipKeys       = []string{"reason"}
	failureKeys    = []string{"class", "message", "stack"}
	listingKeys    = []string{"identities"}
	listedKeys     = []string{"name", "kind", "n", "calibration", "sampleNs", "fixedNs", "setupNs", "fullName", "problem", "skipped", "afterSiblings"}
	testEventKeys  = []string{"action", "test", "elapsedNs", "output", "omittedBytes", "lost", "imitated", "imitatedBeside"}
	windowKeys     = []string{"name", "reps", "wallNs", "scope",
		"onCpuUserNs", "onCpuKernelNs", "offCpuRunqueueNs", "offCpuDiskNs", "offCpuOtherNs", "otherThreadsCpuNs",
		"totals", "psi", "regime", "note"}
	psiKeys    = []string{"ioSomeNs", "ioFullNs", "memSomeNs", "memFullNs", "cpuSomeNs"}
	regimeKeys = []string{"requested", "effective", "residentBefore", "residentAfter", "totalBytes", "note"}
)

// windowOptionalKey is the index in windowKeys of the first of the six
// optional durations.
const windowOptionalKey = 4

// array decodes an array of at most max entries into *dst with elem
// decoding each entry: nil stays nil, an empty array is an empty slice.
// It is a function, not a method, because methods cannot have type
// parameters.
func array[T any](d *decoder, dst *[]T, max int, elem func(*T) error) error {
	n, isNil, err := d.arrayLen(max)
	if err != nil || isNil {
		return err
	}
	s := make([]T, n)
	for i := range s {
		start := d.pos
		if err := elem(&s[i]); err != nil {
			return located(err, index(i), start)
		}
	}
	*dst = s
	return nil
}

// pointer decodes a pointer to a struct with decode: nil is a nil
// pointer.
func pointer[T any](d *decoder, dst **T, decode func(*T) error) error {
	if d.takeNil() {
		*dst = nil
		return nil
	}
	*dst = new(T)
	return decode(*dst)
}

// typed decodes a string of a named string type.
func typed[S ~string](d *decoder, dst *S) error {
	var s string
	err := d.str(&s)
	*dst = S(s)
	return err
}

func (d *decoder) identity(v *Identity) error {
	return d.object(identityKeys, func(i int) error {
		switch i {
		case 0:
			return d.str(&v.Package)
		default:
			return d.str(&v.Name)
		}
	})
}

func (d *decoder) hello(v *Hello) error {
	return d.object(helloKeys, func(i int) error {
		switch i {
		case 0:
			return d.int(&v.ProtocolVersion)
		case 1:
			return d.str(&v.WorkerVersion)
		case 2:
			return d.int(&v.PID)
		case 3:
			return d.str(&v.GoVersion)
		case 4:
			return d.str(&v.GOOS)
		case 5:
			return d.str(&v.GOARCH)
		case 6:
			return d.int(&v.GOMAXPROCS)
		default:
			return d.int(&v.Again)
		}
	})
}

func (d *decoder) request(v *Request) error {
	return d.object(requestKeys, func(i int) error {
		switch i {
		case 0:
			return typed(d, &v.Mode)
		case 1:
			return d.identity(&v.Identity)
		case 2:
			return d.requestConfig(&v.Config)
		case 3:
			return d.int(&v.Repetition)
		case 4:
			return d.u64(&v.Seed)
		default:
			return d.str(&v.FullName)
		}
	})
}

func (d *decoder) requestConfig(v *RequestConfig) error {
	return d.object(requestConfigKeys, func(i int) error {
		switch i {
		case 0:
			return d.i64(&v.MinSampleNs)
		case 1:
			return d.int(&v.Samples)
		case 2:
			return d.i64(&v.Iterations)
		case 3:
			return d.str(&v.Run)
		case 4:
			return d.str(&v.Bench)
		case 5:
			return d.str(&v.After)
		case 6:
			return d.strs(&v.Skip, MaxIdentitiesPerFrame)
		case 7:
			return d.i64(&v.TestTimeoutNs)
		case 8:
			return d.strs(&v.Args, MaxArgs)
		case 9:
			return d.strs(&v.Metrics, MaxMetricCells)
		case 10:
			return d.i64(&v.PerfIters)
		case 11:
			return d.i64(&v.PerfBatch)
		case 12:
			return d.boolean(&v.PerfScaled)
		case 13:
			return d.boolean(&v.SkipProbe)
		case 14:
			return d.strs(&v.WindowMetrics, MaxMetricCells)
		case 15:
			return d.str(&v.SkipPattern)
		default:
			return pointer(d, &v.Interference, d.interference)
		}
	})
}

func (d *decoder) interference(v *Interference) error {
	return d.object(interferenceKeys, func(i int) error {
		switch i {
		case 0:
			return d.str(&v.Response)
		case 1:
			return d.float(&v.MaxForeign)
		case 2:
			return d.int(&v.MaxRetakes)
		case 3:
			return d.i64(&v.SettleNs)
		case 4:
			return d.i64(&v.PauseMaxNs)
		default:
			return array(d, &v.CPUs, MaxWatchedCPUs, d.int)
		}
	})
}

func (d *decoder) watch(v *Watch) error {
	return d.object(watchKeys, func(i int) error {
		switch i {
		case 0:
			return d.i64(&v.HostBusyTicks)
		case 1:
			return d.i64(&v.TickNs)
		case 2:
			return d.i64(&v.OwnCPUNs)
		case 3:
			return d.i64(&v.WallNs)
		case 4:
			return d.int(&v.CPUs)
		default:
			return d.boolean(&v.Disturbed)
		}
	})
}

func (d *decoder) outcome(v *InterferenceOutcome) error {
	return d.object(outcomeKeys, func(i int) error {
		switch i {
		case 0:
			return d.int(&v.Pauses)
		case 1:
			return d.i64(&v.PausedNs)
		case 2:
			return d.boolean(&v.BudgetExhausted)
		default:
			return d.str(&v.Problem)
		}
	})
}

func (d *decoder) ready(v *Ready) error {
	return d.object(readyKeys, func(int) error { return d.identity(&v.Identity) })
}

func (d *decoder) progress(v *Progress) error {
	return d.object(progressKeys, func(i int) error {
		switch i {
		case 0:
			return typed(d, &v.Phase)
		case 1:
			return d.i64(&v.Done)
		default:
			return d.i64(&v.Total)
		}
	})
}

func (d *decoder) result(v *Result) error {
	return d.object(resultKeys, func(i int) error {
		switch i {
		case 0:
			return d.identity(&v.Identity)
		case 1:
			return d.int(&v.Repetition)
		case 2:
			return d.u64(&v.Seed)
		case 3:
			return d.i64(&v.BytesPerOp)
		case 4:
			return array(d, &v.Samples, MaxSamplesPerFrame, d.sample)
		case 5:
			return array(d, &v.Metrics, MaxMetricCells, d.metricCell)
		case 6:
			return array(d, &v.Absences, MaxAbsences, d.absence)
		case 7:
			return d.i64(&v.CountIterations)
		case 8:
			return d.str(&v.CountMethod)
		case 9:
			return array(d, &v.Retaken, MaxSamplesPerFrame, d.sample)
		case 10:
			return pointer(d, &v.Interference, d.outcome)
		case 11:
			return d.i64(&v.AfterSiblings)
		case 12:
			return d.i64(&v.ExtraDropped)
		default:
			return d.strs(&v.ExtraDroppedUnits, MaxDroppedUnits)
		}
	})
}

func (d *decoder) sample(v *Sample) error {
	return d.object(sampleKeys, func(i int) error {
		switch i {
		case 0:
			return d.i64(&v.Iterations)
		case 1:
			return d.i64(&v.ElapsedNs)
		case 2:
			return d.u64Ptr(&v.AllocBytes)
		case 3:
			return d.u64Ptr(&v.Allocs)
		case 4:
			return array(d, &v.Extra, MaxExtraPerSample, d.metric)
		case 5:
			return d.boolean(&v.Exact)
		default:
			return pointer(d, &v.Watch, d.watch)
		}
	})
}

// u64Ptr decodes a *uint64: nil is a nil pointer.
func (d *decoder) u64Ptr(dst **uint64) error {
	if d.takeNil() {
		*dst = nil
		return nil
	}
	if len(d.slab) == 0 {
		// Samples carry two of these each: allocate them in chunks. Every
		// one needs a byte of input, which bounds the chunk.
		d.slab = make([]uint64, max(1, min(256, d.remaining())))
	}
	v := &d.slab[0]
	if err := d.u64(v); err != nil {
		return err
	}
	d.slab = d.slab[1:]
	*dst = v
	return nil
}

// i64Ptr decodes a *int64: nil is a nil pointer.
func (d *decoder) i64Ptr(dst **int64) error {
	if d.takeNil() {
		*dst = nil
		return nil
	}
	var v int64
	if err := d.i64(&v); err != nil {
		return err
	}
	*dst = &v
	return nil
}

func (d *decoder) metric(v *Metric) error {
	return d.object(metricKeys, func(i int) error {
		switch i {
		case 0:
			return d.str(&v.Unit)
		case 1:
			return d.float(&v.Value)
		default:
			return d.str(&v.Unmeasured)
		}
	})
}

func (d *decoder) metricCell(v *MetricCell) error {
	return d.object(metricCellKeys, func(i int) error {
		switch i {
		case 0:
			return d.str(&v.Name)
		case 1:
			return d.float(&v.Value)
		case 2:
			return d.boolean(&v.Estimated)
		case 3:
			return d.float(&v.Uncertainty)
		default:
			return d.str(&v.Note)
		}
	})
}

func (d *decoder) absence(v *Absence) error {
	return d.object(absenceKeys, func(i int) error {
		if i == 0 {
			return d.str(&v.Name)
		}
		return d.str(&v.Reason)
	})
}

func (d *decoder) log(v *Log) error {
	return d.object(logKeys, func(i int) error {
		switch i {
		case 0:
			return d.str(&v.Text)
		case 1:
			return d.str(&v.Test)
		case 2:
			return d.str(&v.Limit)
		default:
			return d.boolean(&v.Restored)
		}
	})
}

func (d *decoder) skipMessage(v *Skip) error {
	return d.object(skipKeys, func(int) error { return d.str(&v.Reason) })
}

func (d *decoder) failure(v *Failure) error {
	return d.object(failureKeys, func(i int) error {
		switch i {
		case 0:
			return typed(d, &v.Class)
		case 1:
			return d.str(&v.Message)
		default:
			return d.str(&v.Stack)
		}
	})
}

func (d *decoder) listing(v *Listing) error {
	return d.object(listingKeys, func(int) error {
		return array(d, &v.Identities, MaxIdentitiesPerFrame, d.listed)
	})
}

func (d *decoder) listed(v *Listed) error {
	return d.object(listedKeys, func(i int) error {
		switch i {
		case 0:
			return d.str(&v.Name)
		case 1:
			return typed(d, &v.Kind)
		case 2:
			return d.i64(&v.Iterations)
		case 3:
			return array(d, &v.Calibration, MaxCalibrationRuns, d.sample)
		case 4:
			return d.i64(&v.SampleNs)
		case 5:
			return d.i64(&v.FixedNs)
		case 6:
			return d.i64(&v.SetupNs)
		case 7:
			return d.str(&v.FullName)
		case 8:
			return d.str(&v.Problem)
		case 9:
			return d.str(&v.Skipped)
		default:
			return d.i64(&v.AfterSiblings)
		}
	})
}

func (d *decoder) testEvent(v *TestEvent) error {
	return d.object(testEventKeys, func(i int) error {
		switch i {
		case 0:
			return typed(d, &v.Action)
		case 1:
			return d.str(&v.Test)
		case 2:
			return d.i64(&v.ElapsedNs)
		case 3:
			return d.str(&v.Output)
		case 4:
			return d.i64(&v.OmittedBytes)
		case 5:
			return d.boolean(&v.Lost)
		case 6:
			return d.boolean(&v.Imitated)
		default:
			return d.strs(&v.ImitatedBeside, MaxImitatedBeside)
		}
	})
}

func (d *decoder) window(v *Window) error {
	optional := [...]**int64{&v.OnCPUUserNs, &v.OnCPUKernelNs, &v.OffCPURunqueueNs, &v.OffCPUDiskNs, &v.OffCPUOtherNs, &v.OtherThreadsCPUNs}
	return d.object(windowKeys, func(i int) error {
		switch {
		case i == 0:
			return d.str(&v.Name)
		case i == 1:
			return d.int(&v.Reps)
		case i == 2:
			return d.i64(&v.WallNs)
		case i == 3:
			return d.str(&v.Scope)
		case i < windowOptionalKey+len(optional):
			return d.i64Ptr(optional[i-windowOptionalKey])
		case i == 10:
			return array(d, &v.Totals, MaxTotalsPerWindow, d.metricCell)
		case i == 11:
			return pointer(d, &v.PSI, d.psi)
		case i == 12:
			return pointer(d, &v.Regime, d.regime)
		default:
			return d.str(&v.Note)
		}
	})
}

func (d *decoder) psi(v *PSI) error {
	return d.object(psiKeys, func(i int) error {
		switch i {
		case 0:
			return d.i64(&v.IOSomeNs)
		case 1:
			return d.i64(&v.IOFullNs)
		case 2:
			return d.i64(&v.MemSomeNs)
		case 3:
			return d.i64(&v.MemFullNs)
		default:
			return d.i64(&v.CPUSomeNs)
		}
	})
}

func (d *decoder) regime(v *Regime) error {
	return d.object(regimeKeys, func(i int) error {
		switch i {
		case 0:
			return d.str(&v.Requested)
		case 1:
			return d.str(&v.Effective)
		case 2:
			return d.i64(&v.ResidentBefore)
		case 3:
			return d.i64(&v.ResidentAfter)
		case 4:
			return d.i64(&v.TotalBytes)
		default:
			return d.str(&v.Note)
		}
	})
}
