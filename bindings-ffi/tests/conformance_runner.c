/*
 * The C conformance runner: every case of the corpus through the C API of
 * mrtr (include/mrtr.h), compared as conformance/src/ops.rs compares.
 *
 * Reads every *.json below $MRTR_CONFORMANCE_DIR (default: the repository's
 * conformance/cases, from MRTR_DEFAULT_CORPUS given at compile time), prints
 * one line per failing case and a closing "N passed, M failed", and exits
 * non-zero on any failure or an empty corpus (2 when a case cannot be read).
 *
 * JSON comes from cJSON (Debian's libcjson-dev). cJSON keeps numbers as
 * doubles, so a corpus relying on integers above 2^53, or on 1.0 being sent
 * as "1.0" rather than "1", would need another JSON library; this corpus
 * does not (numbers compare by value either way).
 */
#define _POSIX_C_SOURCE 200809L

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mrtr.h"

#ifndef MRTR_DEFAULT_CORPUS
#define MRTR_DEFAULT_CORPUS "conformance/cases"
#endif

/* ---- small helpers ---------------------------------------------------- */

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = xmalloc(n);
  memcpy(p, s, n);
  return p;
}

static char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

static const cJSON *get(const cJSON *object, const char *key) {
  return cJSON_IsObject(object) ? cJSON_GetObjectItemCaseSensitive(object, key) : NULL;
}

/* The compact JSON text of `item`, or "null" when it is absent. Free with free(). */
static char *text_of(const cJSON *item) {
  if (!item) return xstrdup("null");
  char *printed = cJSON_PrintUnformatted(item);
  if (!printed) return xstrdup("null");
  char *copy = xstrdup(printed);
  cJSON_free(printed);
  return copy;
}

/* ---- comparison, as conformance/src/corpus.rs --------------------------- */

static int json_eq(const cJSON *a, const cJSON *b);

static int is_null(const cJSON *x) { return x == NULL || cJSON_IsNull(x); }

static int json_eq(const cJSON *a, const cJSON *b) {
  if (is_null(a) || is_null(b)) return is_null(a) && is_null(b);
  if (cJSON_IsBool(a) || cJSON_IsBool(b))
    return cJSON_IsBool(a) && cJSON_IsBool(b) && cJSON_IsTrue(a) == cJSON_IsTrue(b);
  if (cJSON_IsNumber(a) || cJSON_IsNumber(b))
    return cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble == b->valuedouble;
  if (cJSON_IsString(a) || cJSON_IsString(b))
    return cJSON_IsString(a) && cJSON_IsString(b) && strcmp(a->valuestring, b->valuestring) == 0;
  if (cJSON_IsArray(a) || cJSON_IsArray(b)) {
    if (!cJSON_IsArray(a) || !cJSON_IsArray(b)) return 0;
    if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b)) return 0;
    const cJSON *y = b->child;
    for (const cJSON *x = a->child; x; x = x->next, y = y->next)
      if (!json_eq(x, y)) return 0;
    return 1;
  }
  if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
    if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b)) return 0;
    for (const cJSON *x = a->child; x; x = x->next) {
      const cJSON *w = cJSON_GetObjectItemCaseSensitive(b, x->string);
      if (!w || !json_eq(x, w)) return 0;
    }
    return 1;
  }
  return 0;
}

/* Arrays as sets: each element matched once. */
static int set_eq(const cJSON *a, const cJSON *b) {
  if (!cJSON_IsArray(a) || !cJSON_IsArray(b)) return json_eq(a, b);
  int n = cJSON_GetArraySize(a);
  if (n != cJSON_GetArraySize(b)) return 0;
  char *used = xmalloc((size_t)n);
  memset(used, 0, (size_t)n);
  int ok = 1;
  for (const cJSON *x = a->child; x && ok; x = x->next) {
    int i = 0, found = 0;
    for (const cJSON *y = b->child; y; y = y->next, i++) {
      if (!used[i] && json_eq(x, y)) {
        used[i] = 1;
        found = 1;
        break;
      }
    }
    ok = found;
  }
  free(used);
  return ok;
}

/* NULL when `actual` meets `expect`, else why not (free()). */
static char *compare(const char *op, const cJSON *expect, const cJSON *actual) {
  const cJSON *want_error = get(expect, "error"), *got_error = get(actual, "error");
  if (want_error || got_error) return json_eq(want_error, got_error) ? NULL : xstrdup("outcome differs");
  if (!cJSON_IsObject(expect)) return xstrdup("expect must be an object");
  for (const cJSON *want = expect->child; want; want = want->next) {
    const cJSON *got = get(actual, want->string);
    const char *key = want->string;
    int as_set = (strcmp(op, "check") == 0 && strcmp(key, "violations") == 0) ||
                 (strcmp(op, "resume") == 0 && (strcmp(key, "missing") == 0 || strcmp(key, "ignored") == 0));
    if (!(as_set ? set_eq(want, got) : json_eq(want, got))) return format("\"%s\" differs", key);
  }
  return NULL;
}

/* ---- running one op through the C API ----------------------------------- */

/* What an op produced: `value`, or `failure` (the case fails: the Rust runner's Err). */
typedef struct {
  cJSON *value;
  char *failure;
} outcome;

static outcome ok(cJSON *value) { return (outcome){value, NULL}; }
static outcome fail(char *why) { return (outcome){NULL, why}; }

static outcome rule_error(mrtr_status status) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "error", mrtr_rule_str(status));
  return ok(o);
}

/* The JSON text in `buf` as cJSON (and frees the buffer). */
static outcome parsed(mrtr_buf *buf) {
  cJSON *v = cJSON_ParseWithLength((const char *)buf->ptr, buf->len);
  char *why = v ? NULL : format("the library returned text cJSON cannot read: %.*s", (int)buf->len, buf->ptr);
  mrtr_buf_free(buf);
  return v ? ok(v) : fail(why);
}

/* A successful status gives the parsed buffer, a failed one {"error": rule}. */
static outcome answer(mrtr_status status, mrtr_buf *buf) {
  return status == MRTR_OK ? parsed(buf) : rule_error(status);
}

/* `input[key]` names a protocol (absent or not a string: the default). */
static mrtr_status protocol_of(const cJSON *input, const char *key, mrtr_protocol *out) {
  const cJSON *name = get(input, key);
  *out = MRTR_PROTOCOL_2026_07_28;
  if (!cJSON_IsString(name)) return MRTR_OK;
  return mrtr_protocol_from_name(name->valuestring, strlen(name->valuestring), out);
}

/* `input[key]` as JSON text; `fallback` when absent. */
static char *arg(const cJSON *input, const char *key, const char *fallback) {
  const cJSON *item = get(input, key);
  return item ? text_of(item) : xstrdup(fallback);
}

static outcome op_classify(const cJSON *input) {
  mrtr_protocol p;
  mrtr_status status = protocol_of(input, "protocol", &p);
  if (status != MRTR_OK) return rule_error(status);
  const cJSON *text = get(input, "text");
  const char *t = cJSON_IsString(text) ? text->valuestring : "";
  mrtr_buf out;
  return answer(mrtr_classify_json(t, strlen(t), p, NULL, &out), &out);
}

static outcome op_check(const cJSON *input) {
  const cJSON *config = get(input, "config");
  mrtr_protocol p;
  mrtr_status status = protocol_of(config, "protocol", &p);
  if (status != MRTR_OK) return fail(format("%s: %s", mrtr_rule_str(status), mrtr_last_error_message()));
  const cJSON *rounds = get(config, "maxRounds");
  uint32_t max_rounds = MRTR_DEFAULT_MAX_ROUNDS;
  if (cJSON_IsNumber(rounds) && rounds->valuedouble >= 0 && rounds->valuedouble == (double)(uint64_t)rounds->valuedouble)
    max_rounds = (uint32_t)(uint64_t)rounds->valuedouble;
  const cJSON *transcript = get(input, "transcript");
  if (!cJSON_IsArray(transcript)) return fail(xstrdup("transcript must be an array"));
  char *text = text_of(transcript);
  mrtr_buf out;
  status = mrtr_check(text, strlen(text), p, max_rounds, NULL, &out);
  free(text);
  if (status != MRTR_OK) return fail(format("%s: %s", mrtr_rule_str(status), mrtr_last_error_message()));
  outcome all = parsed(&out);
  if (!all.value) return all;
  /* As the Rust runner: each violation as {"rule", "index"}. */
  cJSON *result = cJSON_CreateObject();
  cJSON *list = cJSON_AddArrayToObject(result, "violations");
  const cJSON *v;
  cJSON_ArrayForEach(v, get(all.value, "violations")) {
    cJSON *entry = cJSON_CreateObject();
    cJSON_AddItemToObject(entry, "rule", cJSON_Duplicate(get(v, "rule"), 1));
    cJSON_AddItemToObject(entry, "index", cJSON_Duplicate(get(v, "index"), 1));
    cJSON_AddItemToArray(list, entry);
  }
  cJSON_Delete(all.value);
  return ok(result);
}

static outcome op_retry(const cJSON *input) {
  mrtr_protocol p;
  mrtr_status status = protocol_of(input, "protocol", &p);
  if (status != MRTR_OK) return rule_error(status);
  char *request = arg(input, "request", "null"), *result = arg(input, "result", "null");
  char *responses = arg(input, "inputResponses", "{}"), *id = arg(input, "id", "null");
  mrtr_buf out;
  status = mrtr_retry(request, strlen(request), result, strlen(result), responses, strlen(responses), id, strlen(id), p,
                      NULL, &out);
  free(request), free(result), free(responses), free(id);
  outcome o = answer(status, &out);
  if (status != MRTR_OK || !o.value) return o;
  cJSON *wrapped = cJSON_CreateObject();
  cJSON_AddItemToObject(wrapped, "request", o.value);
  return ok(wrapped);
}

static outcome op_resume(const cJSON *input) {
  mrtr_protocol p;
  mrtr_status status = protocol_of(input, "protocol", &p);
  if (status != MRTR_OK) return rule_error(status);
  char *request = arg(input, "request", "null"), *needs = arg(input, "needs", "{}");
  mrtr_buf out;
  status = mrtr_resume(request, strlen(request), needs, strlen(needs), p, NULL, &out);
  free(request), free(needs);
  return answer(status, &out);
}

static outcome op_respond(const cJSON *input) {
  mrtr_protocol p;
  mrtr_status status = protocol_of(input, "protocol", &p);
  if (status != MRTR_OK) return rule_error(status);
  char *request = arg(input, "request", "null");
  /* Absent or null: left out (NULL). */
  const cJSON *requests_item = get(input, "inputRequests"), *state_item = get(input, "requestState");
  char *requests = is_null(requests_item) ? NULL : text_of(requests_item);
  char *state = is_null(state_item) ? NULL : text_of(state_item);
  mrtr_buf out;
  status = mrtr_respond(request, strlen(request), requests, requests ? strlen(requests) : 0, state,
                        state ? strlen(state) : 0, p, NULL, &out);
  free(request), free(requests), free(state);
  outcome o = answer(status, &out);
  if (status != MRTR_OK || !o.value) return o;
  cJSON *wrapped = cJSON_CreateObject();
  cJSON_AddItemToObject(wrapped, "response", o.value);
  return ok(wrapped);
}

/* Hex text to bytes; 0 when it is not hex (odd length included). */
static int hex(const cJSON *item, unsigned char *out, size_t cap, size_t *len) {
  if (!cJSON_IsString(item)) return 0;
  const char *s = item->valuestring;
  size_t n = strlen(s);
  if (n % 2 || n / 2 > cap) return 0;
  for (size_t i = 0; i < n / 2; i++) {
    unsigned v = 0;
    for (int j = 0; j < 2; j++) {
      char c = s[2 * i + (size_t)j];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
      else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
      else return 0;
    }
    out[i] = (unsigned char)v;
  }
  *len = n / 2;
  return 1;
}

/* A non-negative integer number (the Rust runner's as_u64). */
static int u64_of(const cJSON *item, uint64_t *out) {
  if (!cJSON_IsNumber(item) || item->valuedouble < 0 || item->valuedouble >= 18446744073709551616.0) return 0;
  if (item->valuedouble != (double)(uint64_t)item->valuedouble) return 0;
  *out = (uint64_t)item->valuedouble;
  return 1;
}

static const char *str_or_empty(const cJSON *item) { return cJSON_IsString(item) ? item->valuestring : ""; }

/* The `state` op: a key ring from `keys`/`current`, then seal or open. The
 * runner's own conversion errors are jsonrpc-invalid, as in ops.rs. */
static outcome op_state(const cJSON *input) {
  const mrtr_status bad = MRTR_ERR_JSONRPC_INVALID;
  mrtr_keyring *ring = NULL;
  const cJSON *key;
  cJSON_ArrayForEach(key, get(input, "keys")) {
    mrtr_algorithm alg;
    const char *name = str_or_empty(get(key, "alg"));
    unsigned char secret[32];
    size_t secret_len = 0;
    uint64_t id;
    if (mrtr_algorithm_from_name(name, strlen(name), &alg) != MRTR_OK || !hex(get(key, "secret"), secret, 32, &secret_len) ||
        secret_len != 32 || !u64_of(get(key, "id"), &id)) {
      mrtr_keyring_free(ring);
      return rule_error(bad);
    }
    mrtr_status status = ring ? mrtr_keyring_add(ring, (uint8_t)id, alg, secret, 32)
                              : mrtr_keyring_new((uint8_t)id, alg, secret, 32, &ring);
    memset(secret, 0, sizeof secret);
    if (status != MRTR_OK) {
      mrtr_keyring_free(ring);
      return rule_error(status);
    }
  }
  if (!ring) return rule_error(bad);
  uint64_t n;
  if (u64_of(get(input, "current"), &n)) (void)mrtr_keyring_set_current(ring, (uint8_t)n); /* ignored, as ops.rs */
  if (u64_of(get(input, "maxTokenBytes"), &n)) mrtr_keyring_set_max_token_bytes(ring, (size_t)n);

  const cJSON *b = get(input, "binding");
  const char *subject = str_or_empty(get(b, "subject")), *method = str_or_empty(get(b, "method"));
  const char *target = str_or_empty(get(b, "target"));
  mrtr_binding binding = {subject, strlen(subject), 0, method, strlen(method), target, strlen(target), {0}};
  mrtr_status status = protocol_of(b, "protocol", &binding.protocol);
  if (status == MRTR_OK) {
    char *arguments = arg(b, "arguments", "{}");
    status = mrtr_params_digest(arguments, strlen(arguments), binding.params_digest);
    free(arguments);
  }
  if (status != MRTR_OK) {
    mrtr_keyring_free(ring);
    return rule_error(status);
  }

  outcome result;
  const cJSON *seal = get(input, "seal");
  mrtr_buf out;
  if (seal) {
    uint64_t now, ttl;
    const cJSON *nonce_hex = get(seal, "nonce");
    size_t nonce_cap = cJSON_IsString(nonce_hex) ? strlen(nonce_hex->valuestring) / 2 : 0, nonce_len = 0;
    unsigned char *nonce = xmalloc(nonce_cap);
    const char *payload = str_or_empty(get(seal, "payload"));
    if (!u64_of(get(seal, "now"), &now) || !u64_of(get(seal, "ttl"), &ttl) || !hex(nonce_hex, nonce, nonce_cap, &nonce_len)) {
      free(nonce);
      mrtr_keyring_free(ring);
      return rule_error(bad);
    }
    status = mrtr_keyring_seal_with_nonce(ring, &binding, now, (uint32_t)ttl, (const uint8_t *)payload, strlen(payload),
                                          nonce, nonce_len, &out);
    free(nonce);
    if (status != MRTR_OK) {
      result = rule_error(status);
    } else {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "token", (const char *)out.ptr);
      mrtr_buf_free(&out);
      result = ok(o);
    }
  } else {
    const cJSON *open = get(input, "open");
    const char *token = str_or_empty(get(open, "token"));
    uint64_t now = 0;
    if (!u64_of(get(open, "now"), &now)) now = 0;
    status = mrtr_keyring_open(ring, token, strlen(token), &binding, now, &out);
    if (status != MRTR_OK) {
      result = rule_error(status);
    } else {
      cJSON *o = cJSON_CreateObject();
      /* The payloads of the corpus are text; ptr[len] is a NUL. */
      cJSON_AddStringToObject(o, "payload", (const char *)out.ptr);
      mrtr_buf_free(&out);
      result = ok(o);
    }
  }
  mrtr_keyring_free(ring);
  return result;
}

static outcome run_op(const char *op, const cJSON *input) {
  if (strcmp(op, "classify") == 0) return op_classify(input);
  if (strcmp(op, "check") == 0) return op_check(input);
  if (strcmp(op, "retry") == 0) return op_retry(input);
  if (strcmp(op, "resume") == 0) return op_resume(input);
  if (strcmp(op, "respond") == 0) return op_respond(input);
  if (strcmp(op, "state") == 0) return op_state(input);
  return fail(format("unknown op \"%s\"", op));
}

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
    char *path = format("%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) {
      free(path);
      continue;
    }
    size_t n = strlen(e->d_name);
    if (S_ISDIR(st.st_mode)) {
      okay = collect(path, out);
      free(path);
    } else if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) {
      push(out, path);
    } else {
      free(path);
    }
  }
  closedir(d);
  return okay;
}

static int by_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *data = xmalloc(cap);
  size_t got;
  while ((got = fread(data + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      char *grown = realloc(data, cap);
      if (!grown) {
        free(data);
        fclose(f);
        return NULL;
      }
      data = grown;
    }
  }
  fclose(f);
  *len = n;
  return data;
}

int main(void) {
  const char *dir = getenv("MRTR_CONFORMANCE_DIR");
  if (!dir || !*dir) dir = MRTR_DEFAULT_CORPUS;
  path_list files = {NULL, 0, 0};
  if (!collect(dir, &files)) return 2;
  qsort(files.paths, files.len, sizeof *files.paths, by_path);

  size_t failed = 0, total = 0;
  int broken = 0;
  for (size_t i = 0; i < files.len && !broken; i++) {
    size_t len = 0;
    char *data = read_file(files.paths[i], &len);
    cJSON *c = data ? cJSON_ParseWithLength(data, len) : NULL;
    free(data);
    if (!c) {
      fprintf(stderr, "cannot load the corpus: %s is not readable JSON\n", files.paths[i]);
      broken = 1;
      break;
    }
    total++;
    const char *id = str_or_empty(get(c, "id")), *op = str_or_empty(get(c, "op"));
    const cJSON *input = get(c, "input"), *expect = get(c, "expect");
    outcome o = run_op(op, input);
    char *why = o.failure ? o.failure : compare(op, expect, o.value);
    if (why) {
      failed++;
      char *want = text_of(expect), *got = o.value ? text_of(o.value) : xstrdup("(none)");
      printf("FAIL %s: %s\n       expected: %s\n       actual:   %s\n", id, why, want, got);
      free(want), free(got), free(why);
    }
    cJSON_Delete(o.value);
    cJSON_Delete(c);
  }
  for (size_t i = 0; i < files.len; i++) free(files.paths[i]);
  free(files.paths);
  if (broken) return 2;

  printf("%zu passed, %zu failed\n", total - failed, failed);
  if (total == 0) {
    fprintf(stderr, "no case found in %s\n", dir);
    return 1;
  }
  return failed ? 1 : 0;
}
