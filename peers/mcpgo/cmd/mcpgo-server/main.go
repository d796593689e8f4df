// An MCP server on mark3labs/mcp-go (github.com/mark3labs/mcp-go v1.2.1), written the way its
// documentation and examples/multi_round_trip show: every handler that lacks something returns
// server.NewInputRequestBuilder(state).Elicit/Sample/Roots(...).ToolResult() (PromptResult for a
// prompt), and reads the answers on the retry with server.ElicitationResponse, SamplingResponse and
// RootsResponse.
//
//	mcpgo-server PORT    # Streamable HTTP at http://127.0.0.1:PORT/mcp
//
// On 2026-07-28 the SDK sends these as input_required results and the client retries. On 2025-11-25
// the SDK's own bridge (resolveMultiRoundTrip) asks them as server requests on the call's stream and
// calls the handler again with the answers, round after round: one handler serves both eras.
//
// reserve sheds load once on 2026-07-28 (a round with a requestState and no inputRequests, the
// SDK's "retry later"); reserve_busy sheds it five times in a row, more than the mcp-go client takes
// (it gives up at the third: peers/run shows mrtr proxy --repair state-only-retry finishing it). On
// 2025-11-25 both answer at once (the SDK's bridge refuses a state-only round: ErrLoadShedding).
//
// Two things mcp-go cannot do, said where they matter: a resource handler registered with
// AddResource returns contents only, so notes://today's first round is written here from the SDK's
// InputRequestBuilder.ResourceResult ("for servers that construct resources/read responses
// directly", its doc says) and its retry goes to the SDK's handler; and a handler's error is always
// answered -32603 (handlerError), so this server cannot refuse with -32021 (peers/run:
// SERVER_CANNOT no_capability, form_only).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const signInURL = "https://example.com/sign-in"

func modern(ctx context.Context) bool {
	return mcp.IsModernProtocol(server.RequestProtocolVersion(ctx))
}

// form asks for one string field, named key.
func form(key, message string) mcp.ElicitationParams {
	return mcp.ElicitationParams{
		Mode:    mcp.ElicitationModeForm,
		Message: message,
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{key: map[string]any{"type": "string"}},
			"required":   []string{key},
		},
	}
}

// accepted is the value of field key in the accepted answer to the input request key, if any.
func accepted(responses mcp.InputResponses, key string) (string, bool) {
	answer := server.ElicitationResponse(responses, key)
	if answer == nil || answer.Action != mcp.ElicitationResponseActionAccept {
		return "", false
	}
	content, _ := answer.Content.(map[string]any)
	value, ok := content[key].(string)
	return value, ok
}

func getWeather(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	units, ok := accepted(req.Params.InputResponses, "units")
	if !ok {
		return server.NewInputRequestBuilder("").Elicit("units", form("units", "Which units?")).ToolResult(), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("%s: 22 degrees %s", req.GetString("location", ""), units)), nil
}

func bookTrip(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	date, ok := accepted(req.Params.InputResponses, "date")
	if !ok && strings.HasPrefix(req.Params.RequestState, "date=") {
		date, ok = strings.TrimPrefix(req.Params.RequestState, "date="), true
	}
	if !ok {
		return server.NewInputRequestBuilder("").Elicit("date", form("date", "When?")).ToolResult(), nil
	}
	seat, ok := accepted(req.Params.InputResponses, "seat")
	if !ok {
		return server.NewInputRequestBuilder("date="+date).
			Elicit("seat", form("seat", fmt.Sprintf("Which seat on %s?", date))).ToolResult(), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("%s on %s, seat %s", req.GetString("destination", ""), date, seat)), nil
}

func summarize(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answer := server.SamplingResponse(req.Params.InputResponses, "summary")
	if answer == nil {
		ask := mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("Summarise: " + req.GetString("text", ""))}},
			MaxTokens: 50,
		}
		return server.NewInputRequestBuilder("").Sample("summary", ask).ToolResult(), nil
	}
	summary := ""
	raw, _ := json.Marshal(answer.Content)
	var one struct {
		Text string `json:"text"`
	}
	var many []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &one) == nil {
		summary = one.Text
	} else if json.Unmarshal(raw, &many) == nil {
		for _, c := range many {
			summary += c.Text
		}
	}
	return mcp.NewToolResultText("summary: " + summary), nil
}

func listRoots(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answer := server.RootsResponse(req.Params.InputResponses, "roots")
	if answer == nil {
		return server.NewInputRequestBuilder("").Roots("roots").ToolResult(), nil
	}
	uris := make([]string, 0, len(answer.Roots))
	for _, r := range answer.Roots {
		uris = append(uris, r.URI)
	}
	return mcp.NewToolResultText(strings.Join(uris, ", ")), nil
}

// shed answers a table's reservation after `rounds` state-only rounds (SEP-2322 Use Case 2): each
// says in its requestState how far this instance got; any instance picks it up from there.
func shed(rounds int) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		table := req.GetString("table", "")
		if modern(ctx) {
			done := 0
			if req.Params.RequestState != "" {
				if _, err := fmt.Sscanf(req.Params.RequestState, "table "+table+" held %d", &done); err != nil {
					return nil, fmt.Errorf("not the state of this reservation: %q", req.Params.RequestState)
				}
			}
			if done < rounds {
				state := fmt.Sprintf("table %s held %d", table, done+1)
				return server.NewInputRequestBuilder(state).ToolResult(), nil
			}
		}
		return mcp.NewToolResultText(fmt.Sprintf("table %s reserved", table)), nil
	}
}

func signIn(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answer := server.ElicitationResponse(req.Params.InputResponses, "sign_in")
	if answer == nil {
		ask := mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, Message: "Sign in", URL: signInURL}
		if !modern(ctx) {
			ask.ElicitationID = "sign-in-1" // 2025-11-25's URL mode needs one; 2026-07-28 removed it
		}
		return server.NewInputRequestBuilder("").Elicit("sign_in", ask).ToolResult(), nil
	}
	if answer.Action != mcp.ElicitationResponseActionAccept {
		return mcp.NewToolResultText("not signed in: " + string(answer.Action)), nil
	}
	return mcp.NewToolResultText("signed in"), nil
}

func review(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	pr := req.Params.Arguments["pr"]
	focus, ok := accepted(req.Params.InputResponses, "focus")
	if !ok {
		return server.NewInputRequestBuilder("").Elicit("focus", form("focus", fmt.Sprintf("Focus of the review of %s?", pr))).PromptResult(), nil
	}
	message := mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf("Review %s: %s", pr, focus)))
	return mcp.NewGetPromptResult("review", []mcp.PromptMessage{message}), nil
}

// notes answers the retry of notes://today (the first round is asked by askNotes).
func notes(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	topic, ok := accepted(req.Params.InputResponses, "topic")
	if !ok {
		return nil, fmt.Errorf("no topic in the answers")
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "notes on " + topic}}, nil
}

// askNotes writes the first round of a 2026-07-28 resources/read of notes://today, which
// AddResource's handlers cannot ask: the SDK's InputRequestBuilder.ResourceResult, as a JSON-RPC
// response. Anything else goes to the SDK.
func askNotes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !mcp.IsModernProtocol(r.Header.Get("MCP-Protocol-Version")) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var request struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				URI            string          `json:"uri"`
				InputResponses json.RawMessage `json:"inputResponses"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &request) != nil || request.Method != string(mcp.MethodResourcesRead) ||
			request.Params.URI != "notes://today" || len(request.Params.InputResponses) > 0 {
			next.ServeHTTP(w, r)
			return
		}
		result := server.NewInputRequestBuilder("").Elicit("topic", form("topic", "Notes on which topic?")).ResourceResult()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": request.ID, "result": result})
	})
}

func newServer() *server.MCPServer {
	s := server.NewMCPServer("mcpgo-peer", "1.0.0",
		server.WithToolCapabilities(false), server.WithPromptCapabilities(false), server.WithResourceCapabilities(false, false))
	s.AddTool(mcp.NewTool("get_weather", mcp.WithDescription("one round"), mcp.WithString("location")), getWeather)
	s.AddTool(mcp.NewTool("book_trip", mcp.WithDescription("two rounds"), mcp.WithString("destination")), bookTrip)
	s.AddTool(mcp.NewTool("summarize", mcp.WithDescription("sampling"), mcp.WithString("text")), summarize)
	s.AddTool(mcp.NewTool("list_roots", mcp.WithDescription("roots")), listRoots)
	s.AddTool(mcp.NewTool("reserve", mcp.WithDescription("load shedding: a round with state only"), mcp.WithString("table")), shed(1))
	s.AddTool(mcp.NewTool("reserve_busy", mcp.WithDescription("load shedding five rounds in a row"), mcp.WithString("table")), shed(5))
	s.AddTool(mcp.NewTool("sign_in", mcp.WithDescription("URL elicitation")), signIn)
	s.AddPrompt(mcp.NewPrompt("review", mcp.WithPromptDescription("asks first"), mcp.WithArgument("pr")), review)
	s.AddResource(mcp.NewResource("notes://today", "notes"), notes)
	return s
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: mcpgo-server PORT")
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", askNotes(server.NewStreamableHTTPServer(newServer(), server.WithEndpointPath("/mcp"))))
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[1], mux))
}
