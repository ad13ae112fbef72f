package hooks

import "testing"

type workloadsOnly struct{}

func (workloadsOnly) StartWorkload(testing.TB, int) (WorkloadSession, bool) { return nil, true }

type loopsToo struct{ workloadsOnly }

func (loopsToo) Loop(*testing.B, LoopBody) bool                { return true }
func (loopsToo) Metric(*testing.B, string, float64, bool) bool { return true }

func TestInstall(t *testing.T) {
	defer Install(nil)
	if Current() != nil || CurrentLoopRunner() != nil {
		t.Fatal("plain testing: no runner")
	}
	Install(workloadsOnly{})
	if Current() == nil {
		t.Fatal("installed runner not current")
	}
	if CurrentLoopRunner() != nil {
		t.Fatal("a runner that owns no loops is no loop runner")
	}
	Install(loopsToo{})
	if CurrentLoopRunner() == nil {
		t.Fatal("a runner that owns loops is the loop runner")
	}
	Install(nil)
	if Current() != nil || CurrentLoopRunner() != nil {
		t.Fatal("Install(nil) removes the runner")
	}
}
