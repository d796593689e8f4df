/* The corpus's classify cases, compiled in: `mrtr-conformance cases-c` writes
 * the definitions from MRTR_CONFORMANCE_DIR at build time (conformance/src/embed.rs). */
#ifndef MRTR_CASES_H
#define MRTR_CASES_H
#include <stddef.h>
#include <stdint.h>

struct mrtr_case {
  const char *id;          /* the case id, e.g. "envelope/batch" */
  const char *protocol;    /* the protocol name the case gives, or NULL (the default) */
  size_t protocol_len;
  const uint8_t *message;  /* the message's exact bytes (NULL when empty) */
  size_t message_len;
};

extern const struct mrtr_case mrtr_cases[];
extern const size_t mrtr_case_count;

#endif
