package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/targets/process"
)

// toolEnv turns the test binary into a small command-line tool: the
// tests run it (os.Args[0]) through the adapter, so they need no other
// program. Its value is the tool's behaviour.
const toolEnv = "CLITARGET_TEST_TOOL"

// testTag is inherited by every process the tests start, so that
// leftovers can be found in /proc.
var testTag = fmt.Sprintf("CLITARGET_TEST_TAG=%016x", rand.Uint64())

func TestMain(m *testing.M) {
	if mode := os.Getenv(toolEnv); mode != "" {
		os.Exit(tool(mode, os.Args[1:]))
	}
	kv := strings.SplitN(testTag, "=", 2)
	os.Setenv(kv[0], kv[1])
	process.PassOn(kv[0], "GORACE") // the tools inherit them
	goleak.VerifyTestMain(m)
}

// tool is the helper tool. Modes:
//
//	echo        exit 0, {"ok":true,"effect":"created","data":{"id":…,"args":…,"env":…,"dir":…,"pid":…}}
//	garbage     exit 0, stdout is not JSON
//	logs        log lines, then the JSON reply on the last line
//	big         2 MiB of stdout, then exit 0
//	okfalse     exit 0 with {"ok":false,…}
//	tempfail    exit 75 with a reason
//	refused     exit 1 with a reason
//	crash       dies of SIGTERM (its own), after a line on stderr
//	hang        prints half a reply and blocks until killed
//	grandchild  starts a child in its group that sleeps forever, then replies
//	sleeper     blocks until killed (the grandchild)
//	escape      double-forks a grandchild into a session of its own that
//	            ignores SIGTERM, replies with its pid in data.child
//	escaper     (the middle of escape) starts that grandchild, prints its
//	            pid and exits
//	call        POSTs its pid and args to $TOOL_URL, then replies
func tool(mode string, args []string) int {
	reply := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Printf("%s\n", b)
	}
	data := map[string]any{"id": "ord_1", "args": args, "dir": wd(), "pid": os.Getpid(),
		"env": map[string]string{"STATE_DIR": os.Getenv("STATE_DIR"), "PAY_URL": os.Getenv("PAY_URL"), "IDEMCHECK_RUN_ID": os.Getenv("IDEMCHECK_RUN_ID"),
			"PATH": os.Getenv("PATH"), canaryVar: os.Getenv(canaryVar), passedVar: os.Getenv(passedVar)}}
	switch mode {
	case "echo":
		reply(map[string]any{"ok": true, "effect": "created", "data": data})
	case "garbage":
		fmt.Print("\x00\x01 this is not json {\n")
	case "logs":
		fmt.Println("connecting to payments…")
		fmt.Println("charged")
		reply(map[string]any{"ok": true, "effect": "created", "data": map[string]any{"id": json.Number("12345678901234567890")}})
	case "big":
		os.Stdout.Write(bytes.Repeat([]byte("x"), 2<<20))
	case "okfalse":
		reply(map[string]any{"ok": false, "reason": "nothing to do"})
	case "tempfail":
		reply(map[string]any{"ok": false, "error": "downstream_unavailable", "reason": "payments: HTTP 503"})
		return 75
	case "refused":
		fmt.Fprintln(os.Stderr, "ordertool: key reused")
		reply(map[string]any{"ok": false, "error": "key_reused"})
		return 1
	case "crash":
		fmt.Fprintln(os.Stderr, "fatal: corrupted store")
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		select {}
	case "hang":
		fmt.Print(`{"ok":`)
		os.Stdout.Sync()
		select {}
	case "grandchild":
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), toolEnv+"=sleeper")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		data["child"] = cmd.Process.Pid
		reply(map[string]any{"ok": true, "effect": "created", "data": data})
	case "sleeper":
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
		select {}
	case "escape":
		mid := exec.Command(os.Args[0])
		mid.Env = append(os.Environ(), toolEnv+"=escaper")
		mid.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, err := mid.Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		var child int
		fmt.Sscan(string(out), &child)
		data["child"] = child
		reply(map[string]any{"ok": true, "effect": "created", "data": data})
	case "escaper":
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), toolEnv+"=sleeper")
		gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(gc.Process.Pid)
	case "call":
		b, _ := json.Marshal(data)
		resp, err := http.Post(os.Getenv("TOOL_URL"), "application/json", bytes.NewReader(b))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 75
		}
		resp.Body.Close()
		reply(map[string]any{"ok": true, "effect": "created", "data": data})
	default:
		fmt.Fprintf(os.Stderr, "unknown %s mode %q\n", toolEnv, mode)
		return 2
	}
	return 0
}

func wd() string {
	d, _ := os.Getwd()
	return d
}
