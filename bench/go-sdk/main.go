// Command bench-go-sdk is the benchmark extension of zot-bench written
// with zot's own Go SDK (github.com/patriceckhart/zot/packages/agent/ext),
// the way the SDK's users write extensions: the same tools and
// subscriptions as the other targets, so the tables compare our SDKs with
// the Go SDK.
//
//   - echo: text = args.text (missing or not a string: is_error "missing text")
//   - big: one text block of args.bytes times "x"
//   - sleep: waits args.ms milliseconds ("slept <ms>"); when cancelled
//     (tool_cancel, shutdown, stdin EOF) it stops at once and sends notify
//     warn "cancelled <ms>" (the SDK drops the cancelled call's result)
//   - compose: calls the host's echo with {"text": "inner:" + args.text}
//     through CallTool; text "composed:" + the inner result's first text,
//     or is_error with that text when the inner result is an error
//   - subscribes to tool_call and tool_result and counts them
//
// zot-bench builds it in a scratch module (target/zot-bench/go-sdk) whose
// go.mod points at a local checkout of the SDK; see bench/README.md.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/patriceckhart/zot/packages/agent/ext"
)

var (
	echoSchema  = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	bigSchema   = json.RawMessage(`{"type":"object","properties":{"bytes":{"type":"integer"}}}`)
	sleepSchema = json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}}}`)
	textSchema  = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
)

type textArgs struct {
	Text *string `json:"text"`
}

type innerArgs struct {
	Text string `json:"text"`
}

func main() {
	x := ext.New("bench-go-sdk", "1.0.0")
	// Running handlers, so that cancelled sleeps can still send their note
	// after Run returns (shutdown, EOF).
	var running sync.WaitGroup

	x.Tool("echo", "echo text", echoSchema, func(args json.RawMessage) ext.ToolResult {
		var a textArgs
		if json.Unmarshal(args, &a) != nil || a.Text == nil {
			return ext.TextErrorResult("missing text")
		}
		return ext.TextResult(*a.Text)
	})

	x.Tool("big", "n bytes of x", bigSchema, func(args json.RawMessage) ext.ToolResult {
		var a struct {
			Bytes int `json:"bytes"`
		}
		_ = json.Unmarshal(args, &a)
		return ext.TextResult(strings.Repeat("x", max(a.Bytes, 0)))
	})

	x.ToolWithOptions("sleep", "wait ms milliseconds", sleepSchema, ext.ToolOptions{},
		func(ctx context.Context, args json.RawMessage) ext.ToolResult {
			running.Add(1)
			defer running.Done()
			var a struct {
				Ms int64 `json:"ms"`
			}
			_ = json.Unmarshal(args, &a)
			timer := time.NewTimer(time.Duration(a.Ms) * time.Millisecond)
			defer timer.Stop()
			select {
			case <-timer.C:
				return ext.TextResult(fmt.Sprintf("slept %d", a.Ms))
			case <-ctx.Done():
				x.Notify("warn", fmt.Sprintf("cancelled %d", a.Ms))
				return ext.TextResult("cancelled") // not sent: the call was cancelled
			}
		})

	x.ToolWithOptions("compose", "call echo through call_tool", textSchema, ext.ToolOptions{},
		func(ctx context.Context, args json.RawMessage) ext.ToolResult {
			var a textArgs
			_ = json.Unmarshal(args, &a)
			text := ""
			if a.Text != nil {
				text = *a.Text
			}
			res, err := x.CallTool(ctx, "echo", innerArgs{Text: "inner:" + text})
			if err != nil {
				return ext.TextErrorResult("call failed: " + err.Error())
			}
			first := ""
			if len(res.Content) > 0 {
				first = res.Content[0].Text
			}
			if res.IsError {
				return ext.TextErrorResult(first)
			}
			return ext.TextResult("composed:" + first)
		})

	// Event handlers run on the SDK's read goroutine, one after the other.
	var calls, results uint64
	x.On("tool_call", func(ext.Event) { calls++ })
	x.On("tool_result", func(ext.Event) { results++ })

	err := x.Run()
	waitAtMost(&running, time.Second)
	x.Logf("done: %d tool_call and %d tool_result events", calls, results)
	if err != nil {
		x.Logf("%v", err)
		os.Exit(1)
	}
}

// waitAtMost waits for wg, but no longer than d.
func waitAtMost(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}
