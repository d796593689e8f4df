// An MCP client on mark3labs/mcp-go (github.com/mark3labs/mcp-go v1.2.1): runs every scenario
// against a server, as peers/go/cmd/go-client does.
//
//	mcpgo-client URL PROTOCOL                          # 2026-07-28 or 2025-11-25
//	mcpgo-client URL 2026-07-28 --break request-state
//
// It declares elicitation (form and url), sampling and roots, answers every ask (a URL-mode
// elicitation with an accept) and checks each result; on 2026-07-28 two more clients declare less
// (nothing; form elicitation only) and must be refused with -32021 where the server cannot serve
// them. The scenarios after the first ones run as peers/run lists them in PEER_SCENARIOS (all by
// default; reserve_busy, five state-only rounds in a row, only when listed). On 2026-07-28 the
// SDK's retry loop (client/mrtr.go, multiRoundTrip) answers each input_required result with these
// handlers and retries the call; on 2025-11-25 the same handlers answer the server's requests.
// With `--break request-state` a transport wrapped around the SDK's own rewrites the requestState
// of the SDK's first retry to one it was not given: the one fault mrtr must then report. Exit
// status 0 when every scenario got its expected answer.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

const signInURL = "https://example.com/sign-in"

// extra reports whether the pairing runs the scenario (PEER_SCENARIOS; all but reserve_busy when unset).
func extra(scenario string) bool {
	list, set := os.LookupEnv("PEER_SCENARIOS")
	if !set {
		return scenario != "reserve_busy"
	}
	return slices.Contains(strings.Split(list, ","), scenario)
}

var answers = map[string]string{"units": "celsius", "date": "2026-12-01", "seat": "12A", "focus": "tests", "topic": "mrtr"}

type handlers struct{}

func (handlers) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if req.Params.Mode == mcp.ElicitationModeURL {
		if req.Params.Message != "Sign in" || req.Params.URL != signInURL {
			return nil, fmt.Errorf("an unexpected URL elicitation: %q %q", req.Params.Message, req.Params.URL)
		}
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}, nil
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
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}, nil
}

func (handlers) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("short")},
		Model:           "m-1",
	}, nil
}

func (handlers) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work", Name: "work"}}}, nil
}

// brokenRetry is the SDK's own transport but for the first retry (a tools/call carrying
// inputResponses), whose requestState it replaces.
type brokenRetry struct {
	*transport.StreamableHTTP
	once sync.Once
}

func (b *brokenRetry) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if request.Method == string(mcp.MethodToolsCall) {
		raw, err := json.Marshal(request.Params)
		if err != nil {
			return nil, err
		}
		var params map[string]any
		if err := json.Unmarshal(raw, &params); err != nil {
			return nil, err
		}
		if _, retry := params["inputResponses"]; retry {
			b.once.Do(func() {
				params["requestState"] = "not-the-state-it-was-given"
				request.Params = params
			})
		}
	}
	return b.StreamableHTTP.SendRequest(ctx, request)
}

// connect starts a client on its own transport, declaring capabilities and answering with
// handlers (all three when full), on protocol.
func connect(ctx context.Context, url, protocol string, full bool, caps mcp.ClientCapabilities, wrap func(*transport.StreamableHTTP) transport.Interface) (*client.Client, error) {
	var listen []transport.StreamableHTTPCOption
	if !mcp.IsModernProtocol(protocol) {
		// The SDK's server sends sampling/createMessage and roots/list on the GET stream (FINDINGS
		// in peers/run): a 2025-11-25 client listens there, as the SDK offers.
		listen = append(listen, transport.WithContinuousListening())
	}
	trans, err := transport.NewStreamableHTTP(url, listen...)
	if err != nil {
		return nil, err
	}
	options := []client.ClientOption{client.WithProtocolVersion(protocol), client.WithClientCapabilities(caps)}
	if full {
		options = append(options, client.WithSamplingHandler(handlers{}), client.WithRootsHandler(handlers{}))
	}
	if caps.Elicitation != nil {
		options = append(options, client.WithElicitationHandler(handlers{}))
	}
	var t transport.Interface = trans
	if wrap != nil {
		t = wrap(trans)
	}
	c := client.NewClient(t, options...)
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = protocol
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-peer", Version: "1.0.0"}
	got, err := c.Initialize(ctx, init)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if got.ProtocolVersion != protocol {
		return nil, fmt.Errorf("negotiated %s, not %s", got.ProtocolVersion, protocol)
	}
	return c, nil
}

var everything = mcp.ClientCapabilities{
	Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
	Sampling:    &mcp.SamplingCapability{},
}

func callTool(ctx context.Context, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
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
	t, ok := result.Content[0].(mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("not text: %T", result.Content[0])
	}
	return t.Text, nil
}

type check struct{ failed []string }

// refused holds that err is the -32021 error. (mcp-go's client reads only a data.capability,
// which the spec does not define, so the data's requiredCapabilities are not visible here.)
func (c *check) refused(what string, result *mcp.CallToolResult, err error) {
	if !mcp.IsMissingRequiredClientCapability(err) {
		raw, _ := json.Marshal(result)
		c.failed = append(c.failed, fmt.Sprintf("%s: expected error -32021, got %v (result %s)", what, err, raw))
		return
	}
	fmt.Printf("ok   %s: -32021\n", what)
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
	session, err := connect(ctx, url, protocol, true, everything, nil)
	if err != nil {
		return err
	}
	defer session.Close()
	call := func(name string, args map[string]any) (string, error) {
		return text(callTool(ctx, session, name, args))
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
	if mcp.IsModernProtocol(protocol) {
		var req mcp.GetPromptRequest
		req.Params.Name = "review"
		req.Params.Arguments = map[string]string{"pr": "12"}
		prompt, err := session.GetPrompt(ctx, req)
		if err == nil && len(prompt.Messages) == 0 {
			err = fmt.Errorf("no messages")
		}
		var got string
		if err == nil {
			if t, ok := prompt.Messages[0].Content.(mcp.TextContent); ok {
				got = t.Text
			}
			if !strings.Contains(got, "tests") {
				err = fmt.Errorf("%q does not mention tests", got)
			}
		}
		c.equal("review", got, err, got)
		var read mcp.ReadResourceRequest
		read.Params.URI = "notes://today"
		notes, err := session.ReadResource(ctx, read)
		if err == nil && len(notes.Contents) == 0 {
			err = fmt.Errorf("no contents")
		}
		got = ""
		if err == nil {
			if t, ok := notes.Contents[0].(mcp.TextResourceContents); ok {
				got = t.Text
			}
		}
		c.equal("notes://today", got, err, "notes on mrtr")
	}
	if extra("reserve") {
		got, err = call("reserve", map[string]any{"table": "7"})
		c.equal("reserve", got, err, "table 7 reserved")
	}
	if extra("reserve_busy") {
		got, err = call("reserve_busy", map[string]any{"table": "7"})
		c.equal("reserve_busy", got, err, "table 7 reserved")
	}
	if extra("sign_in") {
		got, err = call("sign_in", map[string]any{})
		c.equal("sign_in", got, err, "signed in")
	}
	if mcp.IsModernProtocol(protocol) && extra("no_capability") {
		lesser(ctx, &c, url, false, mcp.ClientCapabilities{}, func(s *client.Client) {
			result, err := callTool(ctx, s, "get_weather", map[string]any{"location": "Paris"})
			c.refused("get_weather declaring nothing", result, err)
		})
	}
	if mcp.IsModernProtocol(protocol) && extra("form_only") {
		formOnly := mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}}}
		lesser(ctx, &c, url, false, formOnly, func(s *client.Client) {
			result, err := callTool(ctx, s, "summarize", map[string]any{"text": "a long text"})
			c.refused("summarize declaring form elicitation only", result, err)
			got, err := text(callTool(ctx, s, "get_weather", map[string]any{"location": "Paris"}))
			c.equal("get_weather declaring form elicitation only", got, err, "Paris: 22 degrees celsius")
		})
	}
	if len(c.failed) > 0 {
		return fmt.Errorf("%s", strings.Join(c.failed, "\n"))
	}
	return nil
}

// lesser runs calls on a client of its own that declares only caps.
func lesser(ctx context.Context, c *check, url string, full bool, caps mcp.ClientCapabilities, calls func(*client.Client)) {
	s, err := connect(ctx, url, mcp.ProtocolVersion20260728, full, caps, nil)
	if err != nil {
		c.failed = append(c.failed, fmt.Sprintf("connect a second client: %v", err))
		return
	}
	defer s.Close()
	calls(s)
}

// broken calls get_weather with the SDK's own retry loop, its first retry's requestState replaced.
func broken(ctx context.Context, url string) error {
	wrap := func(t *transport.StreamableHTTP) transport.Interface { return &brokenRetry{StreamableHTTP: t} }
	session, err := connect(ctx, url, mcp.ProtocolVersion20260728, true, everything, wrap)
	if err != nil {
		return err
	}
	defer session.Close()
	_, _ = callTool(ctx, session, "get_weather", map[string]any{"location": "Paris"}) // the server may refuse it: the fault is the point
	return nil
}

func main() {
	args := os.Args[1:]
	isBroken := len(args) == 4 && args[2] == "--break" && args[3] == "request-state" && args[1] == mcp.ProtocolVersion20260728
	if len(args) != 2 && !isBroken {
		fmt.Fprintln(os.Stderr, "usage: mcpgo-client URL 2026-07-28|2025-11-25 [--break request-state (2026-07-28 only)]")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var err error
	if isBroken {
		err = broken(ctx, args[0])
	} else {
		err = scenarios(ctx, args[0], args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
