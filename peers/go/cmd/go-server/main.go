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
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const mrtrVersion = "2026-07-28"

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

type tripState struct {
	Date string `json:"date"`
}

func getWeather(_ context.Context, req *mcp.CallToolRequest, args weatherArgs) (*mcp.CallToolResult, any, error) {
	units, ok := accepted(req.Params.InputResponses, "units")
	if !ok {
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
