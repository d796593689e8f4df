// An MCP client on the official Go SDK (github.com/modelcontextprotocol/go-sdk): runs every
// scenario against a server, as peers/py_client.py and peers/ts_client.mjs do.
//
//	go-client URL PROTOCOL                          # 2026-07-28 or 2025-11-25
//	go-client URL 2026-07-28 --break request-state
//
// It declares elicitation (form and url), sampling and roots, answers every ask (a URL-mode
// elicitation with an accept) and checks each result; on 2026-07-28 two more sessions declare less
// (nothing; form elicitation only) and must be refused with -32021 where the server cannot serve
// them. The scenarios after the first ones run as peers/run lists them in PEER_SCENARIOS (all by
// default). On
// 2026-07-28 the SDK's multi-round-trip middleware answers each input_required result with these
// handlers and retries the call; on 2025-11-25 the same handlers answer the server's requests.
// With `--break request-state` it turns that middleware off (ClientOptions.MultiRoundTrip) and
// retries one call by hand with a requestState other than the one it was given: the one fault
// mrtr must then report. Exit status 0 when every scenario got its expected answer.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	mrtrVersion = "2026-07-28"
	signInURL   = "https://example.com/sign-in"
)

// extra reports whether the pairing runs the scenario (PEER_SCENARIOS, all when unset).
func extra(scenario string) bool {
	list, set := os.LookupEnv("PEER_SCENARIOS")
	return !set || slices.Contains(strings.Split(list, ","), scenario)
}

var answers = map[string]string{"units": "celsius", "date": "2026-12-01", "seat": "12A", "focus": "tests", "topic": "mrtr"}

func elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req.Params.Mode == "url" {
		if req.Params.Message != "Sign in" || req.Params.URL != signInURL {
			return nil, fmt.Errorf("an unexpected URL elicitation: %q %q", req.Params.Message, req.Params.URL)
		}
		return &mcp.ElicitResult{Action: "accept"}, nil
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	raw, err := json.Marshal(req.Params.RequestedSchema)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, err
	}
	content := map[string]any{}
	for key := range schema.Properties {
		answer, ok := answers[key]
		if !ok {
			return nil, fmt.Errorf("no answer for %q", key)
		}
		content[key] = answer
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func sample(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: "short"}, Model: "m-1"}, nil
}

func newClient(options *mcp.ClientOptions) *mcp.Client {
	options.ElicitationHandler = elicit
	options.CreateMessageHandler = sample
	options.Capabilities = &mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		Sampling:    &mcp.SamplingCapabilities{},
		RootsV2:     &mcp.RootCapabilities{},
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-peer", Version: "1.0.0"}, options)
	client.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	return client
}

func text(result *mcp.CallToolResult, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if result.NeedsInput() {
		raw, _ := json.Marshal(result)
		return "", fmt.Errorf("CallTool returned an input_required result as the final one: %s", raw)
	}
	if len(result.Content) == 0 {
		raw, _ := json.Marshal(result)
		return "", fmt.Errorf("no content in %s", raw)
	}
	t, ok := result.Content[0].(*mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("not text: %T", result.Content[0])
	}
	return t.Text, nil
}

type check struct{ failed []string }

// refused holds that err is the -32021 error whose data.requiredCapabilities names capability.
func (c *check) refused(what string, result *mcp.CallToolResult, err error, capability string) {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != mcp.CodeMissingRequiredClientCapabilities {
		raw, _ := json.Marshal(result)
		c.failed = append(c.failed, fmt.Sprintf("%s: expected error -32021, got %v (result %s)", what, err, raw))
		return
	}
	var data struct {
		RequiredCapabilities map[string]any `json:"requiredCapabilities"`
	}
	if json.Unmarshal(wire.Data, &data) != nil || data.RequiredCapabilities[capability] == nil {
		c.failed = append(c.failed, fmt.Sprintf("%s: data.requiredCapabilities does not name %s: %s", what, capability, wire.Data))
		return
	}
	fmt.Printf("ok   %s: -32021 naming %s\n", what, capability)
}

func (c *check) equal(what, got string, err error, want string) {
	switch {
	case err != nil:
		c.failed = append(c.failed, fmt.Sprintf("%s: %v", what, err))
	case got != want:
		c.failed = append(c.failed, fmt.Sprintf("%s: expected %q, got %q", what, want, got))
	default:
		fmt.Printf("ok   %s: %q\n", what, got)
	}
}

func scenarios(ctx context.Context, url, protocol string) error {
	session, err := newClient(&mcp.ClientOptions{}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer session.Close()
	if got := session.InitializeResult().ProtocolVersion; got != protocol {
		return fmt.Errorf("negotiated %s, not %s", got, protocol)
	}
	call := func(name string, args map[string]any) (string, error) {
		return text(session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args}))
	}
	var c check
	got, err := call("get_weather", map[string]any{"location": "Paris"})
	c.equal("get_weather", got, err, "Paris: 22 degrees celsius")
	got, err = call("book_trip", map[string]any{"destination": "Rome"})
	c.equal("book_trip", got, err, "Rome on 2026-12-01, seat 12A")
	got, err = call("summarize", map[string]any{"text": "a long text"})
	c.equal("summarize", got, err, "summary: short")
	got, err = call("list_roots", map[string]any{})
	c.equal("list_roots", got, err, "file:///work")
	// Two calls to one tool in flight at once, each retried with its own state.
	cities := []string{"Oslo", "Lima"}
	texts, errs := make([]string, 2), make([]error, 2)
	var wg sync.WaitGroup
	for i, city := range cities {
		wg.Go(func() { texts[i], errs[i] = call("get_weather", map[string]any{"location": city}) })
	}
	wg.Wait()
	for i, city := range cities {
		c.equal("get_weather in parallel", texts[i], errs[i], city+": 22 degrees celsius")
	}
	if protocol == mrtrVersion {
		prompt, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"pr": "12"}})
		if err == nil && len(prompt.Messages) == 0 {
			err = fmt.Errorf("no messages")
		}
		var got string
		if err == nil {
			if t, ok := prompt.Messages[0].Content.(*mcp.TextContent); ok {
				got = t.Text
			}
			if !strings.Contains(got, "tests") {
				err = fmt.Errorf("%q does not mention tests", got)
			}
		}
		c.equal("review", got, err, got)
		notes, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://today"})
		if err == nil && len(notes.Contents) == 0 {
			err = fmt.Errorf("no contents")
		}
		got = ""
		if err == nil {
			got = notes.Contents[0].Text
		}
		c.equal("notes://today", got, err, "notes on mrtr")
	}
	if extra("reserve") {
		got, err = call("reserve", map[string]any{"table": "7"})
		c.equal("reserve", got, err, "table 7 reserved")
	}
	if extra("sign_in") {
		got, err = call("sign_in", map[string]any{})
		c.equal("sign_in", got, err, "signed in")
	}
	if protocol == mrtrVersion && extra("no_capability") {
		lesser(ctx, &c, url, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}, func(s *mcp.ClientSession) {
			result, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"location": "Paris"}})
			c.refused("get_weather declaring nothing", result, err, "elicitation")
		})
	}
	if protocol == mrtrVersion && extra("form_only") {
		formOnly := &mcp.ClientOptions{
			Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
			ElicitationHandler: elicit,
		}
		lesser(ctx, &c, url, formOnly, func(s *mcp.ClientSession) {
			result, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "summarize", Arguments: map[string]any{"text": "a long text"}})
			c.refused("summarize declaring form elicitation only", result, err, "sampling")
			got, err := text(s.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"location": "Paris"}}))
			c.equal("get_weather declaring form elicitation only", got, err, "Paris: 22 degrees celsius")
		})
	}
	if len(c.failed) > 0 {
		return fmt.Errorf("%s", strings.Join(c.failed, "\n"))
	}
	return nil
}

// lesser runs calls on a session of its own whose client declares only what options say.
func lesser(ctx context.Context, c *check, url string, options *mcp.ClientOptions, calls func(*mcp.ClientSession)) {
	client := mcp.NewClient(&mcp.Implementation{Name: "go-peer", Version: "1.0.0"}, options)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: mrtrVersion})
	if err != nil {
		c.failed = append(c.failed, fmt.Sprintf("connect a second session: %v", err))
		return
	}
	defer session.Close()
	calls(session)
}

// brokenRetry answers get_weather's input requests by hand and retries with the wrong requestState.
func brokenRetry(ctx context.Context, url string) error {
	client := newClient(&mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: mrtrVersion})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer session.Close()
	params := &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"location": "Paris"}}
	first, err := session.CallTool(ctx, params)
	if err != nil {
		return err
	}
	if !first.NeedsInput() {
		return fmt.Errorf("get_weather asked nothing")
	}
	responses := mcp.InputResponseMap{}
	for key := range first.InputRequests {
		responses[key] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"units": "celsius"}}
	}
	retry := *params
	retry.InputResponses = responses
	retry.RequestState = "not-the-state-it-was-given"
	_, _ = session.CallTool(ctx, &retry) // the server may refuse it: the fault is the point
	return nil
}

func main() {
	args := os.Args[1:]
	broken := len(args) == 4 && args[2] == "--break" && args[3] == "request-state" && args[1] == mrtrVersion
	if len(args) != 2 && !broken {
		fmt.Fprintln(os.Stderr, "usage: go-client URL 2026-07-28|2025-11-25 [--break request-state (2026-07-28 only)]")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var err error
	if broken {
		err = brokenRetry(ctx, args[0])
	} else {
		err = scenarios(ctx, args[0], args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
