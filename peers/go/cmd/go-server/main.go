// An MCP server on the official Go SDK (github.com/modelcontextprotocol/go-sdk), written the way
// its documentation shows: every handler asks for what it lacks by returning a result whose
// InputRequests is set (with a RequestState when it has something to carry to the next round),
// and reads the answers from the retry's InputResponses.
//
//	go-server PORT    # Streamable HTTP at http://127.0.0.1:PORT/mcp
//
// On 2026-07-28 the SDK sends these as input_required results and the client retries. On
// 2025-11-25 the SDK's own bridge (serverMultiRoundTripMiddleware) turns the first round into
// ordinary server requests (elicitation/create, sampling/createMessage, roots/list) on the call's
// stream and calls the handler once more with the answers; book_trip's second round, which the
// bridge does not cover, is asked with ServerSession.Elicit, the SDK's ordinary server request.
//
// reserve sheds load on 2026-07-28: a round with a RequestState and an empty (non-nil)
// InputRequests, the SDK's way of saying "no questions" (a nil map makes the result complete).
// sign_in asks a URL-mode elicitation: in a 2026-07-28 round without ElicitationID, on 2025-11-25
// with ServerSession.Elicit and an ElicitationID. The SDK does not check the asks against the
// request's capabilities; as its documentation says (MissingRequiredClientCapabilityData), each
// handler reads ServerRequest.ClientCapabilities and refuses with -32021 what it cannot serve.
//
// The SDK serves 2026-07-28 only from a stateless handler and can send server requests only from
// a stateful one, so the endpoint holds one of each and routes by the MCP-Protocol-Version header.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	mrtrVersion = "2026-07-28"
	signInURL   = "https://example.com/sign-in"
)

// missing is the -32021 error naming the capabilities a request must declare, as the SDK documents.
func missing(what string, required *mcp.ClientCapabilities) error {
	data, err := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: required})
	if err != nil {
		return err
	}
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "the request does not declare the client capability " + what,
		Data:    data,
	}
}

// canElicit reports whether the request declared form elicitation (an elicitation capability
// with neither mode counts as form).
func canElicit(caps *mcp.ClientCapabilities) bool {
	return caps != nil && caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
}

var needsForm = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}

// form asks for one string field, named key.
func form(key, message string) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message: message,
		RequestedSchema: &jsonschema.Schema{
			Type:       "object",
			Properties: map[string]*jsonschema.Schema{key: {Type: "string"}},
			Required:   []string{key},
		},
	}
}

// accepted is the value of field key in the accepted answer to the input request key, if any.
func accepted(responses mcp.InputResponseMap, key string) (string, bool) {
	answer, ok := responses[key].(*mcp.ElicitResult)
	if !ok || answer.Action != "accept" {
		return "", false
	}
	value, ok := answer.Content[key].(string)
	return value, ok
}

func text(t string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t}}}
}

func legacy(session *mcp.ServerSession) bool {
	params := session.InitializeParams()
	return params != nil && params.ProtocolVersion < mrtrVersion
}

type weatherArgs struct {
	Location string `json:"location"`
}

type tripArgs struct {
	Destination string `json:"destination"`
}

type summarizeArgs struct {
	Text string `json:"text"`
}

type tableArgs struct {
	Table string `json:"table"`
}

type tripState struct {
	Date string `json:"date"`
}

func getWeather(_ context.Context, req *mcp.CallToolRequest, args weatherArgs) (*mcp.CallToolResult, any, error) {
	units, ok := accepted(req.Params.InputResponses, "units")
	if !ok {
		if !canElicit(req.ClientCapabilities()) {
			return nil, nil, missing("elicitation", needsForm)
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"units": form("units", "Which units?")}}, nil, nil
	}
	return text(fmt.Sprintf("%s: 22 degrees %s", args.Location, units)), nil, nil
}

func bookTrip(ctx context.Context, req *mcp.CallToolRequest, args tripArgs) (*mcp.CallToolResult, any, error) {
	date, ok := accepted(req.Params.InputResponses, "date")
	if !ok && req.Params.RequestState != "" {
		var state tripState
		if err := json.Unmarshal([]byte(req.Params.RequestState), &state); err != nil {
			return nil, nil, fmt.Errorf("bad requestState: %w", err)
		}
		date, ok = state.Date, state.Date != ""
	}
	if !ok {
		if !canElicit(req.ClientCapabilities()) {
			return nil, nil, missing("elicitation", needsForm)
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"date": form("date", "When?")}}, nil, nil
	}
	seat, ok := accepted(req.Params.InputResponses, "seat")
	if !ok {
		ask := form("seat", fmt.Sprintf("Which seat on %s?", date))
		if legacy(req.Session) {
			// The SDK's bridge covers one round; the second is an ordinary server request.
			answer, err := req.Session.Elicit(ctx, ask)
			if err != nil {
				return nil, nil, err
			}
			seat, ok = accepted(mcp.InputResponseMap{"seat": answer}, "seat")
			if !ok {
				return nil, nil, fmt.Errorf("no seat in %+v", answer)
			}
		} else {
			state, _ := json.Marshal(tripState{Date: date})
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"seat": ask}, RequestState: string(state)}, nil, nil
		}
	}
	return text(fmt.Sprintf("%s on %s, seat %s", args.Destination, date, seat)), nil, nil
}

func summarize(_ context.Context, req *mcp.CallToolRequest, args summarizeArgs) (*mcp.CallToolResult, any, error) {
	answer, ok := req.Params.InputResponses["summary"].(*mcp.CreateMessageWithToolsResult)
	if !ok {
		if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
			return nil, nil, missing("sampling", &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}})
		}
		ask := &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarise: " + args.Text}}},
			MaxTokens: 50,
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"summary": ask}}, nil, nil
	}
	var summary string
	for _, c := range answer.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			summary += t.Text
		}
	}
	return text("summary: " + summary), nil, nil
}

func listRoots(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	answer, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
	if !ok {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
	}
	uris := make([]string, 0, len(answer.Roots))
	for _, r := range answer.Roots {
		uris = append(uris, r.URI)
	}
	return text(strings.Join(uris, ", ")), nil, nil
}

// reserve sheds load (SEP-2322 Use Case 2): the first 2026-07-28 request answers with what this
// instance did so far in the requestState and no questions; any instance picks it up from there.
func reserve(_ context.Context, req *mcp.CallToolRequest, args tableArgs) (*mcp.CallToolResult, any, error) {
	held := "table " + args.Table + " held"
	if !legacy(req.Session) {
		switch req.Params.RequestState {
		case "":
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}, RequestState: held}, nil, nil
		case held:
		default: // the state comes back through the client: checked
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "not the state of this reservation"}
		}
	}
	return text(fmt.Sprintf("table %s reserved", args.Table)), nil, nil
}

func signIn(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	ask := &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: signInURL}
	var answer *mcp.ElicitResult
	if legacy(req.Session) {
		// 2025-11-25 URL mode needs an elicitationId: the SDK's ordinary server request.
		ask.ElicitationID = "sign-in-1"
		var err error
		if answer, err = req.Session.Elicit(ctx, ask); err != nil {
			return nil, nil, err
		}
	} else {
		var ok bool
		if answer, ok = req.Params.InputResponses["sign_in"].(*mcp.ElicitResult); !ok {
			if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil || caps.Elicitation.URL == nil {
				return nil, nil, missing("elicitation.url", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}})
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sign_in": ask}}, nil, nil
		}
	}
	if answer.Action != "accept" {
		return text("not signed in: " + answer.Action), nil, nil
	}
	return text("signed in"), nil, nil
}

func review(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	pr := req.Params.Arguments["pr"]
	focus, ok := accepted(req.Params.InputResponses, "focus")
	if !ok {
		ask := form("focus", fmt.Sprintf("Focus of the review of %s?", pr))
		return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"focus": ask}}, nil
	}
	message := &mcp.PromptMessage{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Review %s: %s", pr, focus)}}
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{message}}, nil
}

func notes(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	topic, ok := accepted(req.Params.InputResponses, "topic")
	if !ok {
		return &mcp.ReadResourceResult{InputRequests: mcp.InputRequestMap{"topic": form("topic", "Notes on which topic?")}}, nil
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "notes on " + topic}}}, nil
}

func server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "go-peer", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "get_weather", Description: "one round"}, getWeather)
	mcp.AddTool(s, &mcp.Tool{Name: "book_trip", Description: "two rounds"}, bookTrip)
	mcp.AddTool(s, &mcp.Tool{Name: "summarize", Description: "sampling"}, summarize)
	mcp.AddTool(s, &mcp.Tool{Name: "list_roots", Description: "roots"}, listRoots)
	mcp.AddTool(s, &mcp.Tool{Name: "reserve", Description: "load shedding: a round with state only"}, reserve)
	mcp.AddTool(s, &mcp.Tool{Name: "sign_in", Description: "URL elicitation"}, signIn)
	s.AddPrompt(&mcp.Prompt{Name: "review", Description: "asks first", Arguments: []*mcp.PromptArgument{{Name: "pr"}}}, review)
	s.AddResource(&mcp.Resource{Name: "notes", URI: "notes://today"}, notes)
	return s
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: go-server PORT")
	}
	s := server()
	get := func(*http.Request) *mcp.Server { return s }
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	stateful := mcp.NewStreamableHTTPHandler(get, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("MCP-Protocol-Version") >= mrtrVersion {
			stateless.ServeHTTP(w, r)
		} else {
			stateful.ServeHTTP(w, r)
		}
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[1], mux))
}
