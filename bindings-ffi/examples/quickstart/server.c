/* Quickstart: an MCP server with one tool that asks the user's name, over HTTP
 * (POSIX sockets, one connection at a time; any HTTP server does: mrtr opens none).
 *
 * The first `tools/call greet` is answered `input_required` (mrtr_respond); the
 * client's retry carries the answer, which mrtr_resume reads, and the call
 * completes (mrtr_complete). The server keeps nothing between the two requests.
 *
 *   cc server.c -o server $(pkg-config --cflags --libs mrtr libcjson) && ./server 8000
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <cJSON.h>
#include <mrtr.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define P MRTR_PROTOCOL_2026_07_28
static const char *QUESTION =
    "{\"name\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"What is your name?\","
    "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}}}";
static const char *DISCOVER = "{\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"quickstart\",\"version\":\"1.0.0\"}}";
static const char *TOOLS = "{\"tools\":[{\"name\":\"greet\",\"inputSchema\":{\"type\":\"object\"}}]}";

/* The error response to `id` for `rule` (its `message`, its `data` or NULL), and its HTTP status. */
static char *refuse(const char *id, const char *rule, const char *message, const char *data, int *status) {
  mrtr_buf out = {0, 0};
  mrtr_error_response(id, strlen(id), rule, strlen(rule), message, strlen(message), data, data ? strlen(data) : 0, P,
                      NULL, &out);
  cJSON *both = cJSON_Parse((const char *)out.ptr); /* {"response", "status"} */
  mrtr_buf_free(&out);
  *status = cJSON_GetObjectItem(both, "status")->valueint;
  char *response = cJSON_PrintUnformatted(cJSON_GetObjectItem(both, "response"));
  cJSON_Delete(both);
  return response;
}

/* greet: input_required until the request carries the answer, then the greeting. */
static mrtr_status greet(const char *request, size_t len, mrtr_buf *out) {
  mrtr_buf got;
  mrtr_status s = mrtr_resume(request, len, QUESTION, strlen(QUESTION), P, NULL, &got); /* the answers it carries */
  if (s != MRTR_OK) return s;
  cJSON *resumed = cJSON_Parse((const char *)got.ptr);
  mrtr_buf_free(&got);
  if (cJSON_GetArraySize(cJSON_GetObjectItem(resumed, "missing")) > 0) {
    cJSON_Delete(resumed);
    return mrtr_respond(request, len, QUESTION, strlen(QUESTION), NULL, 0, P, NULL, out); /* input_required */
  }
  cJSON *answer = cJSON_GetObjectItem(cJSON_GetObjectItem(resumed, "responses"), "name");
  cJSON *name = cJSON_GetObjectItem(cJSON_GetObjectItem(answer, "content"), "name");
  int accepted = cJSON_IsString(cJSON_GetObjectItem(answer, "action")) &&
                 strcmp(cJSON_GetObjectItem(answer, "action")->valuestring, "accept") == 0 && cJSON_IsString(name);
  char text[256];
  snprintf(text, sizeof text, "Hello, %s!", accepted ? name->valuestring : "stranger");
  cJSON *result = cJSON_CreateObject(), *item = cJSON_CreateObject();
  cJSON_AddStringToObject(item, "type", "text");
  cJSON_AddStringToObject(item, "text", text);
  cJSON_AddItemToArray(cJSON_AddArrayToObject(result, "content"), item);
  char *body = cJSON_PrintUnformatted(result);
  s = mrtr_complete(request, len, body, strlen(body), P, NULL, out);
  cJSON_free(body);
  cJSON_Delete(result);
  cJSON_Delete(resumed);
  return s;
}

/* One JSON-RPC request and its header fields (a JSON object) in; the response (free it) and the HTTP status out. */
static char *handle(const char *request, size_t len, const char *headers, int *status) {
  cJSON *message = cJSON_ParseWithLength(request, len);
  char *id = cJSON_PrintUnformatted(cJSON_GetObjectItem(message, "id")), *response = NULL;
  const char *method = cJSON_GetStringValue(cJSON_GetObjectItem(message, "method"));
  const char *tool = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(message, "params"), "name"));
  mrtr_buf out = {0, 0};
  mrtr_status s = mrtr_check_request(request, len, headers, strlen(headers), "[\"2026-07-28\"]", 14, P, NULL, &out);
  *status = 200;
  if (s == MRTR_OK && out.ptr) { /* refused: {"rule", "code", "message", "data"} */
    cJSON *r = cJSON_Parse((const char *)out.ptr);
    char *data = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "data"));
    response = refuse(id, cJSON_GetStringValue(cJSON_GetObjectItem(r, "rule")),
                      cJSON_GetStringValue(cJSON_GetObjectItem(r, "message")), data, status);
    cJSON_free(data);
    cJSON_Delete(r);
    mrtr_buf_free(&out);
  } else if (s == MRTR_OK) {
    if (method && tool && strcmp(method, "tools/call") == 0 && strcmp(tool, "greet") == 0)
      s = greet(request, len, &out);
    else if (method && strcmp(method, "tools/list") == 0)
      s = mrtr_complete(request, len, TOOLS, strlen(TOOLS), P, NULL, &out);
    else if (method && strcmp(method, "server/discover") == 0) /* what `mrtr bridge` asks first */
      s = mrtr_discover(request, len, DISCOVER, strlen(DISCOVER), P, NULL, &out);
    else
      s = MRTR_ERR_USAGE_UNKNOWN_HANDLE, *status = 404;
  }
  if (!response && s == MRTR_OK) response = strdup((const char *)out.ptr);
  else if (!response && *status == 404) {
    response = malloc(strlen(id) + 96);
    sprintf(response, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32601,\"message\":\"no such method here\"}}", id);
  } else if (!response)
    response = refuse(id, mrtr_rule_str(s), mrtr_last_error_message(), NULL, status); /* a refusal */
  mrtr_buf_free(&out);
  cJSON_free(id);
  cJSON_Delete(message);
  return response;
}

/* Reads one HTTP request from `fd` (header fields lower-cased into a JSON object), answers it. */
static void answer_one(int fd) {
  static char buf[1 << 20];
  size_t got = 0;
  char *end = NULL;
  ssize_t n;
  while (!end && got < sizeof buf - 1 && (n = read(fd, buf + got, sizeof buf - 1 - got)) > 0) {
    buf[got += (size_t)n] = 0;
    end = strstr(buf, "\r\n\r\n");
  }
  if (!end) return;
  cJSON *headers = cJSON_CreateObject();
  size_t length = 0;
  for (char *line = strstr(buf, "\r\n") + 2, *eol; line < end; line = eol + 2) {
    char *colon = strchr(line, ':');
    eol = strstr(line, "\r\n");
    if (!colon || colon > eol) continue;
    *colon = *eol = 0;
    for (char *c = line; *c; c++) *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    cJSON_AddStringToObject(headers, line, colon + 1 + strspn(colon + 1, " "));
    if (strcmp(line, "content-length") == 0) length = strtoul(colon + 1, NULL, 10);
  }
  char *body = end + 4;
  while ((size_t)(buf + got - body) < length && got < sizeof buf - 1 && (n = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
    got += (size_t)n;
  char *fields = cJSON_PrintUnformatted(headers), head[160], *response = NULL;
  int status = 202;
  cJSON *message = cJSON_ParseWithLength(body, length);
  if (cJSON_GetObjectItem(message, "id") && cJSON_GetObjectItem(message, "method")) /* else a notification */
    response = handle(body, length, fields, &status);
  size_t size = response ? strlen(response) : 0;
  int k = snprintf(head, sizeof head, "HTTP/1.1 %d MCP\r\ncontent-type: application/json\r\ncontent-length: %zu\r\nconnection: close\r\n\r\n", status, size);
  if (write(fd, head, (size_t)k) < 0 || (size && write(fd, response, size) < 0)) perror("write");
  free(response);
  cJSON_Delete(message);
  cJSON_free(fields);
  cJSON_Delete(headers);
}

int main(int argc, char **argv) {
  int listener = socket(AF_INET, SOCK_STREAM, 0), on = 1;
  struct sockaddr_in at = {0};
  socklen_t size = sizeof at;
  at.sin_family = AF_INET;
  at.sin_port = htons((unsigned short)atoi(argc > 1 ? argv[1] : "8000"));
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (bind(listener, (struct sockaddr *)&at, sizeof at) != 0 || listen(listener, 16) != 0) return perror("listen"), 1;
  getsockname(listener, (struct sockaddr *)&at, &size);
  printf("listening on http://127.0.0.1:%d/mcp\n", ntohs(at.sin_port));
  fflush(stdout);
  for (int fd; (fd = accept(listener, NULL, NULL)) >= 0; close(fd)) answer_one(fd);
  return 0;
}
