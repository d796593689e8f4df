/*
 * The C conformance runner: every case of the corpus through the C API of
 * mrtr (include/mrtr.h). It produces, one judge compares
 * (conformance/src/judge.rs; `scripts/conformance c` pipes this to it): for
 * each case one line on stdout, built with cJSON,
 *
 *   {"id": "<case id>", "outcome": <what the API returned, in the shape of the corpus's expectations>}
 *   {"id": "<case id>", "crash": "<why the runner could not run the case>"}
 *
 * and nothing else. A call that fails gives {"error": "<rule id>"}; the JSON
 * the library returns goes into the line unchanged (cJSON raw items).
 *
 * Reads every *.json below $MRTR_CONFORMANCE_DIR (default: the repository's
 * conformance/cases, from MRTR_DEFAULT_CORPUS given at compile time); exits 2
 * when the corpus cannot be read, else 0. cJSON holds the numbers of a case's
 * input as doubles: a corpus relying on integers above 2^53, or on 1.0 being
 * sent as "1.0" rather than "1", gives such values as raw text (the state
 * cases' `bindingText`, passed verbatim to mrtr_keyring_seal_with_nonce and mrtr_keyring_open).
 *
 * cJSON ends its strings at a NUL: before parsing, the runner turns each
 * \u0000 escape of a case into the byte 0xFF (never in UTF-8 text), which
 * becomes NUL again where the runner takes a string's bytes (`bytes_of`) and
 * \u0000 again where it prints JSON (`print_json`).
 *
 * Compiled with MRTR_TEST_VECTORS against a library built with the crate
 * feature test-vectors: the seal cases give their nonce.
 */
#define _POSIX_C_SOURCE 200809L

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "mrtr.h"

#ifndef MRTR_DEFAULT_CORPUS
#define MRTR_DEFAULT_CORPUS "conformance/cases"
#endif

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

static const cJSON *get(const cJSON *object, const char *key) {
  return cJSON_IsObject(object) ? cJSON_GetObjectItemCaseSensitive(object, key) : NULL;
}

static const char *str_or_empty(const cJSON *item) { return cJSON_IsString(item) ? item->valuestring : ""; }

/* The stand-in of NUL in a case's strings (see the top). */
#define NUL_MARK '\xFF'

/* `item` as JSON text, each NUL_MARK back to \u0000. Free with cJSON_free(). */
static char *print_json(const cJSON *item) {
  char *text = cJSON_PrintUnformatted(item);
  size_t marks = 0, n = text ? strlen(text) : 0;
  for (size_t i = 0; i < n; i++) marks += text[i] == NUL_MARK;
  if (!marks) return text;
  char *out = cJSON_malloc(n + 5 * marks + 1), *o = out;
  if (!out) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  for (size_t i = 0; i < n; i++) {
    if (text[i] == NUL_MARK) {
      memcpy(o, "\\u0000", 6);
      o += 6;
    } else {
      *o++ = text[i];
    }
  }
  *o = '\0';
  cJSON_free(text);
  return out;
}

/* The bytes of a string item, each NUL_MARK back to NUL (malloc'd, free()). */
static unsigned char *bytes_of(const cJSON *item, size_t *len) {
  const char *s = str_or_empty(item);
  *len = strlen(s);
  unsigned char *out = xmalloc(*len);
  for (size_t i = 0; i < *len; i++) out[i] = s[i] == NUL_MARK ? 0 : (unsigned char)s[i];
  return out;
}

/* `input[key]` as JSON text ("null" when absent; `fallback` when given and absent). Free with cJSON_free(). */
static char *arg(const cJSON *input, const char *key, const char *fallback) {
  const cJSON *item = get(input, key);
  cJSON *made = item ? NULL : cJSON_Parse(fallback ? fallback : "null");
  char *text = print_json(item ? item : made);
  cJSON_Delete(made);
  return text;
}

/* ---- outcomes ------------------------------------------------------------ */

static cJSON *rule_error(mrtr_status status) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "error", mrtr_rule_str(status));
  return o;
}

/* A call's outcome: {"error": rule} when it failed, else the JSON it returned, under `key` when given. */
static cJSON *returned(mrtr_status status, mrtr_buf *buf, const char *key) {
  if (status != MRTR_OK) return rule_error(status);
  cJSON *raw = cJSON_CreateRaw((const char *)buf->ptr); /* the buffer ends with a NUL */
  mrtr_buf_free(buf);
  if (!key) return raw;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, key, raw);
  return o;
}

/* `input.protocol` into *out: absent is the default, a name goes through the API (unknown: jsonrpc-invalid). */
static mrtr_status protocol_of(const cJSON *input, mrtr_protocol *out) {
  const cJSON *name = get(input, "protocol");
  *out = MRTR_PROTOCOL_2026_07_28;
  return cJSON_IsString(name) ? mrtr_protocol_from_name(name->valuestring, strlen(name->valuestring), out) : MRTR_OK;
}

/* Hex text to bytes (malloc'd into *out, free()); 0 when it is not hex. */
static int hex(const cJSON *item, unsigned char **out, size_t *len) {
  const char *s = str_or_empty(item);
  if (!cJSON_IsString(item) || strlen(s) % 2 || strspn(s, "0123456789abcdefABCDEF") != strlen(s)) return 0;
  *len = strlen(s) / 2;
  *out = xmalloc(*len);
  for (size_t i = 0; i < *len; i++) {
    unsigned v = 0;
    sscanf(s + 2 * i, "%2x", &v);
    (*out)[i] = (unsigned char)v;
  }
  return 1;
}

/* A non-negative integer number (the Rust runner's as_u64). */
static int u64_of(const cJSON *item, uint64_t *out) {
  if (!cJSON_IsNumber(item) || item->valuedouble < 0 || item->valuedouble >= 18446744073709551616.0) return 0;
  if (item->valuedouble != (double)(uint64_t)item->valuedouble) return 0;
  *out = (uint64_t)item->valuedouble;
  return 1;
}

/* ---- the ops, through the C API -------------------------------------------- */

typedef cJSON *(*op_fn)(const cJSON *input, const char **crash);

static cJSON *op_classify(const cJSON *input, const char **crash) {
  mrtr_protocol p;
  mrtr_status status = protocol_of(input, &p);
  if (status != MRTR_OK) return rule_error(status);
  unsigned char *bytes = NULL;
  size_t len = 0;
  if (get(input, "hex") && !hex(get(input, "hex"), &bytes, &len)) {
    *crash = "input.hex is not hex";
    return NULL;
  }
  const char *text = bytes ? (const char *)bytes : str_or_empty(get(input, "text"));
  mrtr_buf out;
  status = mrtr_classify_json(text, bytes ? len : strlen(text), p, NULL, &out);
  free(bytes);
  return returned(status, &out, NULL);
}

static cJSON *op_check(const cJSON *input, const char **crash) {
  const cJSON *config = get(input, "config");
  mrtr_buf out;
  if (get(config, "transport")) {
    /* A multi-turn transport: the config is the options JSON ({protocol, transport, maxRounds}) as it is. */
    char *transcript = arg(input, "transcript", NULL), *options = print_json(config);
    mrtr_status status = mrtr_check(transcript, strlen(transcript), options, strlen(options), &out);
    cJSON_free(transcript), cJSON_free(options);
    return returned(status, &out, "violations");
  }
  mrtr_protocol p;
  mrtr_status status = protocol_of(config, &p);
  if (status != MRTR_OK) return rule_error(status);
  uint64_t max_rounds = MRTR_DEFAULT_MAX_ROUNDS;
  if (get(config, "maxRounds") && !u64_of(get(config, "maxRounds"), &max_rounds)) {
    *crash = "config.maxRounds is not a count";
    return NULL;
  }
  char *transcript = arg(input, "transcript", NULL), options[128];
  snprintf(options, sizeof options, "{\"protocol\":\"%s\",\"maxRounds\":%llu}", mrtr_protocol_name(p),
           (unsigned long long)max_rounds);
  status = mrtr_check(transcript, strlen(transcript), options, strlen(options), &out);
  cJSON_free(transcript);
  return returned(status, &out, "violations");
}

static cJSON *op_retry(const cJSON *input, const char **crash) {
  (void)crash;
  mrtr_protocol p;
  mrtr_status status = protocol_of(input, &p);
  if (status != MRTR_OK) return rule_error(status);
  char *request = arg(input, "request", NULL), *result = arg(input, "result", NULL);
  char *responses = arg(input, "inputResponses", "{}"), *id = arg(input, "id", NULL);
  mrtr_buf out;
  status = mrtr_retry(request, strlen(request), result, strlen(result), responses, strlen(responses), id, strlen(id), p,
                      NULL, &out);
  cJSON_free(request), cJSON_free(result), cJSON_free(responses), cJSON_free(id);
  return returned(status, &out, "request");
}

static cJSON *op_resume(const cJSON *input, const char **crash) {
  (void)crash;
  mrtr_protocol p;
  mrtr_status status = protocol_of(input, &p);
  if (status != MRTR_OK) return rule_error(status);
  char *request = arg(input, "request", NULL), *needs = arg(input, "needs", "{}");
  mrtr_buf out;
  status = mrtr_resume(request, strlen(request), needs, strlen(needs), p, NULL, &out);
  cJSON_free(request), cJSON_free(needs);
  return returned(status, &out, NULL);
}

static cJSON *op_respond(const cJSON *input, const char **crash) {
  (void)crash;
  mrtr_protocol p;
  mrtr_status status = protocol_of(input, &p);
  if (status != MRTR_OK) return rule_error(status);
  char *request = arg(input, "request", NULL);
  /* Absent or null: left out (NULL). */
  const cJSON *requests_item = get(input, "inputRequests"), *state_item = get(input, "requestState");
  char *requests = cJSON_IsNull(requests_item) ? NULL : print_json(requests_item);
  char *state = cJSON_IsNull(state_item) ? NULL : print_json(state_item);
  mrtr_buf out;
  status = mrtr_respond(request, strlen(request), requests, requests ? strlen(requests) : 0, state,
                        state ? strlen(state) : 0, p, NULL, &out);
  cJSON_free(request), cJSON_free(requests), cJSON_free(state);
  return returned(status, &out, "response");
}

/* A key ring from `input.keys`, `current`, `maxTokenBytes` and `context`; NULL (and *crash, or *status) when it cannot be
 * made. */
static mrtr_keyring *ring_of(const cJSON *input, mrtr_status *status, const char **crash) {
  mrtr_keyring *ring = NULL;
  const cJSON *key;
  cJSON_ArrayForEach(key, get(input, "keys")) {
    const char *name = str_or_empty(get(key, "alg"));
    unsigned char *secret = NULL;
    size_t len = 0;
    uint64_t id;
    if (!hex(get(key, "secret"), &secret, &len) || !u64_of(get(key, "id"), &id)) {
      free(secret);
      *crash = "a key of input.keys is not {id, alg, secret in hex}";
      break;
    }
    *status = ring ? mrtr_keyring_add(ring, (uint8_t)id, name, strlen(name), secret, len, NULL, 0)
                   : mrtr_keyring_new((uint8_t)id, name, strlen(name), secret, len, NULL, 0, &ring);
    free(secret);
    if (*status != MRTR_OK) break;
  }
  uint64_t n;
  if (!ring && !*crash && *status == MRTR_OK) *crash = "input.keys holds no key";
  if (ring && !*crash && *status == MRTR_OK) {
    bool found;
    if (u64_of(get(input, "current"), &n)) (void)mrtr_keyring_set_current(ring, (uint8_t)n, &found); /* ignored, as ops.rs */
    if (u64_of(get(input, "maxTokenBytes"), &n)) mrtr_keyring_set_max_token_bytes(ring, n);
    const cJSON *context = get(input, "context");
    if (cJSON_IsString(context))
      *status = mrtr_keyring_set_context(ring, (const uint8_t *)context->valuestring, strlen(context->valuestring));
  }
  if (!ring || *crash || *status != MRTR_OK) {
    mrtr_keyring_free(ring);
    return NULL;
  }
  return ring;
}

/* The replay guard of `open.used`: a state id in the list was used before (compared as the core compares ids: hex in
 * either case). */
static bool used_before(void *user, const char *state_id_hex, uint64_t expiry) {
  (void)expiry;
  const cJSON *id;
  cJSON_ArrayForEach(id, (const cJSON *)user) {
    if (cJSON_IsString(id) && strcasecmp(id->valuestring, state_id_hex) == 0) return false;
  }
  return true;
}

/* The `state` op: a key ring, the binding (`bindingText` verbatim, so that its numbers stay exact, or `binding` as
 * JSON text), then `seal` ({token}) or `open` ({payload, stateId, expiry}, with a replay guard holding `used`). */
static cJSON *op_state(const cJSON *input, const char **crash) {
  mrtr_status status = MRTR_OK;
  mrtr_keyring *ring = ring_of(input, &status, crash);
  if (!ring) return *crash ? NULL : rule_error(status);
  const cJSON *text = get(input, "bindingText"), *seal = get(input, "seal"), *open = get(input, "open");
  char *printed = cJSON_IsString(text) ? NULL : arg(input, "binding", NULL);
  const char *json = printed ? printed : text->valuestring;
  mrtr_buf out = {NULL, 0};
  mrtr_opened opened = {{NULL, 0}, {0}, 0};
  uint64_t now = 0, ttl = 0;
  unsigned char *nonce = NULL;
  size_t nonce_len = 0;
  if (status == MRTR_OK && seal &&
      (!u64_of(get(seal, "now"), &now) || !u64_of(get(seal, "ttl"), &ttl) || !hex(get(seal, "nonce"), &nonce, &nonce_len))) {
    *crash = "input.seal is not {now, ttl, nonce in hex, payload}";
  } else if (status == MRTR_OK && seal) {
#if defined(MRTR_TEST_VECTORS)
    const char *payload = str_or_empty(get(seal, "payload"));
    status = mrtr_keyring_seal_with_nonce(ring, json, strlen(json), now, ttl, (const uint8_t *)payload, strlen(payload),
                                          nonce, nonce_len, &out);
#else
    *crash = "the runner was built without MRTR_TEST_VECTORS: it cannot seal with the case's nonce";
#endif
  } else if (status == MRTR_OK) {
    const char *token = str_or_empty(get(open, "token"));
    const cJSON *used = get(open, "used");
    if (!u64_of(get(open, "now"), &now)) now = 0;
    status = mrtr_keyring_open(ring, (const uint8_t *)token, strlen(token), json, strlen(json), now,
                               cJSON_IsArray(used) ? used_before : NULL, (void *)used, &opened);
  }
  cJSON_free(printed);
  free(nonce);
  mrtr_keyring_free(ring);
  cJSON *o = NULL;
  if (!*crash && status != MRTR_OK) {
    o = rule_error(status);
  } else if (!*crash && seal) {
    o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "token", (const char *)out.ptr);
  } else if (!*crash) {
    o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "payload", (const char *)opened.payload.ptr); /* the corpus's payloads are text */
    cJSON_AddStringToObject(o, "stateId", opened.state_id);
    cJSON_AddNumberToObject(o, "expiry", (double)opened.expiry);
  }
  mrtr_buf_free(&out);
  mrtr_buf_free(&opened.payload);
  return o;
}

/* The `sse` op: each chunk's bytes fed to a decoder, the stream ended, every block listed (one the decoder could not
 * read as {"error": rule}). */
static cJSON *op_sse(const cJSON *input, const char **crash) {
  const cJSON *chunks = get(input, "chunks"), *chunk;
  if (!cJSON_IsArray(chunks)) {
    *crash = "input.chunks is not an array";
    return NULL;
  }
  mrtr_sse_decoder *decoder;
  mrtr_status status = mrtr_sse_decoder_new(NULL, &decoder);
  if (status != MRTR_OK) return rule_error(status);
  cJSON_ArrayForEach(chunk, chunks) {
    size_t len;
    unsigned char *bytes = bytes_of(chunk, &len);
    status = mrtr_sse_decoder_feed(decoder, bytes, len);
    free(bytes);
    if (status != MRTR_OK) break;
  }
  if (status == MRTR_OK) status = mrtr_sse_decoder_finish(decoder);
  if (status != MRTR_OK) {
    mrtr_sse_decoder_free(decoder);
    return rule_error(status);
  }
  cJSON *events = cJSON_CreateArray();
  for (;;) {
    mrtr_buf block;
    status = mrtr_sse_decoder_poll_event(decoder, &block);
    if (status == MRTR_OK && !block.ptr) break;
    cJSON_AddItemToArray(events, returned(status, &block, NULL));
  }
  mrtr_sse_decoder_free(decoder);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "events", events);
  return o;
}

/* {key: raw JSON text} (the buffer freed). */
static cJSON *tagged(const char *key, mrtr_buf *buf) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, key, cJSON_CreateRaw((const char *)buf->ptr));
  mrtr_buf_free(buf);
  return o;
}

/* What the call has to say after an input, in the drain order: {"send"}…, {"event"}…, {"timeout"}. */
static cJSON *drain(mrtr_http_call *call, mrtr_status *status) {
  cJSON *out = cJSON_CreateArray();
  mrtr_buf buf;
  while ((*status = mrtr_http_call_poll_transmit(call, &buf)) == MRTR_OK && buf.ptr)
    cJSON_AddItemToArray(out, tagged("send", &buf));
  while (*status == MRTR_OK && (*status = mrtr_http_call_poll_event(call, &buf)) == MRTR_OK && buf.ptr)
    cJSON_AddItemToArray(out, tagged("event", &buf));
  bool set = false;
  uint64_t at = 0;
  if (*status == MRTR_OK) *status = mrtr_http_call_poll_timeout(call, &set, &at);
  if (*status == MRTR_OK && set) {
    char number[24];
    snprintf(number, sizeof number, "%" PRIu64, at);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "timeout", cJSON_CreateRaw(number));
    cJSON_AddItemToArray(out, o);
  }
  return out;
}

/* One step of an http-client script; MRTR_OK or the API's refusal (-1 and *crash: the step is malformed). */
static mrtr_status step(mrtr_http_call *call, const cJSON *s, uint64_t *now, const char **crash) {
  uint64_t at, exchange = 0, code;
  if (get(s, "at") && u64_of(get(s, "at"), &at)) *now = at;
  const cJSON *head = get(s, "head"), *body = get(s, "body"), *end = get(s, "end"), *part = head ? head : body ? body : end;
  if (part && !u64_of(get(part, "exchange"), &exchange)) {
    *crash = "a step names its exchange";
    return -1;
  }
  if (head) {
    if (!u64_of(get(head, "status"), &code) || code > UINT16_MAX) {
      *crash = "a head has a status";
      return -1;
    }
    char *headers = get(head, "headers") ? print_json(get(head, "headers")) : NULL;
    mrtr_status status =
        mrtr_http_call_handle_head(call, exchange, (uint16_t)code, headers, headers ? strlen(headers) : 0, *now);
    cJSON_free(headers);
    return status;
  }
  if (body) {
    unsigned char *bytes = NULL;
    size_t len = 0;
    if (get(body, "hex") ? !hex(get(body, "hex"), &bytes, &len) : !cJSON_IsString(get(body, "text"))) {
      *crash = "a body step has text or hex";
      return -1;
    }
    if (!bytes) bytes = bytes_of(get(body, "text"), &len);
    mrtr_status status = mrtr_http_call_handle_body(call, exchange, bytes, len, *now);
    free(bytes);
    return status;
  }
  if (end) return mrtr_http_call_handle_end(call, exchange, *now);
  if (get(s, "answer")) {
    char *answer = print_json(get(s, "answer"));
    mrtr_status status = mrtr_http_call_answer(call, answer, strlen(answer), *now);
    cJSON_free(answer);
    return status;
  }
  if (u64_of(get(s, "timeout"), &at)) {
    *now = at;
    return mrtr_http_call_handle_timeout(call, *now);
  }
  *crash = "unknown step";
  return -1;
}

/* The `http-client` op: a call from config and request at `now`, driven by the steps; after its creation and after
 * each step, what it sends, its events and its timeout (a refused step: [{"error": rule}]). */
static cJSON *op_http_client(const cJSON *input, const char **crash) {
  uint64_t now = 0;
  if (get(input, "now") && !u64_of(get(input, "now"), &now)) {
    *crash = "input.now is not a time";
    return NULL;
  }
  char *config = arg(input, "config", NULL), *request = arg(input, "request", NULL);
  mrtr_http_call *call = NULL;
  mrtr_status status = mrtr_http_call_new(config, strlen(config), request, strlen(request), now, &call);
  cJSON_free(config), cJSON_free(request);
  cJSON *outputs = cJSON_CreateArray(), *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "outputs", outputs);
  if (status != MRTR_OK) {
    cJSON *only = cJSON_CreateArray();
    cJSON_AddItemToArray(only, rule_error(status));
    cJSON_AddItemToArray(outputs, only);
    return o;
  }
  cJSON_AddItemToArray(outputs, drain(call, &status));
  const cJSON *s;
  cJSON_ArrayForEach(s, get(input, "steps")) {
    if (status != MRTR_OK) break;
    mrtr_status refused = step(call, s, &now, crash);
    if (*crash) break;
    if (refused == MRTR_OK) {
      cJSON_AddItemToArray(outputs, drain(call, &status));
    } else {
      cJSON *only = cJSON_CreateArray();
      cJSON_AddItemToArray(only, rule_error(refused));
      cJSON_AddItemToArray(outputs, only);
    }
  }
  mrtr_http_call_free(call);
  if (!*crash && status != MRTR_OK) *crash = "polling the call failed";
  if (*crash) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static const struct {
  const char *name;
  op_fn run;
} OPS[] = {{"classify", op_classify}, {"check", op_check},     {"retry", op_retry},
           {"resume", op_resume},     {"respond", op_respond}, {"state", op_state},
           {"sse", op_sse},           {"http-client", op_http_client}};

/* ---- the corpus ----------------------------------------------------------- */

typedef struct {
  char **paths;
  size_t len, cap;
} path_list;

static void push(path_list *l, char *path) {
  if (l->len == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 256;
    char **grown = realloc(l->paths, l->cap * sizeof *grown);
    if (!grown) {
      fprintf(stderr, "out of memory\n");
      exit(2);
    }
    l->paths = grown;
  }
  l->paths[l->len++] = path;
}

/* Every *.json below `dir`; 0 when a folder cannot be read. */
static int collect(const char *dir, path_list *out) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cannot read %s: %s\n", dir, strerror(errno));
    return 0;
  }
  int okay = 1;
  struct dirent *e;
  while (okay && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char *path = xmalloc(n);
    snprintf(path, n, "%s/%s", dir, e->d_name);
    struct stat st;
    size_t len = strlen(e->d_name);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      okay = collect(path, out);
      free(path);
    } else if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) {
      push(out, path);
    } else {
      free(path);
    }
  }
  closedir(d);
  return okay;
}

static int by_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Turns each \u0000 escape inside a JSON string of `data` into NUL_MARK, in place; the new length. */
static size_t mark_nuls(char *data, size_t n) {
  size_t o = 0;
  bool in_string = false;
  for (size_t i = 0; i < n; i++) {
    char c = data[i];
    if (in_string && c == '\\' && i + 1 < n) {
      if (i + 5 < n && memcmp(data + i + 1, "u0000", 5) == 0) {
        data[o++] = NUL_MARK;
        i += 5;
      } else {
        data[o++] = c;
        data[o++] = data[++i];
      }
      continue;
    }
    if (c == '"') in_string = !in_string;
    data[o++] = c;
  }
  return o;
}

static cJSON *read_json(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0, got;
  char *data = xmalloc(cap);
  while ((got = fread(data + n, 1, cap - n, f)) > 0)
    if ((n += got) == cap) {
      char *grown = realloc(data, cap *= 2);
      if (!grown) break;
      data = grown;
    }
  fclose(f);
  cJSON *v = n < cap ? cJSON_ParseWithLength(data, mark_nuls(data, n)) : NULL;
  free(data);
  return v;
}

int main(void) {
  const char *dir = getenv("MRTR_CONFORMANCE_DIR");
  if (!dir || !*dir) dir = MRTR_DEFAULT_CORPUS;
  path_list files = {NULL, 0, 0};
  int broken = !collect(dir, &files);
  qsort(files.paths, files.len, sizeof *files.paths, by_path);
  for (size_t i = 0; i < files.len && !broken; i++) {
    cJSON *c = read_json(files.paths[i]);
    if (!c) {
      fprintf(stderr, "cannot load the corpus: %s is not readable JSON\n", files.paths[i]);
      broken = 1;
      break;
    }
    const char *op = str_or_empty(get(c, "op")), *crash = "unknown op";
    cJSON *outcome = NULL;
    for (size_t k = 0; k < sizeof OPS / sizeof *OPS; k++)
      if (strcmp(op, OPS[k].name) == 0) crash = NULL, outcome = OPS[k].run(get(c, "input"), &crash);
    cJSON *line = cJSON_CreateObject();
    cJSON_AddStringToObject(line, "id", str_or_empty(get(c, "id")));
    if (outcome)
      cJSON_AddItemToObject(line, "outcome", outcome);
    else
      cJSON_AddStringToObject(line, "crash", crash ? crash : "the runner made no outcome");
    char *text = cJSON_PrintUnformatted(line);
    puts(text);
    cJSON_free(text);
    cJSON_Delete(line);
    cJSON_Delete(c);
  }
  for (size_t i = 0; i < files.len; i++) free(files.paths[i]);
  free(files.paths);
  return broken ? 2 : 0;
}
