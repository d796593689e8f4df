/*
 * C unit tests of the mrtr C API: status codes, null pointers, invalid
 * UTF-8, the bad messages of the core issue, the key ring and each state-*
 * failure, the attacks of security issue #13 the C surface carried (a
 * default anonymous subject, implicit `{}` params, a nonce seal in the
 * release library, rotation racing concurrent opens, replay, deployments
 * sharing a secret, a key past its seal budget), sealed rounds, the client
 * machine, the checker, the transports (the event-stream decoder and
 * encoder, the client machine of a call over HTTP, the server's stream and
 * incoming requests, checking HTTP entries under a transport: chunks that are
 * not UTF-8, a 1000-link Link header, NULL pointers), buffers and (in debug
 * builds) double frees. Run under
 * valgrind and AddressSanitizer by scripts/tests/40-c.sh, compiled with
 * MRTR_TEST_VECTORS against the test-vector library and without it against
 * the release library. Exit status 0 when every check holds.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */

#include <cJSON.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrtr.h"

static int checks = 0, failures = 0;

#define CHECK(cond)                                                        \
  do {                                                                     \
    checks++;                                                              \
    if (!(cond)) {                                                         \
      failures++;                                                          \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                      \
  } while (0)

#define EXPECT(expr, want)                                                                         \
  do {                                                                                             \
    mrtr_status got_ = (expr);                                                                     \
    checks++;                                                                                      \
    if (got_ != (want)) {                                                                          \
      failures++;                                                                                  \
      fprintf(stderr, "%s:%d: %s\n  = %d %s (%s), want %d %s\n", __FILE__, __LINE__, #expr, got_, \
              mrtr_rule_str(got_), mrtr_last_error_message(), (int)(want), mrtr_rule_str(want));   \
    }                                                                                              \
  } while (0)

/* A string literal or C string as (pointer, length). */
#define S(s) (s), strlen(s)

static const char *META =
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},\"roots\":{}}}";

/* A tools/call request with `extra` params ("\"k\":v," or "") before its _meta. */
static char *format_call(int id, const char *extra) {
  static const char *fmt =
      "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"get_weather\","
      "\"arguments\":{\"location\":\"NYC\"},%s%s}}";
  size_t n = strlen(fmt) + strlen(META) + strlen(extra) + 32;
  char *s = malloc(n);
  snprintf(s, n, fmt, id, extra, META);
  return s;
}

static const char *ASK =
    "{\"login\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"GitHub user?\","
    "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}}}";
static const char *ANSWER = "{\"login\":{\"action\":\"accept\",\"content\":{\"name\":\"octocat\"}}}";

/* The JSON in `buf` (freed). NULL if it is not JSON. */
static cJSON *take(mrtr_buf *buf) {
  cJSON *v = buf->ptr ? cJSON_ParseWithLength((const char *)buf->ptr, buf->len) : NULL;
  mrtr_buf_free(buf);
  return v;
}

static const cJSON *at(const cJSON *v, const char *key) { return cJSON_GetObjectItemCaseSensitive(v, key); }

static int is_empty(const mrtr_buf *b) { return b->ptr == NULL && b->len == 0; }

/* The key ring's algorithms, by name. */
#define ALG_AES_256_GCM "aes-256-gcm"
#define ALG_XCHACHA20_POLY1305 "xchacha20-poly1305"
#define ALG_XAES_256_GCM "xaes-256-gcm"

/* A deployment's round settings and a call, as the key ring's rounds read them. */
static const char *ROUNDS = "{\"ttl\":300,\"protocol\":\"2026-07-28\"}";

/* What a key ring's change that answers yes or no gives when it answered no (not a status of the library). */
#define NOT_DONE (-100)

/* The binding (JSON text, valid until 16 more are made) of a tools/call of `target` with arguments
 * {"seed": seed}, for `subject` ("": anonymous). */
static const char *binding_for(const char *subject, const char *target, unsigned seed) {
  static char slots[16][512];
  static unsigned next = 0;
  char *b = slots[next++ % 16];
  char who[128];
  if (*subject) snprintf(who, sizeof who, "\"subject\":\"%s\"", subject);
  else snprintf(who, sizeof who, "\"anonymous\":true");
  snprintf(b, sizeof slots[0],
           "{%s,\"protocol\":\"2026-07-28\",\"method\":\"tools/call\",\"target\":\"%s\","
           "\"params\":{\"name\":\"%s\",\"arguments\":{\"seed\":%u}}}",
           who, target, target, seed);
  return b;
}

/* mrtr_keyring_set_current, _remove, _seals with their answer folded in: NOT_DONE when it is no. */
static mrtr_status set_current(const mrtr_keyring *ring, uint8_t id) {
  bool done = false;
  mrtr_status s = mrtr_keyring_set_current(ring, id, &done);
  return s == MRTR_OK && !done ? NOT_DONE : s;
}
static mrtr_status remove_key(const mrtr_keyring *ring, uint8_t id) {
  bool done = false;
  mrtr_status s = mrtr_keyring_remove(ring, id, &done);
  return s == MRTR_OK && !done ? NOT_DONE : s;
}
static mrtr_status seals_of(const mrtr_keyring *ring, uint8_t id, uint64_t *count) {
  bool set = false;
  mrtr_status s = mrtr_keyring_seals(ring, id, &set, count);
  return s == MRTR_OK && !set ? NOT_DONE : s;
}

/* mrtr_keyring_open of a token given as text, for a binding given as JSON text (NULL: none). */
static mrtr_status keyring_open(const mrtr_keyring *ring, const char *token, size_t token_len, const char *binding,
                                uint64_t now, mrtr_first_use guard, void *user, mrtr_opened *out) {
  return mrtr_keyring_open(ring, (const uint8_t *)token, token_len, binding, binding ? strlen(binding) : 0, now, guard,
                           user, out);
}

/* The key ring's rounds, under `settings` for `call` (both JSON text). */
static mrtr_status resume(const mrtr_keyring *ring, const char *settings, const char *call, const char *request,
                          size_t request_len, const char *needs, size_t needs_len, mrtr_first_use guard, void *user,
                          mrtr_buf *out) {
  return mrtr_keyring_resume_round(ring, request, request_len, needs, needs_len, S(settings), S(call), guard, user, out);
}
static mrtr_status respond(const mrtr_keyring *ring, const char *settings, const char *call, const char *request,
                           size_t request_len, const char *round, size_t round_len, const char *needs, size_t needs_len,
                           const char *data, size_t data_len, mrtr_buf *out) {
  return mrtr_keyring_respond_round(ring, request, request_len, round, round_len, needs, needs_len, data, data_len,
                                    S(settings), S(call), out);
}
static mrtr_status start_replay(const mrtr_keyring *ring, const char *settings, const char *call, const char *request,
                                size_t request_len, mrtr_first_use guard, void *user, mrtr_tool_replay **out) {
  return mrtr_keyring_start_tool_replay(ring, request, request_len, S(settings), S(call), guard, user, out);
}

/* ---------------------------------------------------------------------------- */

static void test_rules_and_codes(void) {
  size_t n = mrtr_rule_count();
  CHECK(n >= 46);
  int areas_seen[MRTR_AREA_PANIC + 1] = {0};
  for (size_t i = 0; i < n; i++) {
    mrtr_rule_info info;
    EXPECT(mrtr_rule_at(i, &info), MRTR_OK);
    CHECK(info.code > 0 && info.code <= UINT16_MAX);
    CHECK(strcmp(mrtr_rule_str(info.code), info.name) == 0);
    CHECK(mrtr_rule_code(S(info.name)) == info.code);
    CHECK(info.source && *info.source);
    /* Every rule's area, from the table, is one of the areas, and the lookup agrees with the row. */
    CHECK(info.area >= MRTR_AREA_PROTOCOL && info.area <= MRTR_AREA_PANIC);
    CHECK(mrtr_rule_area(info.code) == info.area);
    CHECK(strcmp(mrtr_area_str(info.area), "unknown") != 0 && strcmp(mrtr_area_str(info.area), "none") != 0);
    if (info.area >= MRTR_AREA_PROTOCOL && info.area <= MRTR_AREA_PANIC) areas_seen[info.area]++;
    if (strncmp(info.name, "state-", 6) == 0) CHECK(info.jsonrpc_code == -32602 && info.area == MRTR_AREA_STATE);
    if (strncmp(info.name, "sse-", 4) == 0) CHECK(info.area == MRTR_AREA_TRANSPORT);
    if (strncmp(info.name, "usage-", 6) == 0) CHECK(info.area == MRTR_AREA_USAGE && info.jsonrpc_code == 0);
  }
  for (int a = MRTR_AREA_PROTOCOL; a <= MRTR_AREA_PANIC; a++) CHECK(areas_seen[a] > 0);
  /* The areas the bindings once disagreed on, and the names of the areas. */
  CHECK(mrtr_rule_area(MRTR_ERR_INPUT_RESPONSES_MALFORMED) == MRTR_AREA_RETRY);
  CHECK(mrtr_rule_area(MRTR_ERR_INPUT_RESPONSES_UNSOLICITED) == MRTR_AREA_RETRY);
  CHECK(mrtr_rule_area(MRTR_ERR_SSE_RETRY_IGNORED) == MRTR_AREA_TRANSPORT);
  CHECK(mrtr_rule_area(MRTR_ERR_LIMIT_EXCEEDED) == MRTR_AREA_PROTOCOL);
  CHECK(mrtr_rule_area(MRTR_ERR_SERVER_REQUEST_ON_STREAM) == MRTR_AREA_ASSOCIATION);
  CHECK(mrtr_rule_area(MRTR_ERR_TASK_UNKNOWN) == MRTR_AREA_TASK);
  CHECK(mrtr_rule_area(MRTR_ERR_USAGE_UNKNOWN_HANDLE) == MRTR_AREA_USAGE);
  CHECK(mrtr_rule_area(MRTR_ERR_INTERNAL_PANIC) == MRTR_AREA_PANIC);
  CHECK(mrtr_rule_area(MRTR_OK) == MRTR_AREA_NONE && mrtr_rule_area(9) == MRTR_AREA_NONE && mrtr_rule_area(-1) == MRTR_AREA_NONE);
  CHECK(strcmp(mrtr_area_str(MRTR_AREA_PROTOCOL), "protocol") == 0 && strcmp(mrtr_area_str(MRTR_AREA_PANIC), "panic") == 0);
  CHECK(strcmp(mrtr_area_str(MRTR_AREA_NONE), "none") == 0 && strcmp(mrtr_area_str(99), "unknown") == 0);
  mrtr_rule_info info;
  EXPECT(mrtr_rule_at(n, &info), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_rule_at(0, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(strcmp(mrtr_rule_str(MRTR_OK), "ok") == 0);
  CHECK(strcmp(mrtr_rule_str(MRTR_ERR_JSONRPC_PARSE_ERROR), "jsonrpc-parse-error") == 0);
  CHECK(strcmp(mrtr_rule_str(MRTR_ERR_STATE_EXPIRED), "state-expired") == 0);
  CHECK(strcmp(mrtr_rule_str(MRTR_ERR_LIMIT_EXCEEDED), "limit-exceeded") == 0);
  CHECK(strcmp(mrtr_rule_str(MRTR_ERR_USAGE_INVALID_ARGUMENT), "usage-invalid-argument") == 0);
  CHECK(strcmp(mrtr_rule_str(MRTR_ERR_INTERNAL_PANIC), "internal-panic") == 0);
  CHECK(strcmp(mrtr_rule_str(9), "unknown") == 0);
  CHECK(strcmp(mrtr_rule_str(-1), "unknown") == 0);
  CHECK(strcmp(mrtr_rule_str(99999), "unknown") == 0);
  CHECK(mrtr_rule_code(S("no-such-rule")) == 0);
  CHECK(mrtr_rule_code(NULL, 0) == 0);
  CHECK(strcmp(mrtr_version(), MRTR_VERSION) == 0); /* this header and the library are one release */
  CHECK(strcmp(mrtr_protocol_name(MRTR_PROTOCOL_SEP_2322_DRAFT), "sep-2322-draft") == 0);
  CHECK(mrtr_protocol_name(42) == NULL && mrtr_protocol_name(-1) == NULL);
  mrtr_protocol p = -1;
  EXPECT(mrtr_protocol_from_name(S("2025-11-25"), &p), MRTR_OK);
  CHECK(p == MRTR_PROTOCOL_2025_11_25);
  EXPECT(mrtr_protocol_from_name(S("2024-11-05"), &p), MRTR_ERR_JSONRPC_INVALID);
  mrtr_limits l = mrtr_limits_default();
  CHECK(l.max_message_bytes == 16u << 20 && l.max_depth == 128 && l.max_input_requests == 1024);
}

static void test_last_error(void) {
  mrtr_classified c;
  EXPECT(mrtr_classify(S("{"), MRTR_PROTOCOL_2026_07_28, NULL, &c), MRTR_ERR_JSONRPC_PARSE_ERROR);
  CHECK(mrtr_last_error_code() == MRTR_ERR_JSONRPC_PARSE_ERROR);
  CHECK(strlen(mrtr_last_error_message()) > 0);
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}"), MRTR_PROTOCOL_2026_07_28, NULL, &c), MRTR_OK);
  CHECK(mrtr_last_error_code() == MRTR_OK);
  CHECK(strcmp(mrtr_last_error_message(), "") == 0);
}

static void test_null_pointers(void) {
  mrtr_classified c;
  mrtr_buf out = {(uint8_t *)"junk", 4};
  char *call = format_call(1, "");
  EXPECT(mrtr_classify(NULL, 10, 0, NULL, &c), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_classify(NULL, 0, 0, NULL, &c), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_classify(S("{}"), 0, NULL, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_classify_json(S(call), 0, NULL, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_classify_json(NULL, 3, 0, NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(is_empty(&out)); /* outputs are emptied first */
  EXPECT(mrtr_retry(NULL, 0, S("{}"), S("{}"), S("2"), 0, NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_retry(S(call), NULL, 0, S("{}"), S("2"), 0, NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_task_update(S(call), S("{}"), S("{}"), NULL, 0, NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_respond(NULL, 0, NULL, 0, NULL, 0, 0, NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_respond(S(call), S(ASK), NULL, 0, 0, NULL, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_resume(NULL, 0, S("{}"), 0, NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  {
    mrtr_buf nothing = {NULL, 0};
    EXPECT(mrtr_resume(S(call), NULL, 0, 0, NULL, &nothing), MRTR_OK); /* NULL needs: the server needs nothing */
    mrtr_buf_free(&nothing);
  }
  EXPECT(mrtr_check(NULL, 0, NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_params_digest(S("{}"), NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_protocol_from_name(S("sep-2322"), NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);

  EXPECT(mrtr_client_new(NULL, 0, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  uint64_t h;
  EXPECT(mrtr_client_send(NULL, S(call), &h), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_client_handle_response(NULL, S("{}")), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_client_answer(NULL, 0, S("{}"), S("2")), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_client_poll_transmit(NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_client_poll_event(NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_client_abandon(NULL, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  mrtr_client *client;
  EXPECT(mrtr_client_new(NULL, 0, &client), MRTR_OK);
  EXPECT(mrtr_client_send(client, S(call), NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_client_send(client, NULL, 0, &h), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_client_poll_transmit(client, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_client_answer(client, 0, S("{}"), NULL, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_client_free(client), MRTR_OK);

  EXPECT(mrtr_checker_new(NULL, 0, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_checker_handle_entry(NULL, S("{}")), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_checker_violations(NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);

  unsigned char secret[32] = {7};
  mrtr_keyring *ring;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), NULL, 32, NULL, 0, &ring), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_add(NULL, 2, S(ALG_AES_256_GCM), secret, 32, NULL, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  EXPECT(mrtr_keyring_seal(ring, NULL, 0, 0, 60, NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_seal(ring, NULL, 3, 0, 60, NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  mrtr_opened opened;
  EXPECT(keyring_open(ring, S("x"), NULL, 0, NULL, NULL, &opened), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(keyring_open(NULL, S("x"), NULL, 0, NULL, NULL, &opened), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  const char *b = binding_for("alice", "t", 1);
  EXPECT(keyring_open(ring, S("x"), b, 0, NULL, NULL, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_open(ring, NULL, 3, S(b), 0, NULL, NULL, &opened), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  const char *who = "{\"subject\":\"alice\",\"now\":1000}";
  EXPECT(mrtr_keyring_resume_round(ring, S(call), S(ASK), NULL, 0, S(who), NULL, NULL, &out),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_resume_round(ring, S(call), S(ASK), S(ROUNDS), NULL, 0, NULL, NULL, &out),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_binding_for(NULL, 0, S("alice"), false, NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_binding_for(S(call), S("alice"), false, NULL, 0, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_inspect(NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_inspect(S("AAAA"), NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  bool set;
  uint64_t count;
  EXPECT(mrtr_keyring_seals(ring, 1, NULL, &count), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_seals(ring, 1, &set, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_set_current(ring, 1, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);

  /* Freeing NULL is a no-op, as free(NULL). */
  EXPECT(mrtr_buf_free(NULL), MRTR_OK);
  mrtr_buf empty = {NULL, 0};
  EXPECT(mrtr_buf_free(&empty), MRTR_OK);
  EXPECT(mrtr_client_free(NULL), MRTR_OK);
  EXPECT(mrtr_checker_free(NULL), MRTR_OK);
  EXPECT(mrtr_keyring_free(NULL), MRTR_OK);
  free(call);
}

static void test_invalid_arguments(void) {
  mrtr_classified c;
  mrtr_buf out;
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  EXPECT(mrtr_classify(S(ping), 99, NULL, &c), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_classify(S(ping), -1, NULL, &c), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  /* A length no buffer can have is refused before any read. */
  EXPECT(mrtr_classify(ping, SIZE_MAX, 0, NULL, &c), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_respond(ping, (size_t)PTRDIFF_MAX + 1, NULL, 0, NULL, 0, 0, NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  unsigned char secret[33] = {0};
  mrtr_keyring *ring = NULL;
  EXPECT(mrtr_keyring_new(1, NULL, 0, secret, 32, NULL, 0, &ring), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_new(1, S("rot13"), secret, 32, NULL, 0, &ring), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 31, NULL, 0, &ring), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 33, NULL, 0, &ring), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  /* Exactly one of a secret and a master secret (at least 32 bytes) to derive the key from. */
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, secret, 32, &ring), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), NULL, 0, secret, 31, &ring), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(ring == NULL);
  EXPECT(mrtr_keyring_new(1, S(ALG_XCHACHA20_POLY1305), NULL, 0, secret, 33, &ring), MRTR_OK);
  CHECK(ring != NULL);
  mrtr_keyring_free(ring);
  ring = NULL;
  EXPECT(mrtr_keyring_new(1, S(ALG_XAES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  CHECK(ring != NULL);
  mrtr_keyring_free(ring);
  ring = NULL;
  mrtr_checker *checker;
  EXPECT(mrtr_checker_new(S("{\"protocol\":\"1999-01-01\"}"), &checker), MRTR_ERR_JSONRPC_INVALID);
  EXPECT(mrtr_checker_new(NULL, 0, &checker), MRTR_OK);
  EXPECT(mrtr_checker_handle_entry(checker, S("{\"from\":\"nobody\",\"message\":{}}")), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_checker_free(checker), MRTR_OK);
  /* A transcript entry of the wrong shape. */
  EXPECT(mrtr_check(S("[{\"from\":\"nobody\",\"message\":{}}]"), NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_check(S("[{\"from\":\"client\"}]"), NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_check(S("{\"from\":\"client\",\"message\":{}}\nnot json\n"), NULL, 0, &out),
         MRTR_ERR_JSONRPC_PARSE_ERROR);
  CHECK(strstr(mrtr_last_error_message(), "line 2") != NULL);
}

static void test_invalid_utf8(void) {
  mrtr_classified c;
  mrtr_buf out;
  /* In a message: the core's jsonrpc-parse-error, wherever the bytes are. */
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\xff\"}"), 0, NULL, &c),
         MRTR_ERR_JSONRPC_PARSE_ERROR);
  EXPECT(mrtr_classify(S("\xfe\xff"), 0, NULL, &c), MRTR_ERR_JSONRPC_PARSE_ERROR);
  char *bad = format_call(1, "\"x\":\"\xc3\x28\",");
  EXPECT(mrtr_respond(S(bad), S(ASK), S("\"s\""), 0, NULL, &out), MRTR_ERR_JSONRPC_PARSE_ERROR);
  EXPECT(mrtr_resume(S(bad), S(ASK), 0, NULL, &out), MRTR_ERR_JSONRPC_PARSE_ERROR);
  mrtr_client *client;
  EXPECT(mrtr_client_new(NULL, 0, &client), MRTR_OK);
  EXPECT(mrtr_client_handle_response(client, S("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"\xed\xa0\x80\"}}")),
         MRTR_ERR_JSONRPC_PARSE_ERROR);
  EXPECT(mrtr_client_free(client), MRTR_OK);
  free(bad);
  /* In a name or a subject: the binding's own code. */
  mrtr_protocol p;
  EXPECT(mrtr_protocol_from_name(S("sep-2322\xff"), &p), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  unsigned char secret[32] = {1};
  mrtr_keyring *ring;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  const char *b = "{\"subject\":\"al\xff" "ice\",\"method\":\"tools/call\",\"target\":\"t\",\"params\":{}}";
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 60, (const uint8_t *)"p", 1, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  /* A token that is not UTF-8 is not base64url: the core's state-malformed. */
  const char *ok = binding_for("alice", "t", 1);
  mrtr_opened opened;
  EXPECT(keyring_open(ring, S("AAAA\xff"), ok, 1000, NULL, NULL, &opened), MRTR_ERR_STATE_MALFORMED);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* The bad messages of the core issue, through classify and through a function that parses JSON itself. */
static void test_bad_messages(void) {
  mrtr_classified c;
  mrtr_buf out;
  /* Truncated: every prefix. */
  const char *full = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\",\"requestState\":\"s\"}}";
  EXPECT(mrtr_classify(S(full), 0, NULL, &c), MRTR_OK);
  CHECK(c.kind == MRTR_KIND_INPUT_REQUIRED);
  char *call = format_call(1, "");
  for (size_t cut = 0; cut < strlen(full); cut++) EXPECT(mrtr_classify(full, cut, 0, NULL, &c), MRTR_ERR_JSONRPC_PARSE_ERROR);
  for (size_t cut = 0; cut < strlen(call); cut++)
    EXPECT(mrtr_respond(call, cut, S(ASK), NULL, 0, 0, NULL, &out), MRTR_ERR_JSONRPC_PARSE_ERROR);
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"} trailing"), 0, NULL, &c),
         MRTR_ERR_JSONRPC_PARSE_ERROR);

  /* 10 000-deep nesting. */
  size_t depth = 10000;
  const char *head = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"a\":";
  size_t n = strlen(head) + 2 * depth + 3;
  char *deep = malloc(n);
  strcpy(deep, head);
  memset(deep + strlen(head), '[', depth);
  memset(deep + strlen(head) + depth, ']', depth);
  strcpy(deep + strlen(head) + 2 * depth, "}}");
  EXPECT(mrtr_classify(S(deep), 0, NULL, &c), MRTR_ERR_LIMIT_EXCEEDED);
  EXPECT(mrtr_respond(S(deep), S(ASK), NULL, 0, 0, NULL, &out), MRTR_ERR_LIMIT_EXCEEDED);
  EXPECT(mrtr_resume(S(call), S(deep), 0, NULL, &out), MRTR_ERR_LIMIT_EXCEEDED);
  EXPECT(mrtr_check(S(deep), NULL, 0, &out), MRTR_ERR_LIMIT_EXCEEDED);
  free(deep);
  mrtr_limits tight = mrtr_limits_default();
  tight.max_depth = 4;
  const char *five = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"a\":[[[1]]]}}";
  EXPECT(mrtr_classify(S(five), 0, &tight, &c), MRTR_ERR_LIMIT_EXCEEDED);
  EXPECT(mrtr_classify(S(five), 0, NULL, &c), MRTR_OK);

  /* Duplicate keys, wherever they are. */
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"x\"}"), 0, NULL, &c),
         MRTR_ERR_JSONRPC_INVALID);
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"arguments\":{\"a\":1,\"a\":2}}}"), 0,
                       NULL, &c),
         MRTR_ERR_JSONRPC_INVALID);
  char *dup = format_call(1, "\"arguments\":{\"a\":1,\"a\":2},");
  EXPECT(mrtr_respond(S(dup), S(ASK), NULL, 0, 0, NULL, &out), MRTR_ERR_JSONRPC_INVALID);
  EXPECT(mrtr_resume(S(call), S("{\"login\":{\"method\":\"roots/list\"},\"login\":{\"method\":\"roots/list\"}}"), 0, NULL,
                     &out),
         MRTR_ERR_JSONRPC_INVALID);
  mrtr_buf answer;
  EXPECT(mrtr_respond(S(call), S(ASK), S("\"s1\""), 0, NULL, &answer), MRTR_OK);
  EXPECT(mrtr_retry(S(call), (const char *)answer.ptr, answer.len, S("{\"login\":{\"action\":\"decline\",\"action\":\"accept\"}}"),
                    S("2"), 0, NULL, &out),
         MRTR_ERR_JSONRPC_INVALID);
  mrtr_buf_free(&answer);
  free(dup);

  /* 100 MB string: over the message bound, refused before parsing. */
  const char *pre = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"s\":\"";
  size_t big = (size_t)100 << 20, total = strlen(pre) + big + 4;
  char *huge = malloc(total + 1);
  strcpy(huge, pre);
  memset(huge + strlen(pre), 'a', big);
  strcpy(huge + strlen(pre) + big, "\"}}");
  EXPECT(mrtr_classify(S(huge), 0, NULL, &c), MRTR_ERR_LIMIT_EXCEEDED);
  EXPECT(mrtr_respond(S(huge), S(ASK), NULL, 0, 0, NULL, &out), MRTR_ERR_LIMIT_EXCEEDED);
  mrtr_client *client;
  EXPECT(mrtr_client_new(NULL, 0, &client), MRTR_OK);
  EXPECT(mrtr_client_send(client, S(huge), &(uint64_t){0}), MRTR_ERR_LIMIT_EXCEEDED);
  EXPECT(mrtr_client_handle_response(client, S(huge)), MRTR_ERR_LIMIT_EXCEEDED);
  EXPECT(mrtr_client_free(client), MRTR_OK);
  free(huge);

  /* 100 000 input requests: over the entries bound. */
  size_t count = 100000, cap = count * 40 + 200, len = 0;
  char *many = malloc(cap);
  len += (size_t)snprintf(many + len, cap - len,
                          "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{");
  for (size_t i = 0; i < count; i++)
    len += (size_t)snprintf(many + len, cap - len, "%s\"k%zu\":{\"method\":\"roots/list\"}", i ? "," : "", i);
  len += (size_t)snprintf(many + len, cap - len, "}}}");
  EXPECT(mrtr_classify(many, len, 0, NULL, &c), MRTR_ERR_LIMIT_EXCEEDED);
  free(many);

  /* An oversized requestState. */
  size_t state = 70000;
  char *large = malloc(state + 128);
  len = (size_t)snprintf(large, 128, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\",\"requestState\":\"");
  memset(large + len, 's', state);
  strcpy(large + len + state, "\"}}");
  EXPECT(mrtr_classify(S(large), 0, NULL, &c), MRTR_ERR_STATE_TOO_LARGE);
  free(large);
  free(call);
}

static void test_classify(void) {
  mrtr_classified c;
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}"), 0, NULL, &c),
         MRTR_OK);
  CHECK(c.kind == MRTR_KIND_REQUEST && c.id_type == MRTR_ID_INT && c.id_int == 7 && c.result_type == MRTR_RESULT_TYPE_NONE);
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}"), 0, NULL, &c), MRTR_OK);
  CHECK(c.kind == MRTR_KIND_NOTIFICATION && c.id_type == MRTR_ID_NONE);
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":18446744073709551615,\"result\":{\"resultType\":\"complete\"}}"), 0,
                       NULL, &c),
         MRTR_OK);
  CHECK(c.kind == MRTR_KIND_RESULT && c.id_type == MRTR_ID_UINT && c.id_uint == UINT64_MAX);
  CHECK(c.result_type == MRTR_RESULT_TYPE_COMPLETE && c.result_type_present);
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}"), 0, NULL, &c), MRTR_OK);
  CHECK(c.kind == MRTR_KIND_RESULT && c.id_type == MRTR_ID_STRING && !c.result_type_present);
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}"), 0, NULL, &c),
         MRTR_OK);
  CHECK(c.kind == MRTR_KIND_ERROR && c.id_type == MRTR_ID_NULL);
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"weird\"}}"), 0, NULL, &c),
         MRTR_ERR_RESULT_TYPE_UNKNOWN);
  /* 2025-11-25 reads resultType as an ordinary field. */
  EXPECT(mrtr_classify(S("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\"}}"),
                       MRTR_PROTOCOL_2025_11_25, NULL, &c),
         MRTR_OK);
  CHECK(c.kind == MRTR_KIND_RESULT);

  mrtr_buf out;
  EXPECT(mrtr_classify_json(S("{\"jsonrpc\":\"2.0\",\"id\":\"r-\\u00e9\",\"method\":\"tools/call\",\"params\":{}}"), 0, NULL,
                            &out),
         MRTR_OK);
  CHECK(out.ptr[out.len] == '\0');
  cJSON *v = take(&out);
  CHECK(v && strcmp(at(v, "kind")->valuestring, "request") == 0);
  CHECK(v && strcmp(at(v, "id")->valuestring, "r-\xc3\xa9") == 0);
  CHECK(v && strcmp(at(v, "method")->valuestring, "tools/call") == 0);
  CHECK(v && cJSON_IsNull(at(v, "resultType")));
  cJSON_Delete(v);
}

/* respond -> retry -> resume, the README's round trip. */
static void test_round_trip(void) {
  char *call = format_call(1, "");
  mrtr_buf answer, retry, got;
  EXPECT(mrtr_respond(S(call), S(ASK), S("\"s1\""), 0, NULL, &answer), MRTR_OK);
  cJSON *a = cJSON_ParseWithLength((const char *)answer.ptr, answer.len);
  CHECK(a && strcmp(at(at(a, "result"), "resultType")->valuestring, "input_required") == 0);
  cJSON_Delete(a);
  EXPECT(mrtr_retry(S(call), (const char *)answer.ptr, answer.len, S(ANSWER), S("2"), 0, NULL, &retry), MRTR_OK);
  EXPECT(mrtr_retry(S(call), (const char *)answer.ptr, answer.len, S(ANSWER), S("1"), 0, NULL, &got),
         MRTR_ERR_RETRY_ID_REUSED);
  EXPECT(mrtr_retry(S(call), (const char *)answer.ptr, answer.len, S("{}"), S("2"), 0, NULL, &got),
         MRTR_ERR_RETRY_MISSING_INPUT_RESPONSE);
  EXPECT(mrtr_retry(S(call), (const char *)answer.ptr, answer.len, S("{\"login\":{\"action\":\"maybe\"}}"), S("2"), 0, NULL,
                    &got),
         MRTR_ERR_RETRY_INPUT_RESPONSE_INVALID);
  EXPECT(mrtr_resume((const char *)retry.ptr, retry.len, S(ASK), 0, NULL, &got), MRTR_OK);
  cJSON *r = take(&got);
  CHECK(r && strcmp(at(r, "requestState")->valuestring, "s1") == 0);
  CHECK(r && strcmp(at(at(at(at(r, "responses"), "login"), "content"), "name")->valuestring, "octocat") == 0);
  CHECK(r && cJSON_GetArraySize(at(r, "missing")) == 0 && cJSON_GetArraySize(at(r, "ignored")) == 0);
  cJSON_Delete(r);
  mrtr_buf_free(&retry);
  mrtr_buf_free(&answer);

  /* Rules the server side enforces. */
  const char *list = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}";
  EXPECT(mrtr_respond(S(list), S(ASK), NULL, 0, MRTR_PROTOCOL_SEP_2322, NULL, &got), MRTR_ERR_INPUT_REQUIRED_METHOD_NOT_ALLOWED);
  const char *bare = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}";
  EXPECT(mrtr_respond(S(bare), S(ASK), NULL, 0, 0, NULL, &got), MRTR_ERR_REQUEST_META_MISSING);
  EXPECT(mrtr_respond(S(call), NULL, 0, NULL, 0, 0, NULL, &got), MRTR_ERR_INPUT_REQUIRED_EMPTY);
  EXPECT(mrtr_respond(S(call), NULL, 0, S("42"), 0, NULL, &got), MRTR_ERR_REQUEST_STATE_INVALID);
  EXPECT(mrtr_respond(S(call), S("{\"k\":{\"method\":\"sampling/createMessage\",\"params\":{}}}"), NULL, 0, 0, NULL, &got),
         MRTR_ERR_INPUT_REQUEST_INVALID);
  EXPECT(mrtr_respond(S(call), NULL, 0, S("\"s\""), MRTR_PROTOCOL_SEP_2322_DRAFT, NULL, &got), MRTR_OK);
  cJSON *d = take(&got);
  CHECK(d && strcmp(at(d, "request_state")->valuestring, "s") == 0); /* the draft's envelope field */
  cJSON_Delete(d);
  free(call);
}

static void test_task_update(void) {
  const char *get =
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"t1\"}}";
  const char *shown =
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"taskId\":\"t1\",\"status\":\"input_required\","
      "\"inputRequests\":{\"where\":{\"method\":\"roots/list\"}}}}";
  const char *roots = "{\"where\":{\"roots\":[{\"uri\":\"file:///home\"}]}}";
  mrtr_buf out;
  EXPECT(mrtr_task_update(S(get), S(shown), S(roots), S("6"), NULL, &out), MRTR_OK);
  cJSON *u = take(&out);
  CHECK(u && strcmp(at(u, "method")->valuestring, "tasks/update") == 0);
  CHECK(u && strcmp(at(at(u, "params"), "taskId")->valuestring, "t1") == 0);
  cJSON_Delete(u);
  EXPECT(mrtr_task_update(S(get), S(shown), S("{}"), S("6"), NULL, &out), MRTR_ERR_RETRY_MISSING_INPUT_RESPONSE);
  EXPECT(mrtr_task_update(S(get), S(shown), S(roots), S("5"), NULL, &out), MRTR_ERR_RETRY_ID_REUSED);
}

static void test_check(void) {
  char *call = format_call(1, ""), *again = format_call(1, "\"inputResponses\":{\"login\":{\"action\":\"cancel\"}},");
  mrtr_buf answer, out;
  EXPECT(mrtr_respond(S(call), S(ASK), S("\"s1\""), 0, NULL, &answer), MRTR_OK);
  /* The client retries with the same id: retry-id-reused at index 2, and no requestState echoed. */
  size_t n = strlen(call) + answer.len + strlen(again) + 256;
  char *transcript = malloc(n);
  snprintf(transcript, n,
           "[{\"from\":\"client\",\"message\":%s},{\"from\":\"server\",\"message\":%s,\"stream\":\"post:1\"},"
           "{\"from\":\"client\",\"message\":%s}]",
           call, (const char *)answer.ptr, again);
  EXPECT(mrtr_check(S(transcript), NULL, 0, &out), MRTR_OK);
  cJSON *v = take(&out);
  const cJSON *item;
  int reused = 0;
  cJSON_ArrayForEach(item, v) {
    CHECK(at(item, "index")->valueint == 2);
    CHECK(strlen(at(item, "message")->valuestring) > 0);
    if (mrtr_rule_code(S(at(item, "rule")->valuestring)) == MRTR_ERR_RETRY_ID_REUSED) reused = 1;
  }
  CHECK(reused);
  cJSON_Delete(v);

  /* The same as JSON Lines, and through the incremental checker. */
  snprintf(transcript, n,
           "{\"from\":\"client\",\"message\":%s}\n\n{\"from\":\"server\",\"message\":%s,\"stream\":\"post:1\"}\n"
           "{\"from\":\"client\",\"message\":%s}\n",
           call, (const char *)answer.ptr, again);
  EXPECT(mrtr_check(S(transcript), NULL, 0, &out), MRTR_OK);
  cJSON *jsonl = take(&out);
  mrtr_checker *checker;
  EXPECT(mrtr_checker_new(NULL, 0, &checker), MRTR_OK);
  char *entry = malloc(n);
  snprintf(entry, n, "{\"from\":\"client\",\"message\":%s}", call);
  EXPECT(mrtr_checker_handle_entry(checker, S(entry)), MRTR_OK);
  snprintf(entry, n, "{\"from\":\"server\",\"message\":%s,\"stream\":\"post:1\"}", (const char *)answer.ptr);
  EXPECT(mrtr_checker_handle_entry(checker, S(entry)), MRTR_OK);
  EXPECT(mrtr_checker_handle_entry(checker, S("{\"from\":\"client\",\"message\":{not json}")),
         MRTR_ERR_JSONRPC_PARSE_ERROR);
  snprintf(entry, n, "{\"from\":\"client\",\"message\":%s}", again);
  EXPECT(mrtr_checker_handle_entry(checker, S(entry)), MRTR_OK);
  free(entry);
  EXPECT(mrtr_checker_violations(checker, &out), MRTR_OK);
  cJSON *incremental = take(&out);
  CHECK(jsonl && incremental && cJSON_Compare(jsonl, incremental, 1));
  CHECK(cJSON_GetArraySize(jsonl) >= 1);
  cJSON_Delete(jsonl);
  cJSON_Delete(incremental);
  EXPECT(mrtr_checker_free(checker), MRTR_OK);

  /* A compliant conversation; a message that is JSON but not JSON-RPC. */
  snprintf(transcript, n, "[{\"from\":\"client\",\"message\":%s}]", call);
  EXPECT(mrtr_check(S(transcript), NULL, 0, &out), MRTR_OK);
  CHECK(strcmp((const char *)out.ptr, "[]") == 0);
  mrtr_buf_free(&out);
  EXPECT(mrtr_check(S("[{\"from\":\"client\",\"message\":[1]}]"), NULL, 0, &out), MRTR_OK);
  CHECK(strstr((const char *)out.ptr, "\"jsonrpc-invalid\"") != NULL);
  mrtr_buf_free(&out);
  free(transcript);
  free(call);
  free(again);
  mrtr_buf_free(&answer);
}

/* ---- sealed state ------------------------------------------------------- */

static const char *buf_text(const mrtr_buf *b) { return (const char *)b->ptr; }

/* Opens `token` for `b` at `now` without a guard; the status, the payload freed. */
static mrtr_status open_plain(const mrtr_keyring *ring, const mrtr_buf *token, const char *b, uint64_t now) {
  mrtr_opened opened;
  mrtr_status s = keyring_open(ring, buf_text(token), token->len, b, now, NULL, NULL, &opened);
  mrtr_buf_free(&opened.payload);
  return s;
}

static void test_keyring(void) {
  unsigned char s1[32], s2[32];
  for (int i = 0; i < 32; i++) s1[i] = (unsigned char)i, s2[i] = (unsigned char)(0xA0 + i);
  mrtr_keyring *ring;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), s1, sizeof s1, NULL, 0, &ring), MRTR_OK);
  const char *b = binding_for("alice", "get_weather", 1);
  const uint8_t payload[] = {'h', 'i', 0, 'x'}; /* bytes, NUL included */
  mrtr_buf token, os2;
  mrtr_opened opened;

  /* Round trip: the nonce comes from the operating system, so two seals differ. */
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 300, payload, sizeof payload, &token), MRTR_OK);
  CHECK(token.len == (size_t)((50 + 4) * 4 + 2) / 3); /* base64url of 50 bytes of overhead + the payload */
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 300, payload, sizeof payload, &os2), MRTR_OK);
  CHECK(token.len == os2.len && memcmp(token.ptr, os2.ptr, token.len) != 0);
  EXPECT(keyring_open(ring, buf_text(&token), token.len, b, 1100, NULL, NULL, &opened), MRTR_OK);
  CHECK(opened.payload.len == sizeof payload && memcmp(opened.payload.ptr, payload, sizeof payload) == 0);
  CHECK(strlen(opened.state_id) == 24 && strspn(opened.state_id, "0123456789abcdef") == 24);
  CHECK(opened.expiry == 1300);
  /* The id and the expiry are public: mrtr_inspect reads them without a key. */
  mrtr_buf info_json;
  EXPECT(mrtr_inspect(buf_text(&token), token.len, &info_json), MRTR_OK);
  cJSON *info = take(&info_json);
  CHECK(info && strcmp(at(info, "stateId")->valuestring, opened.state_id) == 0 && at(info, "expiry")->valueint == 1300 &&
        at(info, "keyId")->valueint == 1 && strcmp(at(info, "algorithm")->valuestring, "aes-256-gcm") == 0);
  cJSON_Delete(info);
  EXPECT(mrtr_inspect(S("!!"), &info_json), MRTR_ERR_STATE_MALFORMED);
  mrtr_buf_free(&opened.payload);
  EXPECT(keyring_open(ring, buf_text(&os2), os2.len, b, 1000, NULL, NULL, &opened), MRTR_OK);
  mrtr_buf_free(&opened.payload);
  mrtr_buf_free(&os2);
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 300, NULL, 0, &os2), MRTR_OK); /* an empty payload */
  EXPECT(keyring_open(ring, buf_text(&os2), os2.len, b, 1000, NULL, NULL, &opened), MRTR_OK);
  CHECK(opened.payload.len == 0);
  mrtr_buf_free(&opened.payload);
  mrtr_buf_free(&os2);

#if defined(MRTR_TEST_VECTORS)
  /* Test-vector builds only: the caller's nonce, so the same token twice. */
  const uint8_t nonce12[12] = {4}, nonce24[24] = {4};
  mrtr_buf v1, v2;
  EXPECT(mrtr_keyring_seal_with_nonce(ring, S(b), 1000, 300, payload, sizeof payload, nonce12, 12, &v1), MRTR_OK);
  EXPECT(mrtr_keyring_seal_with_nonce(ring, S(b), 1000, 300, payload, sizeof payload, nonce12, 12, &v2), MRTR_OK);
  CHECK(v1.len == v2.len && memcmp(v1.ptr, v2.ptr, v1.len) == 0);
  EXPECT(keyring_open(ring, buf_text(&v1), v1.len, b, 1000, NULL, NULL, &opened), MRTR_OK);
  CHECK(strcmp(opened.state_id, "040000000000000000000000") == 0); /* the id is the nonce */
  mrtr_buf_free(&opened.payload);
  mrtr_buf_free(&v1);
  mrtr_buf_free(&v2);
  EXPECT(mrtr_keyring_seal_with_nonce(ring, S(b), 1000, 300, payload, sizeof payload, nonce24, 24, &v1),
         MRTR_ERR_STATE_MALFORMED);
  EXPECT(mrtr_keyring_seal_with_nonce(ring, S(b), 1000, 300, payload, sizeof payload, NULL, 0, &v1),
         MRTR_ERR_USAGE_INVALID_ARGUMENT); /* no nonce: never a silent fallback */
#endif

  /* Each state-* failure; the output is emptied. */
  opened.expiry = 7;
  EXPECT(keyring_open(ring, S("!!not base64!!"), b, 1100, NULL, NULL, &opened), MRTR_ERR_STATE_MALFORMED);
  CHECK(is_empty(&opened.payload) && opened.state_id[0] == '\0' && opened.expiry == 0);
  EXPECT(keyring_open(ring, S("AAAA"), b, 1100, NULL, NULL, &opened), MRTR_ERR_STATE_MALFORMED);
  char *tampered = malloc(token.len + 1);
  memcpy(tampered, token.ptr, token.len + 1);
  tampered[token.len - 3] = tampered[token.len - 3] == 'A' ? 'B' : 'A';
  EXPECT(keyring_open(ring, tampered, token.len, b, 1100, NULL, NULL, &opened), MRTR_ERR_STATE_TAMPERED);
  free(tampered);
  EXPECT(open_plain(ring, &token, b, 1300), MRTR_ERR_STATE_EXPIRED);
  const char *bob = binding_for("bob", "get_weather", 1), *other = binding_for("alice", "get_news", 1),
             *args = binding_for("alice", "get_weather", 2);
  EXPECT(open_plain(ring, &token, bob, 1100), MRTR_ERR_STATE_WRONG_SUBJECT);
  EXPECT(open_plain(ring, &token, other, 1100), MRTR_ERR_STATE_WRONG_REQUEST);
  EXPECT(open_plain(ring, &token, args, 1100), MRTR_ERR_STATE_WRONG_REQUEST);
  const char *sep = "{\"subject\":\"alice\",\"protocol\":\"sep-2322\",\"method\":\"tools/call\",\"target\":"
                    "\"get_weather\",\"params\":{\"name\":\"get_weather\",\"arguments\":{\"seed\":1}}}";
  EXPECT(open_plain(ring, &token, sep, 1100), MRTR_ERR_STATE_WRONG_REQUEST);
  mrtr_keyring *stranger;
  EXPECT(mrtr_keyring_new(9, S(ALG_AES_256_GCM), s1, 32, NULL, 0, &stranger), MRTR_OK);
  EXPECT(open_plain(stranger, &token, b, 1100), MRTR_ERR_STATE_UNKNOWN_KEY);
  EXPECT(mrtr_keyring_set_max_token_bytes(stranger, 16), MRTR_OK);
  EXPECT(open_plain(stranger, &token, b, 1100), MRTR_ERR_STATE_TOO_LARGE);
  EXPECT(mrtr_keyring_free(stranger), MRTR_OK);
  /* The messages never carry key material or the payload. */
  CHECK(strstr(mrtr_last_error_message(), "hi") == NULL);

  /* Rotation: a second key (XChaCha) becomes current; the first still opens its tokens. */
  EXPECT(mrtr_keyring_add(ring, 2, S(ALG_XCHACHA20_POLY1305), s2, 32, NULL, 0), MRTR_OK);
  EXPECT(set_current(ring, 2), MRTR_OK);
  EXPECT(set_current(ring, 3), NOT_DONE);
  mrtr_buf token2;
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 300, payload, sizeof payload, &token2), MRTR_OK);
  CHECK(token2.len == (size_t)((62 + 4) * 4 + 2) / 3);
  EXPECT(open_plain(ring, &token, b, 1100), MRTR_OK);
  EXPECT(keyring_open(ring, buf_text(&token2), token2.len, b, 1100, NULL, NULL, &opened), MRTR_OK);
  CHECK(strlen(opened.state_id) == 48); /* XChaCha20-Poly1305's 24-byte nonce */
  mrtr_buf_free(&opened.payload);
  EXPECT(remove_key(ring, 2), NOT_DONE); /* the current key stays */
  EXPECT(remove_key(ring, 1), MRTR_OK);
  EXPECT(remove_key(ring, 1), NOT_DONE);
  EXPECT(open_plain(ring, &token, b, 1100), MRTR_ERR_STATE_UNKNOWN_KEY);
  mrtr_buf_free(&token2);
  mrtr_buf_free(&token);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* Attack: a binding without a subject bound as "anonymous" (any caller without auth context could open a principal's
 * state, or a missing auth context sealed state for everyone). The subject is a principal, or anonymous explicitly. */
static void test_no_default_anonymous_subject(void) {
  unsigned char secret[32] = {11};
  mrtr_keyring *ring;
  mrtr_buf token = {NULL, 0};
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  const char *alice = binding_for("alice", "t", 1);
  const char *none = "{\"method\":\"tools/call\",\"target\":\"t\",\"params\":{\"name\":\"t\",\"arguments\":{\"seed\":1}}}";
  const char *empty =
      "{\"subject\":\"\",\"method\":\"tools/call\",\"target\":\"t\",\"params\":{\"name\":\"t\",\"arguments\":{\"seed\":1}}}";
  const char *both = "{\"subject\":\"alice\",\"anonymous\":true,\"method\":\"tools/call\",\"target\":\"t\","
                     "\"params\":{\"name\":\"t\",\"arguments\":{\"seed\":1}}}";
  EXPECT(mrtr_keyring_seal(ring, S(none), 1000, 60, NULL, 0, &token), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(strstr(mrtr_last_error_message(), "anonymous") != NULL); /* the message says how to mean nobody */
  EXPECT(mrtr_keyring_seal(ring, S(empty), 1000, 60, NULL, 0, &token), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_seal(ring, S(both), 1000, 60, NULL, 0, &token), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(is_empty(&token));
  /* Anonymous, explicitly: opens for anonymous callers only, never for a principal named "anonymous". */
  const char *anon = binding_for("", "t", 1), *named = binding_for("anonymous", "t", 1);
  EXPECT(mrtr_keyring_seal(ring, S(anon), 1000, 60, NULL, 0, &token), MRTR_OK);
  EXPECT(open_plain(ring, &token, anon, 1001), MRTR_OK);
  EXPECT(open_plain(ring, &token, named, 1001), MRTR_ERR_STATE_WRONG_SUBJECT);
  EXPECT(open_plain(ring, &token, alice, 1001), MRTR_ERR_STATE_WRONG_SUBJECT);
  EXPECT(open_plain(ring, &token, none, 1001), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  mrtr_buf_free(&token);
  /* The same in a request's binding and a round's call. */
  char *call = format_call(1, "");
  mrtr_buf read;
  EXPECT(mrtr_binding_for(S(call), NULL, 0, false, NULL, 0, &read), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_binding_for(S(call), S("alice"), true, NULL, 0, &read), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_binding_for(S(call), NULL, 0, true, S("2026-07-28"), &read), MRTR_OK);
  cJSON *bound = take(&read);
  CHECK(bound && cJSON_IsTrue(at(bound, "anonymous")) && at(bound, "subject") == NULL);
  cJSON_Delete(bound);
  const char *nobody = "{\"now\":1000}";
  EXPECT(resume(ring, ROUNDS, nobody, S(call), S(ASK), NULL, NULL, &token), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  nobody = "{\"anonymous\":true,\"now\":1000}";
  EXPECT(resume(ring, ROUNDS, nobody, S(call), S(ASK), NULL, NULL, &token), MRTR_OK);
  mrtr_buf_free(&token);
  free(call);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* A binding of alice's tools/call of `t` by its params digest (64 hex digits of `digest`), as JSON text in `out`. */
static const char *digest_binding(const uint8_t digest[32], char out[256]) {
  int n = snprintf(out, 256, "{\"subject\":\"alice\",\"method\":\"tools/call\",\"target\":\"t\",\"paramsDigest\":\"");
  for (int i = 0; i < 32; i++) n += snprintf(out + n, 256 - (size_t)n, "%02x", digest[i]);
  snprintf(out + n, 256 - (size_t)n, "\"}");
  return out;
}

/* Attack: params left out of a binding bound as `{}` (or as nothing), so a state opened for another call of the same
 * tool with other arguments. The digest is of the request's params, computed, exact. */
static void test_no_implicit_empty_params(void) {
  unsigned char secret[32] = {12};
  mrtr_keyring *ring;
  mrtr_buf token = {NULL, 0}, strings;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  uint8_t digest[32], empty[32], other[32];
  EXPECT(mrtr_params_digest(NULL, 0, digest), MRTR_ERR_USAGE_INVALID_ARGUMENT); /* no default */
  EXPECT(mrtr_params_digest(S("{\"name\":\"t\",\"arguments\":{\"a\":1}}"), digest), MRTR_OK);
  EXPECT(mrtr_params_digest(S("{}"), empty), MRTR_OK);
  CHECK(memcmp(digest, empty, 32) != 0);
  /* Every param is bound (not only arguments) but the retry's carriers; numbers exact, key order and spelling not. */
  EXPECT(mrtr_params_digest(S("{\"arguments\":{\"a\":1.0},\"name\":\"t\",\"_meta\":{\"x\":1},\"requestState\":\"s\"}"),
                            other),
         MRTR_OK);
  CHECK(memcmp(digest, other, 32) == 0);
  EXPECT(mrtr_params_digest(S("{\"name\":\"t\",\"arguments\":{\"a\":1},\"task\":{\"ttl\":5}}"), other), MRTR_OK);
  CHECK(memcmp(digest, other, 32) != 0);
  uint8_t big[32], rounded[32];
  EXPECT(mrtr_params_digest(S("{\"n\":100000000000000000001}"), big), MRTR_OK);
  EXPECT(mrtr_params_digest(S("{\"n\":1e20}"), rounded), MRTR_OK);
  CHECK(memcmp(big, rounded, 32) != 0);
  EXPECT(mrtr_params_digest(S("{\"n\":1,\"n\":2}"), other), MRTR_ERR_JSONRPC_INVALID);
  /* A binding whose digest was never computed (zeroed) is refused, on sealing and on opening. */
  char unset[256], b[256];
  const uint8_t zero[32] = {0};
  digest_binding(zero, unset);
  EXPECT(mrtr_keyring_seal(ring, S(unset), 1000, 60, NULL, 0, &token), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(strstr(mrtr_last_error_message(), "paramsDigest") != NULL);
  digest_binding(digest, b);
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 60, NULL, 0, &token), MRTR_OK);
  EXPECT(open_plain(ring, &token, unset, 1001), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(open_plain(ring, &token, b, 1001), MRTR_OK);
  /* A binding's JSON without params (or with both forms) is refused, not read as {}. */
  EXPECT(open_plain(ring, &token, "{\"subject\":\"alice\",\"method\":\"tools/call\",\"target\":\"t\"}", 1001),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(open_plain(ring, &token,
                    "{\"subject\":\"alice\",\"method\":\"tools/call\",\"target\":\"t\",\"params\":{},"
                    "\"paramsDigest\":\"0000000000000000000000000000000000000000000000000000000000000000\"}",
                    1001),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  /* The exact digest from a binding's JSON text, and from the request itself, equal mrtr_params_digest's. */
  EXPECT(open_plain(ring, &token,
                    "{\"subject\":\"alice\",\"protocol\":\"2026-07-28\",\"method\":\"tools/call\",\"target\":"
                    "\"t\",\"params\":{\"name\":\"t\",\"arguments\":{\"a\":1}}}",
                    1001),
         MRTR_OK);
  const char *req =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"a\":1},"
      "\"inputResponses\":{}}}";
  EXPECT(mrtr_binding_for(S(req), S("alice"), false, S("2026-07-28"), &strings), MRTR_OK);
  EXPECT(open_plain(ring, &token, buf_text(&strings), 1001), MRTR_OK);
  mrtr_buf_free(&strings);
  const char *other_args =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"a\":2}}}";
  EXPECT(mrtr_binding_for(S(other_args), S("alice"), false, S("2026-07-28"), &strings), MRTR_OK);
  EXPECT(open_plain(ring, &token, buf_text(&strings), 1001), MRTR_ERR_STATE_WRONG_REQUEST);
  mrtr_buf_free(&strings);
  const char *list = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
  EXPECT(mrtr_binding_for(S(list), S("alice"), false, S("2026-07-28"), &strings), MRTR_ERR_INPUT_REQUIRED_METHOD_NOT_ALLOWED);
  mrtr_buf_free(&token);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* Attack: the caller's nonce, reused under one AES-GCM key, gives away the key's forgery power. Production builds have
 * no such function; when this program is linked dynamically, it checks the library it was given (the script checks the
 * static archives with nm). */
static void test_no_nonce_seal_in_release(void) {
  void *seal = dlsym(RTLD_DEFAULT, "mrtr_keyring_seal");
  void *vectors = dlsym(RTLD_DEFAULT, "mrtr_keyring_seal_with_nonce");
  if (!seal) {
    printf("(linked statically: scripts/tests/40-c.sh checks the archive's symbols)\n");
    return;
  }
#if defined(MRTR_TEST_VECTORS)
  CHECK(vectors != NULL);
#else
  CHECK(vectors == NULL);
#endif
}

/* A replay guard in memory, as a host's store would be: first use wins. */
typedef struct {
  char ids[16][MRTR_STATE_ID_TEXT_BYTES];
  uint64_t expiries[16];
  int count, calls;
} memory_guard;

static bool first_use(void *user, const char *state_id_hex, uint64_t expiry) {
  memory_guard *g = user;
  g->calls++;
  for (int i = 0; i < g->count; i++)
    if (strcmp(g->ids[i], state_id_hex) == 0) return false;
  if (g->count == 16) return false;
  snprintf(g->ids[g->count], MRTR_STATE_ID_TEXT_BYTES, "%s", state_id_hex);
  g->expiries[g->count++] = expiry;
  return true;
}

/* Attack: a state presented twice (a final round run again, an earlier round's answers brought back). */
static void test_replay_guard(void) {
  unsigned char secret[32] = {13};
  mrtr_keyring *ring;
  mrtr_buf token;
  mrtr_opened opened;
  memory_guard g = {{{0}}, {0}, 0, 0};
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  const char *b = binding_for("alice", "t", 1), *bob = binding_for("bob", "t", 1);
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 60, (const uint8_t *)"p", 1, &token), MRTR_OK);
  /* Refused for another reason first: the guard is not asked, the state not used up. */
  EXPECT(keyring_open(ring, buf_text(&token), token.len, bob, 1001, first_use, &g, &opened), MRTR_ERR_STATE_WRONG_SUBJECT);
  CHECK(g.calls == 0);
  EXPECT(keyring_open(ring, buf_text(&token), token.len, b, 1001, first_use, &g, &opened), MRTR_OK);
  CHECK(g.calls == 1 && g.count == 1 && strcmp(g.ids[0], opened.state_id) == 0 && g.expiries[0] == 1060);
  mrtr_buf_free(&opened.payload);
  EXPECT(keyring_open(ring, buf_text(&token), token.len, b, 1002, first_use, &g, &opened), MRTR_ERR_STATE_REPLAYED);
  CHECK(MRTR_ERR_STATE_REPLAYED == 38 && mrtr_rule_area(MRTR_ERR_STATE_REPLAYED) == MRTR_AREA_STATE);
  CHECK(strcmp(mrtr_rule_str(MRTR_ERR_STATE_REPLAYED), "state-replayed") == 0);
  CHECK(is_empty(&opened.payload) && opened.state_id[0] == '\0');
  /* Without a guard the same state opens again until it expires: the host's choice. */
  EXPECT(open_plain(ring, &token, b, 1003), MRTR_OK);
  mrtr_buf_free(&token);

  /* Sealed rounds: the retry's state is single-use under the guard; the round says its number and state. */
  const char *rounds = ROUNDS;
  const char *alice = "{\"subject\":\"alice\",\"now\":1000}";
  char *call = format_call(1, "");
  mrtr_buf round, answer, retry, again;
  EXPECT(resume(ring, rounds, alice, S(call), S(ASK), first_use, &g, &round), MRTR_OK);
  EXPECT(respond(ring, rounds, alice, S(call), buf_text(&round), round.len, S(ASK), NULL, 0, &answer), MRTR_OK);
  mrtr_buf_free(&round);
  EXPECT(mrtr_retry(S(call), buf_text(&answer), answer.len, S(ANSWER), S("2"), 0, NULL, &retry), MRTR_OK);
  EXPECT(resume(ring, rounds, alice, buf_text(&retry), retry.len, S(ASK), first_use, &g, &again), MRTR_OK);
  cJSON *r = take(&again);
  CHECK(r && at(r, "round")->valueint == 1 && cJSON_IsString(at(r, "stateId")) && at(r, "expiry")->valuedouble == 1300);
  CHECK(r && g.count == 2 && strcmp(at(r, "stateId")->valuestring, g.ids[1]) == 0);
  cJSON_Delete(r);
  EXPECT(resume(ring, rounds, alice, buf_text(&retry), retry.len, S(ASK), first_use, &g, &again),
         MRTR_ERR_STATE_REPLAYED);
  mrtr_buf_free(&retry);
  mrtr_buf_free(&answer);
  free(call);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* Review I3: a guard that calls back into the ring running it. Changing the ring would wait for the open's own
 * read lock forever: it is usage-out-of-turn instead; reading it takes the read lock again, which never waits. (The mrtr-ffi crate's Rust tests
 * run the same with a timeout before this file runs, so a regression fails there rather than hanging here.) */
typedef struct {
  mrtr_keyring *ring;
  mrtr_status add, set_current, free, seals;
  uint64_t count;
} reentrant_guard;

static bool rotating_first_use(void *user, const char *state_id_hex, uint64_t expiry) {
  reentrant_guard *g = user;
  unsigned char secret[32] = {18};
  (void)state_id_hex;
  (void)expiry;
  g->add = mrtr_keyring_add(g->ring, 2, S(ALG_XCHACHA20_POLY1305), secret, 32, NULL, 0);
  g->set_current = set_current(g->ring, 1);
  g->free = mrtr_keyring_free(g->ring);
  g->seals = seals_of(g->ring, 1, &g->count);
  return true;
}

static void test_guard_reentry(void) {
  unsigned char secret[32] = {17};
  mrtr_keyring *ring;
  mrtr_buf token;
  mrtr_opened opened;
  uint64_t seals = 0;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  const char *b = binding_for("alice", "t", 1);
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 60, NULL, 0, &token), MRTR_OK);
  reentrant_guard g = {ring, -1, -1, -1, -1, 0};
  EXPECT(keyring_open(ring, buf_text(&token), token.len, b, 1001, rotating_first_use, &g, &opened), MRTR_OK);
  mrtr_buf_free(&opened.payload);
  CHECK(g.add == MRTR_ERR_USAGE_OUT_OF_TURN && g.set_current == MRTR_ERR_USAGE_OUT_OF_TURN);
  CHECK(g.free == MRTR_ERR_USAGE_OUT_OF_TURN);
  CHECK(g.seals == MRTR_OK && g.count == 1);
  /* Nothing changed; after the open the ring changes again. */
  EXPECT(seals_of(ring, 2, &seals), NOT_DONE);
  EXPECT(mrtr_keyring_add(ring, 2, S(ALG_XCHACHA20_POLY1305), secret, 32, NULL, 0), MRTR_OK);
  mrtr_buf_free(&token);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* Attack: staging's token opened in production (two deployments sharing a secret). */
static void test_context_separation(void) {
  unsigned char secret[32] = {14};
  mrtr_keyring *staging, *production, *plain;
  mrtr_buf token;
  EXPECT(mrtr_keyring_new(1, S(ALG_XCHACHA20_POLY1305), secret, 32, NULL, 0, &staging), MRTR_OK);
  EXPECT(mrtr_keyring_new(1, S(ALG_XCHACHA20_POLY1305), secret, 32, NULL, 0, &production), MRTR_OK);
  EXPECT(mrtr_keyring_new(1, S(ALG_XCHACHA20_POLY1305), secret, 32, NULL, 0, &plain), MRTR_OK);
  EXPECT(mrtr_keyring_set_context(staging, (const uint8_t *)"staging", 7), MRTR_OK);
  EXPECT(mrtr_keyring_set_context(production, (const uint8_t *)"production", 10), MRTR_OK);
  const char *b = binding_for("alice", "t", 1);
  EXPECT(mrtr_keyring_seal(staging, S(b), 1000, 60, NULL, 0, &token), MRTR_OK);
  EXPECT(open_plain(staging, &token, b, 1001), MRTR_OK);
  EXPECT(open_plain(production, &token, b, 1001), MRTR_ERR_STATE_TAMPERED);
  EXPECT(open_plain(plain, &token, b, 1001), MRTR_ERR_STATE_TAMPERED);
  EXPECT(mrtr_keyring_set_context(production, (const uint8_t *)"staging", 7), MRTR_OK);
  EXPECT(open_plain(production, &token, b, 1001), MRTR_OK);
  EXPECT(mrtr_keyring_set_context(staging, NULL, 0), MRTR_OK); /* back to the default, empty label */
  EXPECT(open_plain(staging, &token, b, 1001), MRTR_ERR_STATE_TAMPERED);
  mrtr_buf_free(&token);
  char label[66];
  memset(label, 'x', sizeof label);
  EXPECT(mrtr_keyring_set_context(plain, (const uint8_t *)label, 64), MRTR_OK);
  EXPECT(mrtr_keyring_set_context(plain, (const uint8_t *)label, 65), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_set_context(NULL, NULL, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_keyring_free(staging), MRTR_OK);
  EXPECT(mrtr_keyring_free(production), MRTR_OK);
  EXPECT(mrtr_keyring_free(plain), MRTR_OK);
}

/* Attack: one AES-GCM key sealing past its budget of random nonces (a collision gives away its forgery power),
 * also through a second ring of the same key. */
static void test_seal_budget(void) {
  unsigned char s1[32] = {15}, s2[32] = {16};
  mrtr_keyring *ring;
  mrtr_buf token = {NULL, 0};
  uint64_t seals = 99;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), s1, 32, NULL, 0, &ring), MRTR_OK);
  const char *b = binding_for("alice", "t", 1);
  EXPECT(seals_of(ring, 1, &seals), MRTR_OK);
  CHECK(seals == 0);
  EXPECT(mrtr_keyring_set_seal_budget(ring, 2), MRTR_OK);
  for (int i = 0; i < 2; i++) {
    EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 60, NULL, 0, &token), MRTR_OK);
    mrtr_buf_free(&token);
  }
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 60, NULL, 0, &token), MRTR_ERR_USAGE_SEAL_BUDGET_SPENT);
  CHECK(MRTR_ERR_USAGE_SEAL_BUDGET_SPENT == 83 && mrtr_rule_area(MRTR_ERR_USAGE_SEAL_BUDGET_SPENT) == MRTR_AREA_USAGE);
  CHECK(is_empty(&token));
  EXPECT(seals_of(ring, 1, &seals), MRTR_OK);
  CHECK(seals == 2); /* a refused seal is not counted */
  /* Review I4: a ring built again from the same secret does not restart the key's count. */
  mrtr_keyring *again;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), s1, 32, NULL, 0, &again), MRTR_OK);
  EXPECT(mrtr_keyring_set_seal_budget(again, 2), MRTR_OK);
  EXPECT(seals_of(again, 1, &seals), MRTR_OK);
  CHECK(seals == 2);
  EXPECT(mrtr_keyring_seal(again, S(b), 1000, 60, NULL, 0, &token), MRTR_ERR_USAGE_SEAL_BUDGET_SPENT);
  EXPECT(mrtr_keyring_free(again), MRTR_OK);
  /* Rotate: the new key has its own budget; the old one still opens. */
  EXPECT(mrtr_keyring_add(ring, 2, S(ALG_XCHACHA20_POLY1305), s2, 32, NULL, 0), MRTR_OK);
  EXPECT(set_current(ring, 2), MRTR_OK);
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 60, NULL, 0, &token), MRTR_OK);
  EXPECT(open_plain(ring, &token, b, 1001), MRTR_OK);
  mrtr_buf_free(&token);
  EXPECT(seals_of(ring, 2, &seals), MRTR_OK);
  CHECK(seals == 1);
  EXPECT(seals_of(ring, 9, &seals), NOT_DONE);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

typedef struct {
  const mrtr_keyring *ring;
  const mrtr_buf *fixed; /* sealed under key 1, which stays */
  int failures, unknown;
} worker_args;

static void *seal_and_open(void *p) {
  worker_args *w = p;
  const char *b = binding_for("alice", "t", 1);
  for (int i = 0; i < 200; i++) {
    mrtr_buf token;
    mrtr_opened opened;
    uint8_t payload[8] = {0};
    memcpy(payload, &i, sizeof i);
    if (mrtr_keyring_seal(w->ring, S(b), 1000, 60, payload, sizeof payload, &token) != MRTR_OK) w->failures++;
    mrtr_status s = keyring_open(w->ring, buf_text(&token), token.len, b, 1001, NULL, NULL, &opened);
    if (s == MRTR_ERR_STATE_UNKNOWN_KEY)
      w->unknown++; /* a rotation removed the key in between */
    else if (s != MRTR_OK || opened.payload.len != sizeof payload || memcmp(opened.payload.ptr, payload, sizeof payload) != 0)
      w->failures++;
    mrtr_buf_free(&token);
    mrtr_buf_free(&opened.payload);
    if (w->fixed && open_plain(w->ring, w->fixed, b, 1001) != MRTR_OK) w->failures++;
  }
  /* The last error is per thread: this failure is not seen by the main thread. */
  mrtr_classified c;
  if (mrtr_classify(S("nope"), 0, NULL, &c) != MRTR_ERR_JSONRPC_PARSE_ERROR) w->failures++;
  return NULL;
}

static void test_threads(void) {
  unsigned char secret[32] = {42};
  mrtr_keyring *ring;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  worker_args w[2] = {{ring, NULL, 0, 0}, {ring, NULL, 0, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, seal_and_open, &w[i]) == 0);
  for (int i = 0; i < 2; i++) CHECK(pthread_join(t[i], NULL) == 0);
  CHECK(w[0].failures == 0 && w[1].failures == 0 && w[0].unknown == 0 && w[1].unknown == 0);
  CHECK(mrtr_last_error_code() == MRTR_OK);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

typedef struct {
  mrtr_keyring *ring;
  int failures;
} rotator_args;

/* Rotates keys 2 and 3 in and out, and changes the ring's settings, while other threads seal and open. */
static void *rotate(void *p) {
  rotator_args *r = p;
  for (int i = 0; i < 200; i++) {
    uint8_t id = (uint8_t)(2 + i % 2), old = (uint8_t)(id == 2 ? 3 : 2);
    unsigned char secret[32] = {id};
    if (mrtr_keyring_add(r->ring, id, S(ALG_XCHACHA20_POLY1305), secret, 32, NULL, 0) != MRTR_OK) r->failures++;
    if (set_current(r->ring, id) != MRTR_OK) r->failures++;
    mrtr_status s = remove_key(r->ring, old);
    if (s != MRTR_OK && !(i == 0 && s == NOT_DONE)) r->failures++;
    if (mrtr_keyring_set_max_token_bytes(r->ring, (size_t)65536 + (size_t)i) != MRTR_OK) r->failures++;
    if (mrtr_keyring_set_seal_budget(r->ring, UINT64_MAX - (uint64_t)i) != MRTR_OK) r->failures++;
    if (i % 50 == 0 && set_current(r->ring, 1) != MRTR_OK) r->failures++;
  }
  return NULL;
}

/* Review L9: rotating keys (the write lock) while other threads seal and open (the read lock). Without the lock this
 * is a data race on the ring's keys, which AddressSanitizer and valgrind report. */
static void test_rotation_under_concurrent_open(void) {
  unsigned char secret[32] = {43};
  mrtr_keyring *ring;
  mrtr_buf fixed;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  const char *b = binding_for("alice", "t", 1);
  EXPECT(mrtr_keyring_seal(ring, S(b), 1000, 60, NULL, 0, &fixed), MRTR_OK);
  worker_args w[3] = {{ring, &fixed, 0, 0}, {ring, &fixed, 0, 0}, {ring, &fixed, 0, 0}};
  rotator_args r = {ring, 0};
  pthread_t t[4];
  CHECK(pthread_create(&t[3], NULL, rotate, &r) == 0);
  for (int i = 0; i < 3; i++) CHECK(pthread_create(&t[i], NULL, seal_and_open, &w[i]) == 0);
  for (int i = 0; i < 4; i++) CHECK(pthread_join(t[i], NULL) == 0);
  for (int i = 0; i < 3; i++) CHECK(w[i].failures == 0);
  CHECK(r.failures == 0);
  EXPECT(open_plain(ring, &fixed, b, 1001), MRTR_OK);
  mrtr_buf_free(&fixed);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* Sealed rounds: the answers of earlier rounds travel in the sealed state. */
static void test_rounds(void) {
  unsigned char secret[32] = {7};
  mrtr_keyring *ring;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  const char *rounds = ROUNDS;
  const char *alice = "{\"subject\":\"alice\",\"now\":1000}";
  char *call = format_call(1, "");
  mrtr_buf round, answer, retry, second;
  EXPECT(resume(ring, rounds, alice, S(call), S(ASK), NULL, NULL, &round), MRTR_OK);
  cJSON *r = cJSON_ParseWithLength(buf_text(&round), round.len);
  CHECK(r && cJSON_GetArraySize(at(r, "missing")) == 1 && cJSON_GetArraySize(at(r, "answers")) == 0);
  CHECK(r && at(r, "round")->valueint == 0 && cJSON_IsNull(at(r, "stateId")) && cJSON_IsNull(at(r, "expiry")));
  cJSON_Delete(r);
  EXPECT(respond(ring, rounds, alice, S(call), buf_text(&round), round.len, S(ASK), S("{\"step\":1}"), &answer),
         MRTR_OK);
  EXPECT(respond(ring, rounds, alice, S(call), S("[1]"), S(ASK), NULL, 0, &second),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  mrtr_buf_free(&round);
  EXPECT(mrtr_retry(S(call), buf_text(&answer), answer.len, S(ANSWER), S("2"), 0, NULL, &retry), MRTR_OK);
  EXPECT(resume(ring, rounds, alice, buf_text(&retry), retry.len, S(ASK), NULL, NULL, &second), MRTR_OK);
  cJSON *done = take(&second);
  CHECK(done && cJSON_GetArraySize(at(done, "missing")) == 0); /* complete */
  CHECK(done && at(at(done, "data"), "step")->valueint == 1);
  CHECK(done && strcmp(at(at(at(at(done, "answers"), "login"), "content"), "name")->valuestring, "octocat") == 0);
  CHECK(done && at(done, "round")->valueint == 1 && strlen(at(done, "stateId")->valuestring) == 24);
  cJSON_Delete(done);
  /* Another principal, anonymous, or later than the ttl: the state does not open. */
  const char *bob = "{\"subject\":\"bob\",\"now\":1000}", *anon = "{\"anonymous\":true,\"now\":1000}",
             *late = "{\"subject\":\"alice\",\"now\":5000}";
  EXPECT(resume(ring, rounds, bob, buf_text(&retry), retry.len, S(ASK), NULL, NULL, &second),
         MRTR_ERR_STATE_WRONG_SUBJECT);
  EXPECT(resume(ring, rounds, anon, buf_text(&retry), retry.len, S(ASK), NULL, NULL, &second),
         MRTR_ERR_STATE_WRONG_SUBJECT);
  EXPECT(resume(ring, rounds, late, buf_text(&retry), retry.len, S(ASK), NULL, NULL, &second),
         MRTR_ERR_STATE_EXPIRED);
  /* The settings' limits and protocol reach the core. */
  const char *small = "{\"ttl\":300,\"protocol\":\"2026-07-28\",\"limits\":{\"maxMessageBytes\":16}}";
  EXPECT(resume(ring, small, alice, S(call), S(ASK), NULL, NULL, &second), MRTR_ERR_LIMIT_EXCEEDED);
  EXPECT(resume(ring, "{\"protocol\":\"1999-01-01\"}", alice, S(call), S(ASK), NULL, NULL, &second),
         MRTR_ERR_JSONRPC_INVALID);
  EXPECT(resume(ring, "{\"ttl\":-1}", alice, S(call), S(ASK), NULL, NULL, &second), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(resume(ring, "{\"ttl\":300,\"protocol\":\"sep-2322\"}", alice, buf_text(&retry), retry.len, S(ASK), NULL, NULL,
                &second),
         MRTR_ERR_STATE_WRONG_REQUEST);
  /* Answers are pinned to their question by default: a changed question is asked again. */
  const char *ask2 =
      "{\"login\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"GitLab user?\","
      "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}}}";
  EXPECT(resume(ring, rounds, alice, buf_text(&retry), retry.len, S(ask2), NULL, NULL, &second), MRTR_OK);
  cJSON *pinned = take(&second);
  CHECK(pinned && cJSON_GetArraySize(at(pinned, "missing")) == 1);
  cJSON_Delete(pinned);
  const char *unpinned = "{\"ttl\":300,\"protocol\":\"2026-07-28\",\"pinAnswers\":false}";
  EXPECT(resume(ring, unpinned, alice, buf_text(&retry), retry.len, S(ask2), NULL, NULL, &second), MRTR_OK);
  cJSON *loose = take(&second);
  CHECK(loose && cJSON_GetArraySize(at(loose, "missing")) == 0);
  cJSON_Delete(loose);
  mrtr_buf_free(&retry);
  mrtr_buf_free(&answer);
  free(call);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* ---- the client machine --------------------------------------------------- */

static cJSON *poll_json(mrtr_client *c, int transmit) {
  mrtr_buf out;
  mrtr_status s = transmit ? mrtr_client_poll_transmit(c, &out) : mrtr_client_poll_event(c, &out);
  CHECK(s == MRTR_OK);
  return take(&out);
}

static void test_client_machine(void) {
  mrtr_client *client;
  EXPECT(mrtr_client_new(NULL, 0, &client), MRTR_OK);
  char *call = format_call(1, "");
  uint64_t h = 99, h2;
  EXPECT(mrtr_client_send(client, S(call), &h), MRTR_OK);
  CHECK(h == 0);
  EXPECT(mrtr_client_send(client, S(call), &h2), MRTR_ERR_RETRY_ID_REUSED);
  cJSON *sent = poll_json(client, 1);
  CHECK(sent && at(sent, "id")->valueint == 1);
  cJSON_Delete(sent);
  mrtr_buf none;
  EXPECT(mrtr_client_poll_transmit(client, &none), MRTR_OK);
  CHECK(is_empty(&none));
  EXPECT(mrtr_client_poll_event(client, &none), MRTR_OK);
  CHECK(is_empty(&none));

  /* The server asks; the machine says so. */
  mrtr_buf answer;
  EXPECT(mrtr_respond(S(call), S(ASK), S("\"s1\""), 0, NULL, &answer), MRTR_OK);
  EXPECT(mrtr_client_answer(client, h, S(ANSWER), S("2")), MRTR_ERR_USAGE_OUT_OF_TURN); /* not asked yet */
  EXPECT(mrtr_client_handle_response(client, (const char *)answer.ptr, answer.len), MRTR_OK);
  EXPECT(mrtr_client_handle_response(client, (const char *)answer.ptr, answer.len), MRTR_ERR_USAGE_OUT_OF_TURN);
  mrtr_buf_free(&answer);
  cJSON *event = poll_json(client, 0);
  CHECK(event && strcmp(at(event, "type")->valuestring, "inputRequired") == 0);
  CHECK(event && (uint64_t)at(event, "handle")->valuedouble == h && at(event, "round")->valueint == 0);
  CHECK(event && at(at(event, "inputRequests"), "login") != NULL);
  cJSON_Delete(event);

  /* The host answers; the retry goes out with a new id and the exact state. */
  EXPECT(mrtr_client_answer(client, 42, S(ANSWER), S("2")), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_client_answer(client, h, S("{}"), S("2")), MRTR_ERR_RETRY_MISSING_INPUT_RESPONSE);
  EXPECT(mrtr_client_answer(client, h, S(ANSWER), S("1")), MRTR_ERR_RETRY_ID_REUSED);
  EXPECT(mrtr_client_answer(client, h, S(ANSWER), S("2")), MRTR_OK);
  cJSON *retry = poll_json(client, 1);
  CHECK(retry && at(retry, "id")->valueint == 2);
  CHECK(retry && strcmp(at(at(retry, "params"), "requestState")->valuestring, "s1") == 0);
  cJSON_Delete(retry);

  /* Load shedding: state only, so retry at once with nothing. */
  char *retry_call = format_call(2, "");
  mrtr_buf shed;
  EXPECT(mrtr_respond(S(retry_call), NULL, 0, S("\"s2\""), 0, NULL, &shed), MRTR_OK);
  EXPECT(mrtr_client_handle_response(client, (const char *)shed.ptr, shed.len), MRTR_OK);
  mrtr_buf_free(&shed);
  event = poll_json(client, 0);
  CHECK(event && strcmp(at(event, "type")->valuestring, "retryNow") == 0);
  cJSON_Delete(event);
  /* A load-shedding round answers nothing (NULL): the retry carries the state back, no responses. */
  EXPECT(mrtr_client_answer(client, h, NULL, 0, S("\"third\"")), MRTR_OK);
  retry = poll_json(client, 1);
  CHECK(retry && strcmp(at(retry, "id")->valuestring, "third") == 0);
  CHECK(retry && !cJSON_HasObjectItem(at(retry, "params"), "inputResponses"));
  CHECK(retry && at(at(retry, "params"), "inputResponses") == NULL);
  cJSON_Delete(retry);

  /* The final answer. */
  EXPECT(mrtr_client_handle_response(client, S("{\"jsonrpc\":\"2.0\",\"id\":\"third\",\"result\":{\"resultType\":\"complete\","
                                               "\"content\":[]}}")),
         MRTR_OK);
  event = poll_json(client, 0);
  CHECK(event && strcmp(at(event, "type")->valuestring, "done") == 0);
  CHECK(event && strcmp(at(at(at(event, "response"), "result"), "resultType")->valuestring, "complete") == 0);
  cJSON_Delete(event);
  EXPECT(mrtr_client_handle_response(client, S("{\"jsonrpc\":\"2.0\",\"id\":77,\"result\":{}}")), MRTR_ERR_USAGE_OUT_OF_TURN);
  EXPECT(mrtr_client_send(client, S("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"requestState\":\"x\"}}"),
                          &h2),
         MRTR_ERR_INPUT_RESPONSES_UNSOLICITED);
  EXPECT(mrtr_client_abandon(client, h), MRTR_OK);
  EXPECT(mrtr_client_free(client), MRTR_OK);

  /* The round bound. */
  EXPECT(mrtr_client_new(S("{\"maxRounds\":0}"), &client), MRTR_OK);
  EXPECT(mrtr_client_send(client, S(call), &h), MRTR_OK);
  EXPECT(mrtr_respond(S(call), S(ASK), NULL, 0, 0, NULL, &answer), MRTR_OK);
  EXPECT(mrtr_client_handle_response(client, (const char *)answer.ptr, answer.len), MRTR_OK);
  mrtr_buf_free(&answer);
  EXPECT(mrtr_client_answer(client, h, S(ANSWER), S("2")), MRTR_ERR_RETRY_ROUNDS_EXCEEDED);
  EXPECT(mrtr_client_free(client), MRTR_OK); /* queued messages and events are freed with it */
  free(retry_call);
  free(call);
}

/* ---- transports: the event-stream decoder and encoder ------------------------- */

/* The next block of `d` as JSON (NULL when none is ready; *status the call's status). */
static cJSON *next_block(mrtr_sse_decoder *d, mrtr_status *status) {
  mrtr_buf out;
  *status = mrtr_sse_decoder_poll_event(d, &out);
  return take(&out);
}

static int is_text(const cJSON *v, const char *key, const char *want) {
  const cJSON *item = v ? at(v, key) : NULL;
  return cJSON_IsString(item) && strcmp(item->valuestring, want) == 0;
}

static void test_sse(void) {
  mrtr_sse_decoder *d;
  mrtr_status status;
  EXPECT(mrtr_sse_decoder_new(NULL, &d), MRTR_OK);
  /* A multibyte character split across chunks; CRLF split across chunks; a comment. */
  EXPECT(mrtr_sse_decoder_feed(d, (const uint8_t *)"data: caf\xc3", 10), MRTR_OK);
  EXPECT(mrtr_sse_decoder_feed(d, (const uint8_t *)"\xa9\r", 2), MRTR_OK);
  EXPECT(mrtr_sse_decoder_feed(d, (const uint8_t *)"\n: note\nid: 7\r\n\r\n", 18), MRTR_OK);
  EXPECT(mrtr_sse_decoder_feed(d, NULL, 0), MRTR_OK);
  cJSON *v = next_block(d, &status);
  CHECK(status == MRTR_OK && is_text(v, "data", "caf\xc3\xa9") && is_text(v, "id", "7") && !at(v, "event"));
  cJSON_Delete(v);
  v = next_block(d, &status);
  CHECK(status == MRTR_OK && v == NULL);

  /* A chunk that is not UTF-8: its block is an error with the core's rule, and decoding goes on. */
  const char *bad = "data: \xff\xfe\n\nevent: input_required\nid: 8\n\n";
  EXPECT(mrtr_sse_decoder_feed(d, (const uint8_t *)bad, strlen(bad)), MRTR_OK);
  mrtr_buf out = {(uint8_t *)"junk", 4};
  EXPECT(mrtr_sse_decoder_poll_event(d, &out), MRTR_ERR_JSONRPC_PARSE_ERROR);
  CHECK(is_empty(&out) && strstr(mrtr_last_error_message(), "UTF-8") != NULL);
  v = next_block(d, &status);
  CHECK(status == MRTR_OK && is_text(v, "event", "input_required") && is_text(v, "id", "8") && !at(v, "data"));
  cJSON_Delete(v);
  /* An unterminated block is discarded at the end of the stream. */
  EXPECT(mrtr_sse_decoder_feed(d, (const uint8_t *)"data: lost", 10), MRTR_OK);
  EXPECT(mrtr_sse_decoder_finish(d), MRTR_OK);
  v = next_block(d, &status);
  CHECK(status == MRTR_OK && v == NULL);
  EXPECT(mrtr_sse_decoder_free(d), MRTR_OK);

  /* A block over max_message_bytes is limit-exceeded (never buffered whole); the next one is read. */
  mrtr_limits small = mrtr_limits_default();
  small.max_message_bytes = 16;
  EXPECT(mrtr_sse_decoder_new(&small, &d), MRTR_OK);
  char big[200];
  memset(big, 'x', sizeof big);
  EXPECT(mrtr_sse_decoder_feed(d, (const uint8_t *)"data: ", 6), MRTR_OK);
  for (int i = 0; i < 50; i++) EXPECT(mrtr_sse_decoder_feed(d, (const uint8_t *)big, sizeof big), MRTR_OK);
  EXPECT(mrtr_sse_decoder_feed(d, (const uint8_t *)"\n\nretry: 250\n\n", 14), MRTR_OK);
  v = next_block(d, &status);
  CHECK(status == MRTR_ERR_LIMIT_EXCEEDED && v == NULL);
  v = next_block(d, &status);
  CHECK(status == MRTR_OK && v && cJSON_IsNumber(at(v, "retry")) && at(v, "retry")->valueint == 250);
  cJSON_Delete(v);

  /* NULL pointers. */
  out.ptr = (uint8_t *)"junk";
  EXPECT(mrtr_sse_decoder_new(NULL, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_decoder_feed(NULL, (const uint8_t *)"x", 1), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_decoder_feed(d, NULL, 3), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_decoder_finish(NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_decoder_poll_event(NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(is_empty(&out));
  EXPECT(mrtr_sse_decoder_poll_event(d, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_decoder_free(d), MRTR_OK);
  EXPECT(mrtr_sse_decoder_free(NULL), MRTR_OK);

  /* The encoder: what it writes decodes to the same block. */
  const char *event = "{\"event\":\"message\",\"id\":\"k.1\",\"retry\":100,\"data\":\"line 1\\nline 2\"}";
  EXPECT(mrtr_sse_encode(S(event), &out), MRTR_OK);
  CHECK(out.ptr && strstr((const char *)out.ptr, "data: line 1\ndata: line 2\n") != NULL);
  EXPECT(mrtr_sse_decoder_new(NULL, &d), MRTR_OK);
  EXPECT(mrtr_sse_decoder_feed(d, out.ptr, out.len), MRTR_OK);
  mrtr_buf_free(&out);
  v = next_block(d, &status);
  cJSON *want = cJSON_Parse(event);
  CHECK(status == MRTR_OK && v && cJSON_Compare(v, want, 1));
  cJSON_Delete(want);
  cJSON_Delete(v);
  EXPECT(mrtr_sse_decoder_free(d), MRTR_OK);
  /* No field: an empty text, not {NULL, 0}. */
  EXPECT(mrtr_sse_encode(S("{}"), &out), MRTR_OK);
  CHECK(out.ptr != NULL && out.len == 0);
  mrtr_buf_free(&out);
  /* What could not be read back as written, and what is no event. */
  EXPECT(mrtr_sse_encode(S("{\"id\":\"a\\nb\"}"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(is_empty(&out));
  EXPECT(mrtr_sse_encode(S("{\"event\":\"a\\rb\"}"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_encode(S("{\"id\":\"a\\u0000b\"}"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_encode(S("{\"retry\":-1}"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_encode(S("{\"comment\":\"x\"}"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_encode(S("[1]"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_encode(S("{\"data\":\"\xff\"}"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_encode(NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_sse_encode(S("{}"), NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
}

/* ---- transports: the client machine of one call over HTTP ---------------------- */

static const char *CALL_1335 = "{\"mode\":\"sep-1335\",\"url\":\"https://example.com/mcp\",\"protocol\":\"2025-11-25\"}";
static const char *TOOL_CALL =
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"deploy\",\"arguments\":{}}}";

/* The next request the call sends, or event it reports (`transmit`), as JSON; NULL when none is queued. */
static cJSON *next_of(mrtr_http_call *call, int transmit) {
  mrtr_buf out;
  mrtr_status s = transmit ? mrtr_http_call_poll_transmit(call, &out) : mrtr_http_call_poll_event(call, &out);
  CHECK(s == MRTR_OK);
  return take(&out);
}

static cJSON *op_next(mrtr_operation *op, int transmit) {
  mrtr_buf out;
  mrtr_status s = transmit ? mrtr_operation_poll_transmit(op, &out) : mrtr_operation_poll_event(op, &out);
  CHECK(s == MRTR_OK);
  return take(&out);
}

/* The await-style tool in C, over the exports the core's table declares: the tool asks its question
 * (mrtr_tool_replay_ask) in each replay; the first request misses the answer and gets input_required with
 * sealed state; the retry carries the answer, the replay gives it, and the tool completes. */
static char *buf_string(mrtr_buf *b) {
  char *s = malloc(b->len + 1);
  memcpy(s, b->ptr, b->len);
  s[b->len] = 0;
  mrtr_buf_free(b);
  return s;
}

static void test_await_style_tool(void) {
  unsigned char secret[32] = {21};
  mrtr_keyring *ring;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  const char *rounds = ROUNDS;
  const char *alice = "{\"subject\":\"alice\",\"now\":1000}";
  mrtr_buf q = {NULL, 0}, out = {NULL, 0};
  EXPECT(mrtr_question_elicit(S("GitHub user?"), S("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}"), &q),
         MRTR_OK);
  char *question = buf_string(&q);

  /* Round one: nothing answered yet, so the tool stops at its question. */
  char *call = format_call(1, "");
  mrtr_tool_replay *replay = NULL;
  EXPECT(start_replay(ring, rounds, alice, S(call), NULL, NULL, &replay), MRTR_OK);
  EXPECT(mrtr_tool_replay_ask(replay, S(question), S("login"), &out), MRTR_OK);
  CHECK(is_empty(&out));
  uint32_t round = 99;
  EXPECT(mrtr_tool_replay_round(replay, &round), MRTR_OK);
  CHECK(round == 0);
  EXPECT(mrtr_tool_replay_input_required(replay, ring, NULL, 0, &out), MRTR_OK);
  char *asked = buf_string(&out);
  cJSON *response = cJSON_Parse(asked);
  const cJSON *result = at(response, "result");
  CHECK(cJSON_IsString(at(result, "resultType")) && strcmp(at(result, "resultType")->valuestring, "input_required") == 0);
  CHECK(cJSON_IsObject(at(at(result, "inputRequests"), "login")));
  CHECK(cJSON_IsString(at(result, "requestState")));
  EXPECT(mrtr_tool_replay_free(replay), MRTR_OK);

  /* Round two: the retry carries the answer and the exact state; the replay gives the answer, the tool completes. */
  EXPECT(mrtr_retry(S(call), S(asked), S(ANSWER), S("2"), MRTR_PROTOCOL_2026_07_28, NULL, &out), MRTR_OK);
  char *retry = buf_string(&out);
  alice = "{\"subject\":\"alice\",\"now\":1010}";
  EXPECT(start_replay(ring, rounds, alice, S(retry), NULL, NULL, &replay), MRTR_OK);
  EXPECT(mrtr_tool_replay_ask(replay, S(question), S("login"), &out), MRTR_OK);
  cJSON *answer = take(&out);
  CHECK(answer && strcmp(at(at(answer, "content"), "name")->valuestring, "octocat") == 0);
  EXPECT(mrtr_tool_replay_round(replay, &round), MRTR_OK);
  CHECK(round == 1);
  EXPECT(mrtr_tool_replay_complete(replay, S("{\"content\":[{\"type\":\"text\",\"text\":\"hi octocat\"}]}"), &out), MRTR_OK);
  cJSON *done = take(&out);
  CHECK(done && cJSON_IsNumber(at(done, "id")) && at(done, "id")->valueint == 2);
  CHECK(cJSON_IsArray(at(at(done, "result"), "content")));
  /* The state of round one is not accepted from another principal. */
  const char *mallory = "{\"subject\":\"mallory\",\"now\":1010}";
  mrtr_tool_replay *stolen = NULL;
  CHECK(start_replay(ring, rounds, mallory, S(retry), NULL, NULL, &stolen) != MRTR_OK);
  CHECK(stolen == NULL);
  EXPECT(mrtr_tool_replay_free(replay), MRTR_OK);
  /* A freed handle is refused, not read (debug builds keep the table of live handles; release builds leave
   * a use after free undefined, as free() does). */
  if (mrtr_debug_checks()) EXPECT(mrtr_tool_replay_round(replay, &round), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  cJSON_Delete(answer);
  cJSON_Delete(done);
  cJSON_Delete(response);
  free(retry);
  free(asked);
  free(question);
  free(call);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* mrtr_run_tool: the same tool as a function pointer. What it asks and how it behaves come from `user`;
 * the run (the core's ToolRun) decides the rounds and the refusals. */
struct greeter {
  const char *question; /* NULL: a form elicitation of the name (mrtr_tool_run_ask_elicit) */
  bool catches;         /* goes on with a result after a refusal at its ask, as if it caught it */
  mrtr_status own;      /* not MRTR_OK: fails with this status of its own, asking nothing */
  int calls;
  mrtr_status asked;    /* what its ask returned */
  uint32_t round;
  mrtr_buf data;        /* what the run said the last round kept */
  mrtr_tool_run *run;   /* the run it was given (stale after the call) */
};

static mrtr_status greet(void *user, mrtr_tool_run *run, const char *arguments, size_t arguments_len) {
  struct greeter *g = user;
  mrtr_buf answer = {NULL, 0};
  g->calls++;
  g->run = run;
  CHECK(arguments[arguments_len] == 0 && strcmp(arguments, "{\"location\":\"NYC\"}") == 0);
  if (g->own != MRTR_OK) return g->own;
  EXPECT(mrtr_tool_run_round(run, &g->round), MRTR_OK);
  EXPECT(mrtr_tool_run_data(run, &g->data), MRTR_OK);
  EXPECT(mrtr_tool_run_set_data(run, S("{\"step\":1}")), MRTR_OK);
  g->asked = g->question ? mrtr_tool_run_ask(run, S(g->question), NULL, 0, &answer)
                         : mrtr_tool_run_ask_elicit(run, S("GitHub user?"), S("{\"type\":\"object\",\"properties\":"
                                                                              "{\"name\":{\"type\":\"string\"}}}"),
                                                    NULL, 0, &answer);
  if (g->asked == MRTR_OK && is_empty(&answer)) g->asked = MRTR_TOOL_STOP; /* no answer yet: stop here */
  if (g->asked != MRTR_OK && !(g->catches && g->asked != MRTR_TOOL_STOP)) return g->asked;
  cJSON *a = take(&answer);
  const cJSON *name = at(at(a, "content"), "name");
  char result[128];
  snprintf(result, sizeof result, "{\"content\":[{\"type\":\"text\",\"text\":\"Hello, %s\"}]}",
           cJSON_IsString(name) ? name->valuestring : "nobody");
  cJSON_Delete(a);
  return mrtr_tool_result(run, S(result));
}

/* mrtr_run_tool under the round `settings` for the `call` (JSON text). */
static mrtr_status run_tool(const mrtr_keyring *ring, const char *settings, const char *call, const char *request,
                            size_t request_len, mrtr_first_use guard, void *guard_user, mrtr_tool tool, void *user,
                            mrtr_buf *out, uint16_t *status, mrtr_status *refusal) {
  return mrtr_run_tool(ring, request, request_len, S(settings), S(call), guard, guard_user, tool, user, out, status,
                       refusal);
}

/* One run of `g` on `request`: the call's status, the response (parsed), its HTTP status and refusal. */
static mrtr_status run_greeter(mrtr_keyring *ring, struct greeter *g, const char *request, cJSON **response,
                               uint16_t *status, mrtr_status *refusal) {
  const char *rounds = ROUNDS;
  const char *alice = "{\"subject\":\"alice\",\"now\":1000}";
  mrtr_buf out = {NULL, 0};
  *status = 0;
  *refusal = 12345;
  mrtr_status s = run_tool(ring, rounds, alice, S(request), NULL, NULL, greet, g, &out, status, refusal);
  if (s != MRTR_OK) CHECK(is_empty(&out));
  *response = take(&out);
  return s;
}

/* A tool that sets its result, then runs another tool inside (a greeter, first round) before it returns. */
struct nesting {
  mrtr_keyring *ring;
  const char *request;
  mrtr_status inner;
};

static mrtr_status nests(void *user, mrtr_tool_run *run, const char *arguments, size_t arguments_len) {
  struct nesting *n = user;
  (void)arguments, (void)arguments_len;
  mrtr_status s = mrtr_tool_result(run, S("{\"content\":[{\"type\":\"text\",\"text\":\"outer\"}]}"));
  struct greeter inner = {0};
  cJSON *response = NULL;
  uint16_t status;
  mrtr_status refusal;
  n->inner = run_greeter(n->ring, &inner, n->request, &response, &status, &refusal);
  CHECK(strcmp(at(at(response, "result"), "resultType")->valuestring, "input_required") == 0);
  cJSON_Delete(response);
  return s;
}

static const char *result_type(const cJSON *response) {
  const cJSON *t = at(at(response, "result"), "resultType");
  return cJSON_IsString(t) ? t->valuestring : "";
}

static const char *error_rule(const cJSON *response) {
  const cJSON *rule = at(at(at(response, "error"), "data"), "rule");
  return cJSON_IsString(rule) ? rule->valuestring : "";
}

static void test_run_tool(void) {
  unsigned char secret[32] = {22};
  mrtr_keyring *ring;
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  char *call = format_call(1, "");
  cJSON *response;
  uint16_t status;
  mrtr_status refusal;

  /* Suspended: the ask has no answer, the tool returns MRTR_TOOL_STOP, the run answers input_required. */
  struct greeter first = {0};
  EXPECT(run_greeter(ring, &first, call, &response, &status, &refusal), MRTR_OK);
  CHECK(first.calls == 1 && first.asked == MRTR_TOOL_STOP && first.round == 0 && is_empty(&first.data));
  CHECK(status == 200 && refusal == MRTR_OK && strcmp(result_type(response), "input_required") == 0);
  CHECK(cJSON_IsObject(at(at(at(response, "result"), "inputRequests"), "q1")));
  char *asked = cJSON_PrintUnformatted(response);
  cJSON_Delete(response);
  /* The run lived only while the tool ran (debug builds refuse it after; release leaves it undefined). */
  uint32_t round = 99;
  if (mrtr_debug_checks()) EXPECT(mrtr_tool_run_round(first.run, &round), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  /* A result is set on the running run only. */
  EXPECT(mrtr_tool_result(NULL, S("{}")), MRTR_ERR_USAGE_INVALID_ARGUMENT);

  /* Answered and complete: the retry carries the answer and the state; the data set in round one comes back. */
  mrtr_buf out = {NULL, 0};
  EXPECT(mrtr_retry(S(call), S(asked), S("{\"q1\":{\"action\":\"accept\",\"content\":{\"name\":\"octocat\"}}}"), S("2"),
                    MRTR_PROTOCOL_2026_07_28, NULL, &out),
         MRTR_OK);
  char *retry = buf_string(&out);
  struct greeter second = {0};
  EXPECT(run_greeter(ring, &second, retry, &response, &status, &refusal), MRTR_OK);
  CHECK(second.asked == MRTR_OK && second.round == 1 && status == 200 && refusal == MRTR_OK);
  cJSON *kept = take(&second.data);
  CHECK(cJSON_IsNumber(at(kept, "step")) && at(kept, "step")->valueint == 1);
  const cJSON *content = cJSON_GetArrayItem(at(at(response, "result"), "content"), 0);
  CHECK(cJSON_IsString(at(content, "text")) && strcmp(at(content, "text")->valuestring, "Hello, octocat") == 0);
  cJSON_Delete(kept);
  cJSON_Delete(response);

  /* A refusal at the ask, caught by the tool, which goes on with a result: the refusal wins, as its error
   * response with its HTTP status. */
  struct greeter catches = {.question = "{\"method\":\"tools/list\",\"params\":{}}", .catches = true};
  EXPECT(run_greeter(ring, &catches, call, &response, &status, &refusal), MRTR_OK);
  CHECK(catches.asked == MRTR_ERR_INPUT_REQUEST_INVALID && refusal == MRTR_ERR_INPUT_REQUEST_INVALID);
  CHECK(status == 400 && strcmp(error_rule(response), "input-request-invalid") == 0);
  CHECK(cJSON_IsNumber(at(response, "id")) && at(response, "id")->valueint == 1);
  cJSON_Delete(response);

  /* An ask the request did not declare (sampling; it declares elicitation and roots): -32021 with what it needs. */
  struct greeter samples = {.question = "{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":5}}"};
  EXPECT(run_greeter(ring, &samples, call, &response, &status, &refusal), MRTR_OK);
  CHECK(samples.asked == MRTR_TOOL_STOP && refusal == MRTR_ERR_REQUEST_CAPABILITY_MISSING && status == 400);
  CHECK(cJSON_IsArray(at(at(at(response, "error"), "data"), "requiredCapabilities")) ||
        cJSON_IsObject(at(at(at(response, "error"), "data"), "requiredCapabilities")));
  cJSON_Delete(response);

  /* A run inside the tool keeps the outer tool's result: each run ends with its own tool's. */
  struct nesting nesting = {ring, call, -1};
  EXPECT(run_tool(ring, ROUNDS, "{\"subject\":\"alice\",\"now\":1000}", S(call), NULL, NULL, nests, &nesting, &out, &status,
                  &refusal),
         MRTR_OK);
  response = take(&out);
  CHECK(nesting.inner == MRTR_OK && status == 200 && strcmp(result_type(response), "complete") == 0);
  content = cJSON_GetArrayItem(at(at(response, "result"), "content"), 0);
  CHECK(cJSON_IsString(at(content, "text")) && strcmp(at(content, "text")->valuestring, "outer") == 0);
  cJSON_Delete(response);

  /* The tool's own failure, with no refusal: its status as it was, nothing to send. */
  struct greeter fails = {.own = 4242};
  EXPECT(run_greeter(ring, &fails, call, &response, &status, &refusal), 4242);
  CHECK(response == NULL);
  /* No tool, and another principal's state: failures of the call, nothing to send. */
  const char *rounds = ROUNDS;
  const char *mallory = "{\"subject\":\"mallory\",\"now\":1010}";
  EXPECT(run_tool(ring, rounds, mallory, S(call), NULL, NULL, NULL, NULL, &out, &status, &refusal),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(is_empty(&out));
  EXPECT(run_tool(ring, rounds, mallory, S(retry), NULL, NULL, greet, &fails, &out, &status, &refusal),
         MRTR_ERR_STATE_WRONG_SUBJECT);
  CHECK(is_empty(&out) && fails.calls == 1);
  free(retry);
  free(asked);
  free(call);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
}

/* The server's builders the table declares, in C: a final response, a task's status change, and the refusals
 * whose data a status code cannot carry, given as JSON. */
static void test_server_builders(void) {
  mrtr_buf out = {NULL, 0};
  char *call = format_call(7, "");
  EXPECT(mrtr_complete(S(call), S("{\"content\":[]}"), MRTR_PROTOCOL_2026_07_28, NULL, &out), MRTR_OK);
  cJSON *done = take(&out);
  CHECK(done && at(done, "id")->valueint == 7 && cJSON_IsArray(at(at(done, "result"), "content")));
  EXPECT(mrtr_task_transition(S("working"), S("completed"), &out), MRTR_OK);
  char *to = buf_string(&out);
  CHECK(strcmp(to, "completed") == 0);
  free(to);
  EXPECT(mrtr_task_transition(S("completed"), S("working"), &out), MRTR_ERR_TASK_TRANSITION_INVALID);
  /* The client declared elicitation and roots, not sampling: asking for sampling is refused, with the missing
   * capability in the refusal's data. */
  EXPECT(mrtr_question_sample(S("{\"messages\":[],\"maxTokens\":5}"), &out), MRTR_OK);
  char *sample = buf_string(&out);
  size_t n = strlen(sample) + 16;
  char *questions = malloc(n);
  snprintf(questions, n, "{\"s\":%s}", sample);
  EXPECT(mrtr_require_capabilities(S(call), S(questions), MRTR_PROTOCOL_2026_07_28, NULL, &out), MRTR_OK);
  cJSON *refusal = take(&out);
  CHECK(refusal && cJSON_IsString(at(refusal, "rule")) && cJSON_IsObject(at(refusal, "data")));
  EXPECT(mrtr_missing_capabilities(S(call), S(questions), MRTR_PROTOCOL_2026_07_28, NULL, &out), MRTR_OK);
  cJSON *missing = take(&out);
  CHECK(missing && cJSON_IsObject(at(missing, "sampling")));
  /* Elicitation was declared: the check passes, and says so with an empty buffer. */
  EXPECT(mrtr_require_capabilities(S(call), S(ASK), MRTR_PROTOCOL_2026_07_28, NULL, &out), MRTR_OK);
  CHECK(is_empty(&out));
  cJSON_Delete(done);
  cJSON_Delete(refusal);
  cJSON_Delete(missing);
  free(questions);
  free(sample);
  free(call);
}

/* The client's session in C: requests under fresh ids, with the _meta of what the client declared once. */
static void test_session(void) {
  const char *config = "{\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"c-host\",\"version\":\"1\"},\"firstId\":5}";
  mrtr_session *session = NULL;
  mrtr_buf out = {NULL, 0};
  EXPECT(mrtr_session_new(S(config), &session), MRTR_OK);
  EXPECT(mrtr_session_call_tool(session, S("weather"), S("{\"city\":\"Paris\"}"), &out), MRTR_OK);
  cJSON *call = take(&out);
  CHECK(call && at(call, "id")->valueint == 5);
  const cJSON *meta = at(at(call, "params"), "_meta");
  CHECK(strcmp(at(meta, "io.modelcontextprotocol/protocolVersion")->valuestring, "2026-07-28") == 0);
  CHECK(cJSON_IsObject(at(at(meta, "io.modelcontextprotocol/clientCapabilities"), "elicitation")));
  CHECK(strcmp(at(at(meta, "io.modelcontextprotocol/clientInfo"), "name")->valuestring, "c-host") == 0);
  /* NULL arguments: none; the next request takes the next id. */
  EXPECT(mrtr_session_read_resource(session, S("notes://today"), &out), MRTR_OK);
  cJSON *read = take(&out);
  CHECK(read && at(read, "id")->valueint == 6);
  EXPECT(mrtr_session_request(session, S("tools/call"), S("{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"x\"}}"), &out),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_session_new(S("{\"capabilities\":[]}"), &session), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  cJSON_Delete(call);
  cJSON_Delete(read);
  EXPECT(mrtr_session_free(session), MRTR_OK);
}

/* The 2025-11-25 bridge in C: the tool's question goes out on the call's stream as a server request, the client's
 * answer comes back, the replay gives it to the tool, and the final response is written on the stream. */
static void test_tool_bridge(void) {
  const char *legacy = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{}}}";
  const char *schema = "{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"string\"}}}";
  mrtr_tool_bridge *bridge = NULL;
  mrtr_tool_replay *replay = NULL;
  mrtr_buf question = {NULL, 0}, out = {NULL, 0};
  EXPECT(mrtr_tool_bridge_new(S(legacy), S("k1k1k1k1k1k1k1k1"), NULL, 0, &bridge), MRTR_OK);
  EXPECT(mrtr_question_elicit(S("Name?"), S(schema), &question), MRTR_OK);
  char *q = buf_string(&question);
  EXPECT(mrtr_tool_bridge_replay(bridge, &replay), MRTR_OK);
  EXPECT(mrtr_tool_replay_ask(replay, S(q), NULL, 0, &out), MRTR_OK);
  CHECK(is_empty(&out)); /* not answered yet: the tool stops here */
  EXPECT(mrtr_tool_bridge_ask(bridge, replay, 0), MRTR_OK);
  EXPECT(mrtr_tool_replay_free(replay), MRTR_OK);
  EXPECT(mrtr_tool_bridge_poll_write(bridge, &out), MRTR_OK);
  char *written = buf_string(&out);
  CHECK(strstr(written, "elicitation/create") != NULL);
  EXPECT(mrtr_tool_bridge_pending(bridge, &out), MRTR_OK);
  cJSON *pending = take(&out);
  CHECK(cJSON_GetArraySize(pending) == 1);
  const char *id = cJSON_GetArrayItem(pending, 0)->valuestring;
  char answer[256];
  snprintf(answer, sizeof answer, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"action\":\"accept\",\"content\":{\"v\":\"Ada\"}}}", id);
  bool complete = false;
  EXPECT(mrtr_tool_bridge_handle_answer(bridge, S(answer), 5, &complete), MRTR_OK);
  CHECK(complete);
  EXPECT(mrtr_tool_bridge_replay(bridge, &replay), MRTR_OK);
  EXPECT(mrtr_tool_replay_ask(replay, S(q), NULL, 0, &out), MRTR_OK);
  cJSON *given = take(&out);
  CHECK(given && strcmp(at(at(given, "content"), "v")->valuestring, "Ada") == 0);
  EXPECT(mrtr_tool_replay_free(replay), MRTR_OK);
  EXPECT(mrtr_tool_bridge_complete(bridge, S("{\"content\":[{\"type\":\"text\",\"text\":\"hi Ada\"}]}")), MRTR_OK);
  bool found = false;
  for (int i = 0; i < 8; i++) {
    EXPECT(mrtr_tool_bridge_poll_write(bridge, &out), MRTR_OK);
    if (is_empty(&out)) break;
    char *text = buf_string(&out);
    found = found || strstr(text, "hi Ada") != NULL;
    free(text);
  }
  bool done = false;
  EXPECT(mrtr_tool_bridge_is_done(bridge, &done), MRTR_OK);
  CHECK(found && done);
  cJSON_Delete(pending);
  cJSON_Delete(given);
  free(written);
  free(q);
  EXPECT(mrtr_tool_bridge_free(bridge), MRTR_OK);
}

/* The canned server of test_operation: asks the units twice, then answers (the JSON it POSTs back). */
static char *operation_server(const cJSON *request) {
  static const char *ask =
      "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resultType\":\"input_required\",\"requestState\":\"%s\","
      "\"inputRequests\":{\"%s\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"Units?\","
      "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"units\":{\"type\":\"string\"}},\"required\":[\"units\"]}}}}}}";
  static const char *done =
      "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resultType\":\"complete\",\"content\":[],\"isError\":false}}";
  char *id = cJSON_PrintUnformatted(at(request, "id"));
  const cJSON *state = at(at(request, "params"), "requestState");
  char *out = malloc(1024);
  if (!cJSON_IsString(state)) snprintf(out, 1024, ask, id, "r1", "units");
  else if (strcmp(state->valuestring, "r1") == 0) snprintf(out, 1024, ask, id, "r2", "again");
  else snprintf(out, 1024, done, id);
  free(id);
  return out;
}

/* A C host of one operation, in the documented drain order: transmits, then events (each question
 * answered by key), then the timeout; the operation carries every round and picks the retries' ids. */
static void test_operation(void) {
  const char *config = "{\"mode\":\"2026-07-28\",\"url\":\"https://example.com/mcp\",\"maxRounds\":5}";
  char *request = format_call(1, "");
  mrtr_operation *op;
  EXPECT(mrtr_operation_new(S(config), S(request), 0, &op), MRTR_OK);
  free(request);
  const char *ids[3] = {"1", "\"1.1\"", "\"1.2\""};
  int sent = 0, asked = 0, done = 0;
  bool drained = false, restored = false;
  for (uint64_t now = 1; now < 20 && !drained; now++) {
    for (cJSON *t = op_next(op, 1); t != NULL; t = op_next(op, 1)) {
      uint64_t x = (uint64_t)at(t, "exchange")->valuedouble;
      char *id = cJSON_PrintUnformatted(at(at(t, "body"), "id"));
      CHECK(sent < 3 && strcmp(id, ids[sent]) == 0);
      CHECK(is_text(at(t, "headers"), "mcp-method", "tools/call") && is_text(at(t, "headers"), "mcp-name", "get_weather"));
      free(id);
      sent++;
      char *reply = operation_server(at(t, "body"));
      EXPECT(mrtr_operation_handle_head(op, x, 200, S("{\"content-type\":\"application/json\"}"), now), MRTR_OK);
      EXPECT(mrtr_operation_handle_body(op, x, (const uint8_t *)reply, strlen(reply), now), MRTR_OK);
      EXPECT(mrtr_operation_handle_end(op, x, now), MRTR_OK);
      free(reply);
      cJSON_Delete(t);
    }
    for (cJSON *e = op_next(op, 0); e != NULL; e = op_next(op, 0)) {
      if (is_text(e, "type", "inputRequired") && !restored) {
        /* The host restarts at its first question: the snapshot, a new operation from it, the question again. */
        mrtr_buf snapshot = {NULL, 0};
        EXPECT(mrtr_operation_snapshot(op, now, &snapshot), MRTR_OK);
        EXPECT(mrtr_operation_free(op), MRTR_OK);
        EXPECT(mrtr_operation_restore(S(config), (const char *)snapshot.ptr, snapshot.len, now + 1000, &op), MRTR_OK);
        mrtr_buf_free(&snapshot);
        restored = true;
        cJSON_Delete(e);
        continue;
      }
      if (is_text(e, "type", "inputRequired")) {
        const cJSON *question;
        cJSON_ArrayForEach(question, at(e, "requests")) {
          const char *key = question->string;
          /* A key nothing asked, and an answer that does not fit, are refused; the question stays open. */
          EXPECT(mrtr_operation_answer(op, S("nothing"), S("{\"action\":\"decline\"}"), now), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
          EXPECT(mrtr_operation_answer(op, S(key), S("{\"action\":\"accept\",\"content\":{\"units\":7}}"), now),
                 MRTR_ERR_RETRY_INPUT_RESPONSE_INVALID);
          EXPECT(mrtr_operation_answer(op, S(key), S("{\"action\":\"accept\",\"content\":{\"units\":\"C\"}}"), now), MRTR_OK);
          asked++;
        }
      } else if (is_text(e, "type", "done")) {
        CHECK(is_text(at(at(e, "response"), "result"), "resultType", "complete"));
        done++;
      }
      cJSON_Delete(e);
    }
    EXPECT(mrtr_operation_is_drained(op, &drained), MRTR_OK);
  }
  CHECK(sent == 3 && asked == 2 && done == 1 && drained && restored);
  mrtr_buf none = {NULL, 0};
  EXPECT(mrtr_operation_snapshot(op, 30, &none), MRTR_ERR_USAGE_OUT_OF_TURN); /* over: nothing to carry */
  bool set = true;
  uint64_t when = 9;
  EXPECT(mrtr_operation_poll_timeout(op, &set, &when), MRTR_OK);
  CHECK(!set && when == 0);
  EXPECT(mrtr_operation_answer(op, S("units"), S("{}"), 30), MRTR_ERR_USAGE_OUT_OF_TURN);
  EXPECT(mrtr_operation_free(op), MRTR_OK);
  EXPECT(mrtr_operation_free(NULL), MRTR_OK);
}

static void test_http_call(void) {
  const char *json_mode = "{\"mode\":\"2026-07-28\",\"url\":\"https://example.com/mcp\",\"headers\":{\"Authorization\":\"t\"}}";
  char *call_text = format_call(1, "");
  mrtr_http_call *call;
  EXPECT(mrtr_http_call_new(S(json_mode), S(call_text), 0, &call), MRTR_OK);
  cJSON *sent = next_of(call, 1);
  CHECK(sent && at(sent, "exchange")->valueint == 1 && is_text(sent, "method", "POST"));
  CHECK(sent && is_text(at(sent, "headers"), "authorization", "t"));
  CHECK(sent && at(at(sent, "body"), "id")->valueint == 1);
  cJSON_Delete(sent);
  CHECK(next_of(call, 1) == NULL && next_of(call, 0) == NULL);
  bool set = true, done = true;
  uint64_t when = 99;
  EXPECT(mrtr_http_call_poll_timeout(call, &set, &when), MRTR_OK);
  CHECK(!set && when == 0);
  /* Out of turn, unknown exchanges, header fields that are no object of strings. */
  EXPECT(mrtr_http_call_handle_body(call, 1, (const uint8_t *)"{", 1, 0), MRTR_ERR_USAGE_OUT_OF_TURN);
  EXPECT(mrtr_http_call_handle_head(call, 9, 200, NULL, 0, 0), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_http_call_handle_head(call, 1, 200, S("[1]"), 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_handle_head(call, 1, 200, S("{\"content-type\":1}"), 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_answer(call, S("{\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"result\":{}}"), 0), MRTR_ERR_USAGE_OUT_OF_TURN);
  /* A JSON response in two chunks. */
  EXPECT(mrtr_http_call_handle_head(call, 1, 200, S("{\"Content-Type\":\"application/json\"}"), 5), MRTR_OK);
  EXPECT(mrtr_http_call_handle_head(call, 1, 200, NULL, 0, 5), MRTR_ERR_USAGE_OUT_OF_TURN);
  const char *result = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"content\":[]}}";
  EXPECT(mrtr_http_call_handle_body(call, 1, (const uint8_t *)result, 10, 6), MRTR_OK);
  EXPECT(mrtr_http_call_handle_body(call, 1, (const uint8_t *)result + 10, strlen(result) - 10, 6), MRTR_OK);
  EXPECT(mrtr_http_call_is_done(call, &done), MRTR_OK);
  CHECK(!done);
  EXPECT(mrtr_http_call_handle_end(call, 1, 7), MRTR_OK);
  cJSON *event = next_of(call, 0);
  CHECK(is_text(event, "type", "response") && at(at(event, "message"), "result") != NULL);
  cJSON_Delete(event);
  EXPECT(mrtr_http_call_is_done(call, &done), MRTR_OK);
  CHECK(done);
  EXPECT(mrtr_http_call_handle_end(call, 1, 8), MRTR_ERR_USAGE_UNKNOWN_HANDLE); /* it ended */
  EXPECT(mrtr_http_call_free(call), MRTR_OK);

  /* SEP-1335: a server request on the stream, the retry, the reconnect, 204, the buffered answer to the stream URL. */
  EXPECT(mrtr_http_call_new(S(CALL_1335), S(TOOL_CALL), 1000, &call), MRTR_OK);
  cJSON_Delete(next_of(call, 1));
  EXPECT(mrtr_http_call_handle_head(call, 1, 200,
                                    S("{\"content-type\":\"text/event-stream\",\"link\":\"</mcp?stream=abc>; rel=\\\"stream\\\"\"}"),
                                    1000),
         MRTR_OK);
  const char *ask = "id: a.1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"method\":\"elicitation/create\",\"params\":{\"message\":"
                    "\"Env?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}\n\nid: a.2\nretry: 1500\n\n";
  EXPECT(mrtr_http_call_handle_body(call, 1, (const uint8_t *)ask, strlen(ask), 1000), MRTR_OK);
  event = next_of(call, 0);
  CHECK(is_text(event, "type", "serverRequest") && is_text(at(event, "message"), "method", "elicitation/create"));
  cJSON_Delete(event);
  EXPECT(mrtr_http_call_handle_end(call, 1, 1000), MRTR_OK);
  EXPECT(mrtr_http_call_poll_timeout(call, &set, &when), MRTR_OK);
  CHECK(set && when == 2500);
  EXPECT(mrtr_http_call_answer(call, S("{\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"result\":{\"action\":\"accept\"}}"), 1200),
         MRTR_OK);
  CHECK(next_of(call, 1) == NULL); /* kept until the stream says 204 */
  EXPECT(mrtr_http_call_handle_timeout(call, 2000), MRTR_OK);
  CHECK(next_of(call, 1) == NULL); /* too early */
  EXPECT(mrtr_http_call_handle_timeout(call, 2500), MRTR_OK);
  sent = next_of(call, 1);
  CHECK(is_text(sent, "method", "GET") && is_text(sent, "url", "https://example.com/mcp?stream=abc"));
  CHECK(sent && is_text(at(sent, "headers"), "last-event-id", "a.2"));
  cJSON_Delete(sent);
  EXPECT(mrtr_http_call_handle_head(call, 2, 204, NULL, 0, 2500), MRTR_OK);
  EXPECT(mrtr_http_call_handle_end(call, 2, 2500), MRTR_OK);
  sent = next_of(call, 1);
  CHECK(is_text(sent, "method", "POST") && is_text(sent, "url", "https://example.com/mcp?stream=abc"));
  CHECK(sent && cJSON_IsArray(at(sent, "body")) && cJSON_GetArraySize(at(sent, "body")) == 1);
  cJSON_Delete(sent);
  EXPECT(mrtr_http_call_free(call), MRTR_OK); /* queued requests and events are freed with it */

  /* A 1000-link Link header: past the call's bounds, the call fails with limit-exceeded (never a crash). */
  size_t cap = 1000 * 48 + 64, len = 0;
  char *links = malloc(cap);
  len += (size_t)snprintf(links, cap, "{\"content-type\":\"text/event-stream\",\"link\":\"");
  for (int i = 0; i < 1000; i++)
    len += (size_t)snprintf(links + len, cap - len, "%s</l%d>; rel=\\\"next\\\"", i ? ", " : "", i);
  len += (size_t)snprintf(links + len, cap - len, "\"}");
  EXPECT(mrtr_http_call_new(S(CALL_1335), S(TOOL_CALL), 0, &call), MRTR_OK);
  cJSON_Delete(next_of(call, 1));
  EXPECT(mrtr_http_call_handle_head(call, 1, 200, links, len, 0), MRTR_OK);
  event = next_of(call, 0);
  CHECK(is_text(event, "type", "failed") && is_text(event, "rule", "limit-exceeded"));
  cJSON_Delete(event);
  EXPECT(mrtr_http_call_is_done(call, &done), MRTR_OK);
  CHECK(done);
  EXPECT(mrtr_http_call_free(call), MRTR_OK);
  free(links);

  /* An event stream that is not UTF-8: the call fails with the decoder's rule. */
  EXPECT(mrtr_http_call_new(S(CALL_1335), S(TOOL_CALL), 0, &call), MRTR_OK);
  cJSON_Delete(next_of(call, 1));
  EXPECT(mrtr_http_call_handle_head(call, 1, 200, S("{\"content-type\":\"text/event-stream\"}"), 0), MRTR_OK);
  EXPECT(mrtr_http_call_handle_body(call, 1, (const uint8_t *)"data: \xc3\x28\n\n", 10, 0), MRTR_OK);
  event = next_of(call, 0);
  CHECK(is_text(event, "type", "failed") && is_text(event, "rule", "jsonrpc-parse-error"));
  cJSON_Delete(event);
  EXPECT(mrtr_http_call_free(call), MRTR_OK);

  /* Bad configurations and requests; NULL pointers. */
  call = NULL;
  EXPECT(mrtr_http_call_new(S("{}"), S(TOOL_CALL), 0, &call), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_new(S("{\"mode\":\"sep-9999\",\"url\":\"https://e.com\"}"), S(TOOL_CALL), 0, &call),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_new(S("{\"mode\":\"sep-1858\",\"url\":\"not a url\"}"), S(TOOL_CALL), 0, &call),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_new(S("{\"mode\":\"sep-1858\",\"url\":\"https://e.com\",\"maxLinks\":-1}"), S(TOOL_CALL), 0, &call),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_new(S(CALL_1335), S("{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}"), 0, &call),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_new(S(CALL_1335), S("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\xff\"}"), 0, &call),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_new(S(CALL_1335), "{\"x\":1}", 3, 0, &call), MRTR_ERR_USAGE_INVALID_ARGUMENT); /* truncated */
  CHECK(call == NULL);
  EXPECT(mrtr_http_call_new(NULL, 0, S(TOOL_CALL), 0, &call), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_new(S(CALL_1335), NULL, 0, 0, &call), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_new(S(CALL_1335), S(TOOL_CALL), 0, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  mrtr_buf out = {(uint8_t *)"junk", 4};
  EXPECT(mrtr_http_call_handle_head(NULL, 1, 200, NULL, 0, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_handle_body(NULL, 1, NULL, 0, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_handle_end(NULL, 1, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_handle_timeout(NULL, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_answer(NULL, S("{}"), 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_poll_transmit(NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(is_empty(&out));
  EXPECT(mrtr_http_call_poll_event(NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_poll_timeout(NULL, &set, &when), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_is_done(NULL, &done), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_new(S(CALL_1335), S(TOOL_CALL), 0, &call), MRTR_OK);
  EXPECT(mrtr_http_call_handle_head(call, 1, 200, NULL, 5, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_handle_body(call, 1, NULL, 5, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_answer(call, NULL, 0, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_poll_transmit(call, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_poll_timeout(call, NULL, &when), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_poll_timeout(call, &set, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_is_done(call, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_http_call_free(call), MRTR_OK);
  EXPECT(mrtr_http_call_free(NULL), MRTR_OK);
  free(call_text);
}

/* ---- transports: the server side -------------------------------------------- */

static void test_server_side(void) {
  const char *ask = "[{\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"Env?\","
                    "\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}]";
  mrtr_server_stream *stream;
  mrtr_buf out, id;
  EXPECT(mrtr_server_stream_new(S("sep-1858"), S("k1"), 1, &stream), MRTR_OK);
  EXPECT(mrtr_server_stream_head(stream, NULL, 0, &out), MRTR_OK);
  cJSON *head = take(&out);
  CHECK(is_text(head, "content-type", "text/event-stream") && !at(head, "link"));
  cJSON_Delete(head);
  EXPECT(mrtr_server_stream_message(stream, S("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
                                               "\"params\":{\"progressToken\":1,\"progress\":1}}"),
                                    &id),
         MRTR_OK);
  CHECK(id.ptr && strcmp((const char *)id.ptr, "k1.1") == 0);
  mrtr_buf_free(&id);
  EXPECT(mrtr_server_stream_ask(stream, S(ask), 0, &id), MRTR_OK);
  CHECK(id.ptr && strcmp((const char *)id.ptr, "k1.4") == 0); /* buffer_input, the request, input_required */
  mrtr_buf_free(&id);
  EXPECT(mrtr_server_stream_retry(stream, 10, &id), MRTR_ERR_USAGE_OUT_OF_TURN); /* nothing after input_required */
  CHECK(is_empty(&id));
  EXPECT(mrtr_server_stream_take(stream, &out), MRTR_OK);
  /* What it wrote, read back by the decoder. */
  mrtr_sse_decoder *d;
  mrtr_status status;
  EXPECT(mrtr_sse_decoder_new(NULL, &d), MRTR_OK);
  EXPECT(mrtr_sse_decoder_feed(d, out.ptr, out.len), MRTR_OK);
  mrtr_buf_free(&out);
  const char *names[] = {NULL, "buffer_input", NULL, "input_required"};
  for (int i = 0; i < 4; i++) {
    cJSON *v = next_block(d, &status);
    CHECK(status == MRTR_OK && v != NULL);
    CHECK(names[i] ? is_text(v, "event", names[i]) && !at(v, "data") : at(v, "data") != NULL);
    cJSON_Delete(v);
  }
  EXPECT(mrtr_sse_decoder_free(d), MRTR_OK);
  EXPECT(mrtr_server_stream_take(stream, &out), MRTR_OK);
  CHECK(out.ptr && out.len == 0);
  mrtr_buf_free(&out);
  EXPECT(mrtr_server_stream_free(stream), MRTR_OK);

  /* SEP-1335: the head's Link, the stream URL. */
  EXPECT(mrtr_stream_url(S("https://example.com/mcp"), S("k1"), &out), MRTR_OK);
  CHECK(out.ptr && strcmp((const char *)out.ptr, "https://example.com/mcp?stream=k1") == 0);
  EXPECT(mrtr_server_stream_new(S("sep-1335"), S("k1"), 1, &stream), MRTR_OK);
  EXPECT(mrtr_server_stream_head(stream, (const char *)out.ptr, out.len, &id), MRTR_OK);
  mrtr_buf_free(&out);
  head = take(&id);
  CHECK(is_text(head, "link", "<https://example.com/mcp?stream=k1>; rel=\"stream\""));
  cJSON_Delete(head);
  EXPECT(mrtr_server_stream_ask(stream, S(ask), 1500, &id), MRTR_OK);
  CHECK(id.ptr && strcmp((const char *)id.ptr, "k1.2") == 0); /* the request, retry */
  mrtr_buf_free(&id);
  EXPECT(mrtr_server_stream_ask(stream, S("{}"), 0, &id), MRTR_ERR_USAGE_INVALID_ARGUMENT); /* not an array */
  EXPECT(mrtr_server_stream_ask(stream, S("[1"), 0, &id), MRTR_ERR_JSONRPC_PARSE_ERROR);
  EXPECT(mrtr_server_stream_message(stream, S("{\"a\":\"\xff\"}"), &id), MRTR_ERR_JSONRPC_PARSE_ERROR);
  EXPECT(mrtr_server_stream_free(stream), MRTR_OK);
  EXPECT(mrtr_server_stream_new(S("2026-07-28"), S("k1"), 1, &stream), MRTR_OK);
  EXPECT(mrtr_server_stream_ask(stream, S(ask), 0, &id), MRTR_ERR_USAGE_INVALID_ARGUMENT); /* MRTR asks in results */
  EXPECT(mrtr_server_stream_free(stream), MRTR_OK);
  stream = NULL;
  EXPECT(mrtr_server_stream_new(S("sep-1858"), S(""), 1, &stream), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_new(S("sep-1858"), S("a\nb"), 1, &stream), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_new(S("sep-9999"), S("k"), 1, &stream), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_new(S("sep-1858\xff"), S("k"), 1, &stream), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(stream == NULL);
  EXPECT(mrtr_stream_url(S("not a url"), S("k"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);

  /* Incoming requests: buffered answers by Last-Event-ID, a resuming GET, a new call, bad bodies. */
  const char *answers = "[{\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"result\":{\"action\":\"accept\"}}]";
  EXPECT(mrtr_read_http_request(S("sep-1858"), S("POST"), S("https://example.com/mcp"), S("{\"Last-Event-ID\":\"k1.4\"}"),
                                (const uint8_t *)answers, strlen(answers), MRTR_PROTOCOL_2025_11_25, NULL, &out),
         MRTR_OK);
  cJSON *v = take(&out);
  CHECK(is_text(v, "type", "answers") && is_text(v, "key", "k1") && cJSON_GetArraySize(at(v, "responses")) == 1);
  cJSON_Delete(v);
  EXPECT(mrtr_read_http_request(S("sep-1335"), S("GET"), S("https://example.com/mcp?stream=k1"), NULL, 0, NULL, 0,
                                MRTR_PROTOCOL_2025_11_25, NULL, &out),
         MRTR_OK);
  v = take(&out);
  CHECK(is_text(v, "type", "resume") && is_text(v, "key", "k1") && cJSON_IsNull(at(v, "lastEventId")));
  cJSON_Delete(v);
  EXPECT(mrtr_read_http_request(S("sep-1335"), S("POST"), S("https://example.com/mcp"), NULL, 0,
                                (const uint8_t *)TOOL_CALL, strlen(TOOL_CALL), MRTR_PROTOCOL_2025_11_25, NULL, &out),
         MRTR_OK);
  v = take(&out);
  CHECK(is_text(v, "type", "call") && at(at(v, "message"), "id")->valueint == 7);
  cJSON_Delete(v);
  EXPECT(mrtr_read_http_request(S("sep-1335"), S("POST"), S("https://example.com/mcp"), NULL, 0,
                                (const uint8_t *)"[\"\xff\"]", 5, MRTR_PROTOCOL_2025_11_25, NULL, &out),
         MRTR_ERR_JSONRPC_PARSE_ERROR);
  EXPECT(mrtr_read_http_request(S("sep-1335"), S("POST"), S("https://example.com/mcp"), NULL, 0, NULL, 0,
                                MRTR_PROTOCOL_2025_11_25, NULL, &out),
         MRTR_ERR_JSONRPC_PARSE_ERROR);
  EXPECT(mrtr_read_http_request(S("sep-1335"), S("POST"), S("https://example.com/mcp"), S("{\"a\":[]}"),
                                (const uint8_t *)TOOL_CALL, strlen(TOOL_CALL), MRTR_PROTOCOL_2025_11_25, NULL, &out),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_read_http_request(S("sep-1335"), S("POST"), S("https://example.com/mcp"), NULL, 0,
                                (const uint8_t *)TOOL_CALL, strlen(TOOL_CALL), 42, NULL, &out),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_read_http_request(S("sep-1335"), S("POST"), S("https://example.com/mcp"), NULL, 0, NULL, 4,
                                MRTR_PROTOCOL_2025_11_25, NULL, &out),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);

  /* A server request outside any call: -32602 for an input request, nothing for ping. */
  EXPECT(mrtr_unassociated_reply(S("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"roots/list\"}"), &out), MRTR_OK);
  v = take(&out);
  CHECK(v && at(at(v, "error"), "code")->valueint == -32602 && at(v, "id")->valueint == 5);
  cJSON_Delete(v);
  EXPECT(mrtr_unassociated_reply(S("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}"), &out), MRTR_OK);
  CHECK(is_empty(&out));
  EXPECT(mrtr_unassociated_reply(S("{\"jsonrpc\""), &out), MRTR_ERR_JSONRPC_PARSE_ERROR);

  /* NULL pointers. */
  EXPECT(mrtr_server_stream_new(NULL, 0, S("k"), 1, &stream), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_new(S("sep-1858"), S("k"), 1, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_head(NULL, NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_message(NULL, S("{}"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_retry(NULL, 1, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_ask(NULL, S("[]"), 1, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_take(NULL, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_new(S("sep-1858"), S("k"), 1, &stream), MRTR_OK);
  EXPECT(mrtr_server_stream_head(stream, NULL, 0, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_message(stream, NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_retry(stream, 1, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_take(stream, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_server_stream_free(stream), MRTR_OK);
  EXPECT(mrtr_server_stream_free(NULL), MRTR_OK);
  EXPECT(mrtr_read_http_request(NULL, 0, S("GET"), S("https://e.com"), NULL, 0, NULL, 0, 0, NULL, &out),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_read_http_request(S("sep-1858"), S("GET"), S("https://e.com"), NULL, 0, NULL, 0, 0, NULL, NULL),
         MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_stream_url(NULL, 4, S("k"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_stream_url(S("https://e.com"), S("k"), NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_unassociated_reply(NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_unassociated_reply(S("{}"), NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
}

/* ---- transports: checking recorded HTTP exchanges --------------------------- */

static const char *HTTP_ENTRIES[] = {
    "{\"from\":\"client\",\"http\":{\"exchange\":\"e1\",\"method\":\"POST\",\"url\":\"https://mcp.example.com/mcp\","
    "\"headers\":{\"content-type\":\"application/json\"},\"body\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
    "\"params\":{\"name\":\"get_weather\",\"arguments\":{}}}}}",
    "{\"from\":\"server\",\"http\":{\"exchange\":\"e1\",\"status\":200,\"headers\":{\"content-type\":\"text/event-stream\"},"
    "\"events\":[{\"event\":\"buffer_input\",\"id\":\"2\"},{\"id\":\"3\",\"data\":{\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"method\":"
    "\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\","
    "\"properties\":{\"name\":{\"type\":\"string\"}}}}}},{\"event\":\"input_required\",\"id\":\"4\"}],\"end\":true}}",
    /* The buffered answers without Last-Event-ID: sse-last-event-id-missing at index 2 under sep-1858. */
    "{\"from\":\"client\",\"http\":{\"exchange\":\"e2\",\"method\":\"POST\",\"url\":\"https://mcp.example.com/mcp\","
    "\"headers\":{\"content-type\":\"application/json\"},\"body\":[{\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"result\":{\"action\":"
    "\"accept\",\"content\":{\"name\":\"octocat\"}}}]}}",
    "{\"from\":\"server\",\"http\":{\"exchange\":\"e2\",\"status\":202,\"headers\":{},\"end\":true}}",
};

/* Whether `violations` (JSON text) holds `rule` at `index`. */
static int has_violation(const mrtr_buf *violations, const char *rule, int index) {
  cJSON *v = cJSON_ParseWithLength((const char *)violations->ptr, violations->len);
  const cJSON *item;
  int found = 0;
  cJSON_ArrayForEach(item, v) found |= is_text(item, "rule", rule) && at(item, "index")->valueint == index;
  cJSON_Delete(v);
  return found;
}

static void test_check_transports(void) {
  const char *options = "{\"protocol\":\"2025-11-25\",\"transport\":\"sep-1858\"}";
  char transcript[4096] = "[";
  for (size_t i = 0; i < 4; i++) {
    strcat(transcript, HTTP_ENTRIES[i]);
    strcat(transcript, i < 3 ? "," : "]");
  }
  mrtr_buf out;
  EXPECT(mrtr_check(S(transcript), S(options), &out), MRTR_OK);
  CHECK(has_violation(&out, "sse-last-event-id-missing", 2));
  mrtr_buf_free(&out);
  /* Without the transport (plain Streamable HTTP; mrtr_check reads HTTP entries too): not that rule. */
  EXPECT(mrtr_check(S(transcript), S("{\"protocol\":\"2025-11-25\"}"), &out), MRTR_OK);
  CHECK(!has_violation(&out, "sse-last-event-id-missing", 2));
  mrtr_buf_free(&out);
  /* The same one entry at a time. */
  mrtr_checker *checker;
  EXPECT(mrtr_checker_new(S(options), &checker), MRTR_OK);
  for (size_t i = 0; i < 4; i++) EXPECT(mrtr_checker_handle_entry(checker, S(HTTP_ENTRIES[i])), MRTR_OK);
  EXPECT(mrtr_checker_handle_entry(checker, S("{\"from\":\"client\",\"http\":[]}")), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_checker_handle_entry(checker, S("{\"from\":\"client\",\"http\":{\"x\":\"\xff\"}}")),
         MRTR_ERR_JSONRPC_PARSE_ERROR);
  EXPECT(mrtr_checker_violations(checker, &out), MRTR_OK);
  CHECK(has_violation(&out, "sse-last-event-id-missing", 2));
  mrtr_buf_free(&out);
  EXPECT(mrtr_checker_free(checker), MRTR_OK);
  /* The options: NULL is the defaults; an unknown transport or field is a usage error, an unknown protocol jsonrpc-invalid. */
  EXPECT(mrtr_check(S("[]"), NULL, 0, &out), MRTR_OK);
  CHECK(out.ptr && strcmp((const char *)out.ptr, "[]") == 0);
  mrtr_buf_free(&out);
  EXPECT(mrtr_check(S("[]"), S("{\"transport\":\"sep-9999\"}"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_check(S("[]"), S("{\"transports\":\"sep-1858\"}"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_check(S("[]"), S("{\"protocol\":\"1999-01-01\"}"), &out), MRTR_ERR_JSONRPC_INVALID);
  EXPECT(mrtr_check(S("[]"), S("{\"transport\":"), &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  checker = NULL;
  EXPECT(mrtr_checker_new(S("{\"transport\":1}"), &checker), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  CHECK(checker == NULL);
  EXPECT(mrtr_check(NULL, 0, NULL, 0, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_check(S("[]"), NULL, 3, &out), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_check(S("[]"), NULL, 0, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_checker_new(NULL, 0, NULL), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_checker_handle_entry(NULL, S("{}")), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_checker_new(NULL, 0, &checker), MRTR_OK);
  EXPECT(mrtr_checker_handle_entry(checker, NULL, 0), MRTR_ERR_USAGE_INVALID_ARGUMENT);
  EXPECT(mrtr_checker_free(checker), MRTR_OK);
}

/* ---- buffers and handles ---------------------------------------------------- */

static void test_buffers_and_double_free(void) {
  mrtr_buf out;
  EXPECT(mrtr_classify_json(S("{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}"), 0, NULL, &out), MRTR_OK);
  CHECK(out.ptr && out.len == strlen((const char *)out.ptr));
  mrtr_buf copy = out;
  EXPECT(mrtr_buf_free(&out), MRTR_OK);
  CHECK(is_empty(&out));
  EXPECT(mrtr_buf_free(&out), MRTR_OK); /* the same mrtr_buf twice: harmless */
  if (!mrtr_debug_checks()) {
    printf("(release build: the double-free checks are skipped)\n");
    return;
  }
  /* Debug builds catch what is undefined in release builds. */
  EXPECT(mrtr_buf_free(&copy), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  mrtr_client *client;
  mrtr_checker *checker;
  mrtr_keyring *ring;
  unsigned char secret[32] = {3};
  EXPECT(mrtr_client_new(NULL, 0, &client), MRTR_OK);
  EXPECT(mrtr_checker_new(NULL, 0, &checker), MRTR_OK);
  EXPECT(mrtr_keyring_new(1, S(ALG_AES_256_GCM), secret, 32, NULL, 0, &ring), MRTR_OK);
  /* A handle of one kind passed as another. */
  EXPECT(mrtr_client_poll_event((mrtr_client *)(void *)ring, &out), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_keyring_free((mrtr_keyring *)(void *)checker), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_client_free(client), MRTR_OK);
  EXPECT(mrtr_client_free(client), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_client_poll_event(client, &out), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_checker_free(checker), MRTR_OK);
  EXPECT(mrtr_checker_free(checker), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_keyring_free(ring), MRTR_OK);
  EXPECT(mrtr_keyring_free(ring), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  const char *b = binding_for("a", "t", 1);
  EXPECT(mrtr_keyring_seal(ring, S(b), 1, 1, NULL, 0, &out), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(set_current(ring, 1), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  /* The transports' handles alike. */
  mrtr_sse_decoder *decoder;
  mrtr_http_call *call;
  mrtr_server_stream *stream;
  EXPECT(mrtr_sse_decoder_new(NULL, &decoder), MRTR_OK);
  EXPECT(mrtr_http_call_new(S(CALL_1335), S(TOOL_CALL), 0, &call), MRTR_OK);
  EXPECT(mrtr_server_stream_new(S("sep-1335"), S("k"), 1, &stream), MRTR_OK);
  EXPECT(mrtr_http_call_poll_event((mrtr_http_call *)(void *)decoder, &out), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_sse_decoder_free((mrtr_sse_decoder *)(void *)stream), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_server_stream_take((mrtr_server_stream *)(void *)call, &out), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_sse_decoder_free(decoder), MRTR_OK);
  EXPECT(mrtr_sse_decoder_free(decoder), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_sse_decoder_feed(decoder, (const uint8_t *)"x", 1), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_http_call_free(call), MRTR_OK);
  EXPECT(mrtr_http_call_free(call), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_http_call_handle_timeout(call, 1), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  EXPECT(mrtr_server_stream_free(stream), MRTR_OK);
  EXPECT(mrtr_server_stream_free(stream), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
  /* A pointer that never came from the library. */
  char junk[8] = {0};
  mrtr_buf forged = {(uint8_t *)junk, 3};
  EXPECT(mrtr_buf_free(&forged), MRTR_ERR_USAGE_UNKNOWN_HANDLE);
}

int main(void) {
  test_rules_and_codes();
  test_last_error();
  test_null_pointers();
  test_invalid_arguments();
  test_invalid_utf8();
  test_bad_messages();
  test_classify();
  test_round_trip();
  test_task_update();
  test_check();
  test_keyring();
  test_no_default_anonymous_subject();
  test_no_implicit_empty_params();
  test_no_nonce_seal_in_release();
  test_replay_guard();
  test_guard_reentry();
  test_context_separation();
  test_seal_budget();
  test_threads();
  test_rotation_under_concurrent_open();
  test_rounds();
  test_client_machine();
  test_sse();
  test_http_call();
  test_operation();
  test_await_style_tool();
  test_run_tool();
  test_server_builders();
  test_session();
  test_tool_bridge();
  test_server_side();
  test_check_transports();
  test_buffers_and_double_free();
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
