/*
 * The embedded conformance runner: every classify case of the corpus through
 * the C ABI of the no-allocator library (mrtr_bare.h, libmrtr_ffi_bare.a),
 * one outcome line per case in the judge's format (conformance/src/judge.rs).
 * Its first line declares that it covers classify only: the other ops need an
 * allocator.
 *
 * Built for the board (a Cortex-M4 under qemu-system-arm, picolibc, output
 * and exit through semihosting) and for the host (the same source). On the
 * board it also measures the stack each call used, by painting the free stack
 * before the call and finding the deepest word written after it. It ends
 * with lines starting with '#' (the count of calls and bytes; on the board
 * the stack), which the runner script sends to stderr.
 *
 * `runner --case=ID`: only that case (the figures' instruction counts; on the
 * board, a semihosting argument: -semihosting-config ...,arg=--case=ID).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "mrtr_bare.h"

static void json_string(const uint8_t *s, size_t n) {
  size_t i;
  putchar('"');
  for (i = 0; i < n; i++) {
    if (s[i] == '"' || s[i] == '\\') {
      putchar('\\');
      putchar(s[i]);
    } else if (s[i] < 0x20) {
      printf("\\u%04x", (unsigned)s[i]);
    } else {
      putchar(s[i]); /* UTF-8 passes through: classify accepted only UTF-8 */
    }
  }
  putchar('"');
}

static void print_outcome(const struct mrtr_case *c, mrtr_bare_status s, const mrtr_bare_classified *out) {
  printf("{\"id\":");
  json_string((const uint8_t *)c->id, strlen(c->id));
  printf(",\"outcome\":");
  if (s != MRTR_BARE_OK) {
    printf("{\"error\":\"%s\"}}\n", mrtr_bare_rule_str(s));
    return;
  }
  printf("{\"kind\":\"%s\",\"id\":", mrtr_bare_kind_str(out->kind));
  switch (out->id_type) {
    case MRTR_BARE_ID_INT: printf("%" PRId64, out->id_int); break;
    case MRTR_BARE_ID_UINT: printf("%" PRIu64, out->id_uint); break;
    case MRTR_BARE_ID_STRING: json_string(out->id_str, out->id_str_len); break;
    default: printf("null"); break;
  }
  printf(",\"method\":");
  if (out->has_method) {
    json_string(out->method, out->method_len);
  } else {
    printf("null");
  }
  printf("}}\n");
}

#if defined(__arm__)
/* picolibc.ld: the end of the static data. Nothing is allocated (no heap), so
 * all of RAM from there to the stack pointer is free. */
extern uint32_t __end[];
#define PAINT 0x6d727472u  /* "mrtr" */
#define PAINTED (16 * 1024) /* bytes painted below the caller's frame: the deepest call takes ~3 KiB */

/* classify under stack painting: *used is the stack the call took, from this
 * frame's stack pointer down to the deepest word it wrote; 0 when it wrote
 * the lowest painted word (it may have gone deeper: too little was painted). */
__attribute__((noinline)) static mrtr_bare_status classify(const struct mrtr_case *c, mrtr_bare_protocol p,
                                                           mrtr_bare_classified *out, size_t *used) {
  uintptr_t sp;
  uint32_t *bottom, *w;
  mrtr_bare_status s;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  bottom = sp - (uintptr_t)__end > PAINTED ? (uint32_t *)(sp - PAINTED) : __end;
  for (w = bottom; (uintptr_t)w < sp; w++) *(volatile uint32_t *)w = PAINT;
  s = mrtr_bare_classify(c->message, c->message_len, p, NULL, out);
  for (w = bottom; (uintptr_t)w < sp && *(volatile uint32_t *)w == PAINT; w++) {
  }
  *used = w == bottom ? 0 : sp - (uintptr_t)w;
  return s;
}
#else
static mrtr_bare_status classify(const struct mrtr_case *c, mrtr_bare_protocol p, mrtr_bare_classified *out,
                                 size_t *used) {
  *used = 0;
  return mrtr_bare_classify(c->message, c->message_len, p, NULL, out);
}
#endif

int main(int argc, char **argv) {
  const char *only = NULL;
  size_t i, calls = 0, bytes = 0, peak = 0, peak_at = 0, largest_at = 0, largest_used = 0, overflows = 0;
  for (i = 1; i < (size_t)argc; i++) {
    if (strncmp(argv[i], "--case=", 7) == 0) only = argv[i] + 7;
  }
  printf("{\"ops\":[\"classify\"],\"why\":\"they need an allocator\"}\n");
  for (i = 0; i < mrtr_case_count; i++) {
    const struct mrtr_case *c = &mrtr_cases[i];
    mrtr_bare_protocol p;
    mrtr_bare_classified out;
    size_t used = 0;
    mrtr_bare_status s;
    if (only != NULL && strcmp(only, c->id) != 0) continue;
    memset(&out, 0, sizeof out);
    s = mrtr_bare_protocol_parse(c->protocol, c->protocol_len, &p);
    if (s == MRTR_BARE_OK) {
      s = classify(c, p, &out, &used);
      calls++;
      bytes += c->message_len;
      if (s != out.rule) {
        printf("{\"id\":");
        json_string((const uint8_t *)c->id, strlen(c->id));
        printf(",\"crash\":\"the status and out->rule differ\"}\n");
        continue;
      }
#if defined(__arm__)
      overflows += used == 0;
#endif
    }
    print_outcome(c, s, &out);
    if (used > peak) {
      peak = used;
      peak_at = i;
    }
    if (c->message_len > mrtr_cases[largest_at].message_len) largest_at = i;
    if (i == largest_at) largest_used = used;
  }
  printf("# classify: %zu calls, %zu message bytes\n", calls, bytes);
#if defined(__arm__)
  if (mrtr_case_count > 0 && only == NULL) {
    printf("# stack: peak %zu bytes (%s, %zu-byte message); largest message %zu bytes (%s): %zu bytes of stack",
           peak, mrtr_cases[peak_at].id, mrtr_cases[peak_at].message_len, mrtr_cases[largest_at].message_len,
           mrtr_cases[largest_at].id, largest_used);
    printf("%s\n", overflows ? "; SOME CALLS RAN PAST THE PAINTED STACK" : "");
  }
#else
  (void)peak_at, (void)largest_used; /* the host does not measure the stack */
#endif
  return overflows ? 3 : 0;
}
