/* Quickstart: a client calling the `greet` tool of server.c, over HTTP (POSIX
 * sockets; any HTTP client does: mrtr opens none).
 *
 * An mrtr_session writes the request (a fresh id, the `_meta` of the
 * capabilities declared once); an mrtr_operation carries it through every
 * round: it says what to send, you send it and hand back the response; when
 * the server asks, you answer, and it sends the retry (a new id, the answers,
 * the exact `requestState`, the MCP header fields) until the final response.
 *
 *   cc client.c -o client $(pkg-config --cflags --libs mrtr libcjson) && ./client http://127.0.0.1:8000/mcp
 */
#define _POSIX_C_SOURCE 200809L
#include <cJSON.h>
#include <mrtr.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int fail(mrtr_status s) {
  fprintf(stderr, "%s: %s\n", mrtr_rule_str(s), mrtr_last_error_message());
  return 1;
}

/* Sends the HTTP request `out` describes ({"exchange", "method", "url", "headers", "body"}; http:// only) and
 * hands its response to the operation. */
static mrtr_status send_one(mrtr_operation *op, const cJSON *out) {
  uint64_t exchange = (uint64_t)cJSON_GetObjectItem(out, "exchange")->valuedouble;
  char host[256] = "", port[8] = "80", *path;
  const char *url = cJSON_GetStringValue(cJSON_GetObjectItem(out, "url")) + strlen("http://");
  size_t host_len = strcspn(url, ":/");
  memcpy(host, url, host_len < 255 ? host_len : 255);
  if (url[host_len] == ':') snprintf(port, sizeof port, "%.*s", (int)strcspn(url + host_len + 1, "/"), url + host_len + 1);
  path = strchr(url, '/');
  char *body = cJSON_PrintUnformatted(cJSON_GetObjectItem(out, "body")), request[8192];
  int n = snprintf(request, sizeof request, "%s %s HTTP/1.1\r\nhost: %s\r\nconnection: close\r\ncontent-length: %zu\r\n",
                   cJSON_GetStringValue(cJSON_GetObjectItem(out, "method")), path ? path : "/", host, body ? strlen(body) : 0);
  const cJSON *field;
  cJSON_ArrayForEach(field, cJSON_GetObjectItem(out, "headers")) {
    n += snprintf(request + n, sizeof request - (size_t)n, "%s: %s\r\n", field->string, field->valuestring);
  }
  n += snprintf(request + n, sizeof request - (size_t)n, "\r\n%s", body ? body : "");
  cJSON_free(body);

  struct addrinfo *at, hints = {0};
  hints.ai_socktype = SOCK_STREAM;
  static char response[1 << 20];
  size_t got = 0;
  ssize_t r;
  int fd = getaddrinfo(host, port, &hints, &at) == 0 ? socket(at->ai_family, SOCK_STREAM, 0) : -1;
  if (fd >= 0 && connect(fd, at->ai_addr, at->ai_addrlen) == 0 && write(fd, request, (size_t)n) == n)
    while (got < sizeof response - 1 && (r = read(fd, response + got, sizeof response - 1 - got)) > 0) got += (size_t)r;
  if (fd >= 0) close(fd), freeaddrinfo(at);
  response[got] = 0;
  char *end = strstr(response, "\r\n\r\n");
  if (end) { /* the status, the header fields as a JSON object, the body */
    cJSON *headers = cJSON_CreateObject();
    for (char *line = strstr(response, "\r\n") + 2, *eol; line < end; line = eol + 2) {
      char *colon = strchr(line, ':');
      eol = strstr(line, "\r\n");
      if (!colon || colon > eol) continue;
      *colon = *eol = 0;
      cJSON_AddStringToObject(headers, line, colon + 1 + strspn(colon + 1, " "));
    }
    char *fields = cJSON_PrintUnformatted(headers);
    mrtr_status s = mrtr_operation_handle_head(op, exchange, (uint16_t)atoi(response + 9), fields, strlen(fields), now_ms());
    if (s == MRTR_OK)
      s = mrtr_operation_handle_body(op, exchange, (const uint8_t *)end + 4, got - (size_t)(end + 4 - response), now_ms());
    cJSON_free(fields);
    cJSON_Delete(headers);
    if (s != MRTR_OK) return s;
  } /* else no response: the operation decides whether to send it again */
  return mrtr_operation_handle_end(op, exchange, now_ms());
}

/* The user's answer to one question (an elicitation here), from the terminal: `{"action", "content"}`. */
static char *ask_the_user(const cJSON *question) {
  char name[200] = "";
  printf("%s ", cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(question, "params"), "message")));
  fflush(stdout);
  if (fgets(name, sizeof name, stdin)) name[strcspn(name, "\r\n")] = 0;
  cJSON *answer = cJSON_CreateObject();
  cJSON_AddStringToObject(answer, "action", "accept");
  cJSON_AddStringToObject(cJSON_AddObjectToObject(answer, "content"), "name", name);
  char *text = cJSON_PrintUnformatted(answer);
  cJSON_Delete(answer);
  return text;
}

int main(int argc, char **argv) {
  const char *url = argc > 1 ? argv[1] : "http://127.0.0.1:8000/mcp";
  const char *declared = "{\"capabilities\":{\"elicitation\":{}}}";
  mrtr_session *session;
  mrtr_operation *op;
  mrtr_buf request, buf;
  mrtr_status s = mrtr_session_new(declared, strlen(declared), &session);
  if (s == MRTR_OK) s = mrtr_session_call_tool(session, "greet", 5, "{}", 2, &request);
  if (s != MRTR_OK) return fail(s);
  char config[1024];
  snprintf(config, sizeof config, "{\"mode\":\"2026-07-28\",\"url\":\"%s\"}", url);
  s = mrtr_operation_new(config, strlen(config), (const char *)request.ptr, request.len, now_ms(), &op);
  mrtr_buf_free(&request);
  int done = 0;
  while (s == MRTR_OK && !done) {
    while (s == MRTR_OK && (s = mrtr_operation_poll_transmit(op, &buf)) == MRTR_OK && buf.ptr) { /* send each */
      cJSON *out = cJSON_Parse((const char *)buf.ptr);
      mrtr_buf_free(&buf);
      s = send_one(op, out);
      cJSON_Delete(out);
    }
    if (s != MRTR_OK || (s = mrtr_operation_poll_event(op, &buf)) != MRTR_OK) break;
    cJSON *event = buf.ptr ? cJSON_Parse((const char *)buf.ptr) : NULL;
    mrtr_buf_free(&buf);
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(event, "type"));
    if (!event) { /* nothing to do until the time the operation names (a wait before a resend) */
      bool set;
      uint64_t at;
      s = mrtr_operation_poll_timeout(op, &set, &at);
      if (s == MRTR_OK && !set) fprintf(stderr, "the operation stalled\n"), done = 2;
      uint64_t wait = s == MRTR_OK && set && at > now_ms() ? at - now_ms() : 0;
      struct timespec pause = {(time_t)(wait / 1000), (long)(wait % 1000) * 1000000};
      nanosleep(&pause, NULL);
      if (s == MRTR_OK && set) s = mrtr_operation_handle_timeout(op, now_ms());
    } else if (strcmp(type, "inputRequired") == 0) { /* the server asks: answer each key */
      const cJSON *question;
      cJSON_ArrayForEach(question, cJSON_GetObjectItem(event, "requests")) {
        char *answer = ask_the_user(question);
        if (s == MRTR_OK) s = mrtr_operation_answer(op, question->string, strlen(question->string), answer, strlen(answer), now_ms());
        cJSON_free(answer);
      }
    } else if (strcmp(type, "done") == 0) { /* the final response */
      const cJSON *result = cJSON_GetObjectItem(cJSON_GetObjectItem(event, "response"), "result");
      const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(result, "content"), 0), "text"));
      char *whole = cJSON_PrintUnformatted(cJSON_GetObjectItem(event, "response"));
      printf("%s\n", text ? text : whole);
      cJSON_free(whole);
      done = text ? 1 : 2;
    } else if (strcmp(type, "failed") == 0) {
      fprintf(stderr, "%s: %s\n", cJSON_GetStringValue(cJSON_GetObjectItem(event, "rule")), cJSON_GetStringValue(cJSON_GetObjectItem(event, "message")));
      done = 2;
    } /* else a notification, or a rule the server broke (the operation goes on) */
    cJSON_Delete(event);
  }
  mrtr_operation_free(op);
  mrtr_session_free(session);
  return s != MRTR_OK ? fail(s) : done == 1 ? 0 : 1;
}
