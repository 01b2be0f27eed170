package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/sse"
)

// childArgs names the environment variable that makes the test binary run
// the command with the arguments it holds (one per line) instead of the
// tests: the RSS tests measure a proxy in a process of its own.
const childArgs = "TOOLSIEVE_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(childArgs); a != "" {
		os.Exit(run(strings.Split(a, "\n"), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// rssLoad is a load that fills the proxy's memory budget: clients send large
// request bodies (held for the exchange) for whole answers (held to be
// rewritten) and for streams with large events (the SSE decoder's buffer)
// held for a retry; more of them than the budget holds, so some get 503.
type rssLoad struct {
	budget     int64 // --memory-budget
	clients    int
	body       int // request body bytes
	answer     int // whole answer bytes
	event      int // bytes of the large event of a stream
	duration   time.Duration
	gomemlimit string // GOMEMLIMIT of the proxy's environment, "" for none
}

// rssResult is what a load did to the proxy's memory.
type rssResult struct {
	idle, peak, after  int64 // RSS before the load, at its highest (VmHWM), after it (once it came down)
	ok, refused, other int64
}

// vm reads a VmRSS or VmHWM value (bytes) of process pid.
func vm(t *testing.T, pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(b)
	require.NotNil(t, m, field)
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n << 10
}

// runRSSLoad starts the proxy in a process of its own in front of a
// scripted upstream, runs the load and measures the proxy's RSS.
func runRSSLoad(t *testing.T, l rssLoad) rssResult {
	prose := strings.Repeat("Plain prose of an answer, nothing to recover here. ", 1+l.answer/50)[:l.answer]
	doc := chattest.OpenAIDoc(prose + "\n<tool_call>\n<function=read_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>")
	var stream []byte
	stream = sse.AppendEvent(stream, "", []byte(chattest.OpenAIChunk(`{"role":"assistant","content":""}`, "")))
	stream = sse.AppendEvent(stream, "", []byte(chattest.OpenAIChunk(`{"content":`+chattest.Quote(prose[:l.event])+`}`, "")))
	stream = append(stream, chattest.OpenAIStream([]string{"<tool_call>\n<function=ls>\n</function>\n</tool_call>"})...)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		head := make([]byte, 64)
		n, _ := io.ReadFull(r.Body, head)
		io.Copy(io.Discard, r.Body)
		time.Sleep(30 * time.Millisecond) // requests overlap, and hold what they hold
		if bytes.Contains(head[:n], []byte(`"stream":true`)) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(stream)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	}))
	defer up.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join([]string{"proxy", "--listen", "127.0.0.1:0", "--upstream", up.URL,
		"--memory-budget", strconv.FormatInt(l.budget, 10), "--retries", "1", "--hold-text", "--log-level", "error"}, "\n"))
	cmd.Env = append(cmd.Env, "GOMEMLIMIT="+l.gomemlimit)
	if l.gomemlimit == "" {
		cmd.Env = append(cmd.Env, "GOMEMLIMIT=")
	}
	errOut := &lockedBuffer{}
	cmd.Stderr = errOut
	require.NoError(t, cmd.Start())
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	addr := waitListening(t, cmd.Process.Pid, errOut)

	var res rssResult
	res.idle = vm(t, cmd.Process.Pid, "VmRSS")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: l.clients}, Timeout: 60 * time.Second}
	body := func(stream bool) string {
		return `{"model":"m","stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":` +
			chattest.Quote(strings.Repeat("x", l.body)) + `}]}`
	}
	bodies := [2]string{body(false), body(true)}
	stop := time.Now().Add(l.duration)
	var wg sync.WaitGroup
	var ok, refused, other atomic.Int64
	for i := range l.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := i; time.Now().Before(stop); k++ {
				resp, err := client.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(bodies[k%2]))
				if err != nil {
					other.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusServiceUnavailable:
					refused.Add(1)
				default:
					other.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	client.CloseIdleConnections()
	res.peak = vm(t, cmd.Process.Pid, "VmHWM")
	// The memory comes back once nothing is held (the proxy looks every
	// two seconds); 30 s leave a loaded machine room.
	for range 120 {
		if res.after = vm(t, cmd.Process.Pid, "VmRSS"); res.after < l.budget/2 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	res.ok, res.refused, res.other = ok.Load(), refused.Load(), other.Load()
	return res
}

// waitListening finds the address the proxy listens on: its own sockets,
// read from /proc (its log level leaves the log quiet).
func waitListening(t *testing.T, pid int, errOut *lockedBuffer) string {
	deadline := time.Now().Add(time.Minute) // a loaded machine starts it in seconds
	for time.Now().Before(deadline) {
		if a := listeningAddr(pid); a != "" {
			return a
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the proxy did not start: %s", errOut.String())
	return ""
}

// listeningAddr returns the 127.0.0.1 address a process listens on, from
// /proc/net/tcp and the process's socket inodes.
func listeningAddr(pid int) string {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 || fs[3] != "0A" || !inodes[fs[9]] { // 0A: LISTEN
			continue
		}
		_, port, _ := strings.Cut(fs[1], ":")
		p, _ := strconv.ParseInt(port, 16, 32)
		return fmt.Sprintf("127.0.0.1:%d", p)
	}
	return ""
}

// TestProxyRSS: the memory budget bounds the proxy's memory, not only the
// bytes it counts. A load of large request bodies, whole answers and
// streams with large events, more than the budget holds (some requests get
// 503), keeps the proxy's peak RSS (VmHWM) under 1.3 times the budget: the
// runtime's memory limit is the budget, whole answers and the rewriters'
// buffers (the SSE decoder's above all) are counted in it. The memory
// comes back to the system after the load (under half the budget within
// ten seconds). Skipped under -short.
func TestProxyRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("RSS test")
	}
	for _, l := range []rssLoad{
		{budget: 64 << 20, clients: 12, body: 2 << 20, answer: 2 << 20, event: 1 << 20, duration: 4 * time.Second},
		{budget: 256 << 20, clients: 24, body: 8 << 20, answer: 4 << 20, event: 4 << 20, duration: 5 * time.Second},
	} {
		res := runRSSLoad(t, l)
		t.Logf("budget %d MiB: RSS idle %d MiB, peak %d MiB (%.2f× the budget), after the load %d MiB; %d answers, %d refused (503), %d other",
			l.budget>>20, res.idle>>20, res.peak>>20, float64(res.peak)/float64(l.budget), res.after>>20, res.ok, res.refused, res.other)
		require.NotZero(t, res.ok)
		require.NotZero(t, res.refused, "the load did not fill the budget")
		require.Less(t, res.peak, l.budget*13/10, "peak RSS over 1.3× the budget")
		require.Less(t, res.after, l.budget/2, "the memory did not come back")
	}
}
